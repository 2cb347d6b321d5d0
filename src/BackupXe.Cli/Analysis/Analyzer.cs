using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Reporting;
using BackupXe.Sources.Merging;

namespace BackupXe.Cli.Analysis;

/// <summary>The post-mortem: every input, merged in time order, through one pipeline, into one report.</summary>
public sealed class Analyzer(DiagnosisSettings settings)
{
    public async Task<AnalysisResult> AnalyzeAsync(
        IReadOnlyList<ITraceEventSource> sources,
        IProgress<long>? eventsRead,
        CancellationToken cancellationToken)
    {
        var collected = new CollectingSink();
        var pipeline = new OperationPipeline(collected, settings);
        var merge = new TimeOrderedMerge(sources);
        var statuses = merge.Statuses;
        long events = 0;

        await foreach (var (traceEvent, _) in merge.ReadEventsAsync(cancellationToken))
        {
            pipeline.Observe(traceEvent);
            if (++events % 65_536 == 0)
            {
                eventsRead?.Report(events);
            }
        }

        pipeline.Flush();
        var inputs = sources.Select((s, i) => new InputReport(s.Name, s.Format, statuses[i].Events, statuses[i].Problems)).ToList();
        var operations = collected.Reports.OrderBy(r => r.Start ?? r.End ?? DateTime.MaxValue).ToList();
        var report = new AnalysisReport(AnalysisReport.CurrentSchemaVersion, inputs, operations);
        return new AnalysisResult(report, statuses, pipeline.UnattributedWaits, pipeline.OrphanMessages);
    }

    private sealed class CollectingSink : IOperationSink
    {
        public List<OperationReport> Reports { get; } = [];

        public void OnOperationCompleted(OperationReport report) => Reports.Add(report);
    }
}

/// <summary>The report plus what the run itself noticed.</summary>
public sealed record AnalysisResult(
    AnalysisReport Report,
    IReadOnlyList<SourceStatus> Statuses,
    long UnattributedWaits,
    long OrphanMessages)
{
    public int ExitCode => ExitCodes.For(Statuses);
}
