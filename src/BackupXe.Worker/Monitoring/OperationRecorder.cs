using System.Globalization;
using BackupXe.Core.Formatting;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.History;
using BackupXe.Worker.Logging;
using BackupXe.Worker.Telemetry;
using Microsoft.Extensions.Logging;

namespace BackupXe.Worker.Monitoring;

/// <summary>What happens to each completed operation: stored, counted, diagnosed in the log, checked for regression.</summary>
internal sealed class OperationRecorder(
    IHistoryStore history, StoredBaselines regressions, BackupXeMetrics metrics, ILogger<OperationRecorder> logger)
{
    public async Task RecordAsync(string instance, OperationReport report, CancellationToken cancellationToken)
    {
        var kind = Kebab.Of(report.Kind);
        var bottleneck = Kebab.Of(report.Verdict?.Bottleneck ?? Bottleneck.Unknown);
        var confidence = report.Verdict is { } verdict ? Kebab.Of(verdict.Confidence) : "unknown";
        var status = Kebab.Of(report.Status);

        // A name from an input is written into log lines: a line break in it must not forge a line of its own.
        var database = report.Database is null ? null : TerminalText.Line(report.Database);

        // The scope puts the same eight properties on every event about this operation, the regression
        // warning included, so one log query finds all of them.
        using var scope = logger.BeginScope(new Dictionary<string, object?>
        {
            ["Instance"] = instance,
            ["Database"] = database,
            ["Kind"] = kind,
            ["Status"] = status,
            ["Bottleneck"] = bottleneck,
            ["Confidence"] = confidence,
            ["DurationSeconds"] = report.DurationSeconds,
            ["ThroughputMBps"] = report.ThroughputMBps,
        });

        var write = await history.SaveAsync(instance, report, cancellationToken);
        if (write == HistoryWrite.AlreadyStored)
        {
            // A restarted daemon re-reads what it had already seen: counting or warning again would lie.
            logger.AlreadyStored(kind, database, instance, report.Start);
            return;
        }

        if (write == HistoryWrite.NoIdentity)
        {
            logger.NotStored(kind, database, instance);
        }

        metrics.RecordOperation(instance, report);
        var level = report.Status == OperationStatus.Completed ? LogLevel.Information : LogLevel.Warning;
        if (report is { DurationSeconds: { } seconds, ThroughputMBps: { } rate })
        {
            logger.OperationDiagnosed(level, kind, database, instance, status, seconds, rate, bottleneck, confidence);
        }
        else
        {
            logger.OperationDiagnosedInPart(level, kind, database, instance, status,
                report.DurationSeconds is { } d ? string.Create(CultureInfo.InvariantCulture, $"{d:0.#} s") : "unknown",
                report.ThroughputMBps is { } t ? string.Create(CultureInfo.InvariantCulture, $"{t:0.#} MB/s") : "unknown",
                bottleneck, confidence);
        }

        if (write != HistoryWrite.Added)
        {
            return;
        }

        var comparison = await regressions.CompareAsync(instance, report, cancellationToken);
        if (comparison is not null)
        {
            var top = comparison.Changes.Count > 0 ? comparison.Changes[0] : null;
            logger.HistoryCompared(
                kind, database, instance, Kebab.Of(comparison.Verdict), comparison.Factor, comparison.Since, comparison.MedianMBps,
                comparison.UsualRuns, top is null ? null : $"{top.Factor} (usually {top.Usual}, here {top.This})",
                comparison.Concurrent.Count(c => c.SameTarget), TerminalText.Line(comparison.Summary));
        }

        if (StoredBaselines.Regression(comparison) is { } regression)
        {
            metrics.RecordRegression(instance, report);
            logger.ThroughputRegressed(kind, database, instance, regression);
        }
    }
}
