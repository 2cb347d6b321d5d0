using BackupXe.Core.Reporting;
using BackupXe.History;
using BackupXe.Tests.Support;
using BackupXe.Worker.Configuration;
using BackupXe.Worker.Monitoring;
using BackupXe.Worker.Telemetry;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Serilog.Events;
using Serilog.Extensions.Logging;
using Xunit;
using static BackupXe.Tests.Worker.Operations;

namespace BackupXe.Tests.Worker.Monitoring;

public sealed class OperationRecorderTests : IDisposable
{
    private static readonly string[] DiagnosisProperties =
        ["Instance", "Database", "Kind", "Status", "Bottleneck", "Confidence", "DurationSeconds", "ThroughputMBps"];

    private readonly TempDirectory _directory = new();
    private readonly CollectingSink _log = new();
    private readonly SerilogLoggerFactory _loggers;
    private readonly BackupXeMetrics _metrics = new();
    private readonly SqliteHistoryStore _history;
    private readonly OperationRecorder _recorder;

    public OperationRecorderTests()
    {
        _loggers = new SerilogLoggerFactory(_log.CreateLogger(), dispose: true);
        _history = new SqliteHistoryStore(_directory.File("history.db"), new FakeClock());
        _history.InitializeAsync(CancellationToken.None).GetAwaiter().GetResult();
        var options = Options.Create(new BackupXeOptions());
        _recorder = new OperationRecorder(_history, new StoredBaselines(_history, options.Value.Regression.ToComparisonSettings()), _metrics, _loggers.CreateLogger<OperationRecorder>());
    }

    public void Dispose()
    {
        _loggers.Dispose();
        _metrics.Dispose();
        _directory.Dispose();
    }

    [Fact]
    public async Task The_diagnosis_event_carries_the_operation_as_structured_properties()
    {
        await _recorder.RecordAsync("prod", Backup("Sales", Monday, 41.5), CancellationToken.None);

        var diagnosis = Assert.Single(_log.WithEventId(100));
        Assert.Equal(LogEventLevel.Information, diagnosis.Level);
        Assert.Equal(
            new object?[] { "prod", "Sales", "backup", "completed", "buffer-starved", "high", 120.0, 41.5 },
            DiagnosisProperties.Select(diagnosis.Scalar));
        Assert.Equal("\"backup\" of [\"Sales\"] on \"prod\": \"completed\" in 120 s at 41.5 MB/s, bottleneck \"buffer-starved\" (\"high\" confidence)", diagnosis.RenderMessage());
    }

    [Fact]
    public async Task An_operation_without_duration_or_rate_is_logged_as_unknown_not_as_null()
    {
        // Given a backup cut off before its end: no duration, no throughput
        var cut = Backup("Sales", Monday, 41.5) with { Status = OperationStatus.Incomplete, DurationSeconds = null, ThroughputMBps = null };

        // When
        await _recorder.RecordAsync("prod", cut, CancellationToken.None);

        // Then
        var diagnosis = Assert.Single(_log.WithEventId(103));
        Assert.Equal(
            "\"backup\" of [\"Sales\"] on \"prod\": \"incomplete\", duration \"unknown\", throughput \"unknown\", bottleneck \"buffer-starved\" (\"high\" confidence)",
            diagnosis.RenderMessage());
        Assert.Empty(_log.WithEventId(100));
    }

    [Fact]
    public async Task A_slow_backup_logs_a_regression_warning_with_the_numbers_a_DBA_checks()
    {
        foreach (var report in Nightly("Sales", Monday, 112, 125, 118, 109, 130, 118, 121, 98, 115, 140))
        {
            await _recorder.RecordAsync("prod", report, CancellationToken.None);
        }

        await _recorder.RecordAsync("prod", Backup("Sales", Monday, 41), CancellationToken.None);

        var warning = Assert.Single(_log.WithEventId(110));
        Assert.Equal(LogEventLevel.Warning, warning.Level);
        Assert.Equal("backup of [Sales] on prod ran at 41 MB/s, 35% of its recent median 118 MB/s over 10 operations", warning.RenderMessage(formatProvider: null).Replace("\"", ""));
        Assert.All(DiagnosisProperties, name => Assert.True(warning.Properties.ContainsKey(name), name));
    }

    [Fact]
    public async Task Each_new_operation_is_logged_against_its_history_with_since_and_what_changed()
    {
        // Ten usual nights at BUFFERCOUNT 50, then two at BUFFERCOUNT 7 at a third of the speed.
        var usual = new BufferConfigReport { BufferCount = 50, MaxTransferSizeBytes = 1_048_576 };
        foreach (var report in Nightly("Sales", Monday.AddDays(-2), 112, 125, 118, 109, 130, 118, 121, 98, 115, 140))
        {
            await _recorder.RecordAsync("prod", report with { BufferConfig = usual }, CancellationToken.None);
        }

        await _recorder.RecordAsync("prod", Backup("Sales", Monday.AddDays(-2), 40), CancellationToken.None);
        await _recorder.RecordAsync("prod", Backup("Sales", Monday.AddDays(-1), 39), CancellationToken.None);
        await _recorder.RecordAsync("prod", Backup("Sales", Monday, 38), CancellationToken.None);

        var events = _log.WithEventId(111);
        Assert.Equal(13, events.Count);
        Assert.All(events.Take(5), e => Assert.Equal("cannot-tell", e.Scalar("HistoryVerdict")));
        // A figure the comparison lacks is left out of the line, never printed as "null" ("factor null, since null").
        Assert.All(events, e => Assert.DoesNotContain("null", e.RenderMessage(formatProvider: null), StringComparison.Ordinal));
        Assert.False(events[0].Properties.ContainsKey("HistoryFactor"));
        var last = events[^1];
        Assert.Equal(LogEventLevel.Information, last.Level);
        Assert.Equal("slower", last.Scalar("HistoryVerdict"));
        Assert.Equal(3.1, Math.Round((double)last.Scalar("HistoryFactor")!, 1));
        Assert.Equal(Monday.AddDays(-2), last.Scalar("SlowSince"));
        Assert.Equal("BUFFERCOUNT (usually 50, here 7)", last.Scalar("TopChange"));
        Assert.Equal(10, last.Scalar("UsualRuns"));
        Assert.StartsWith("3.1x slower than usual: 38 MB/s against a median 118 MB/s", (string)last.Scalar("HistorySummary")!);
        Assert.Equal(3, _log.WithEventId(110).Count);
    }

    [Fact]
    public async Task A_replayed_operation_already_in_history_is_neither_logged_nor_checked_again()
    {
        var reports = Nightly("Sales", Monday, 118, 118, 118, 118, 118).Append(Backup("Sales", Monday, 20)).ToList();
        foreach (var report in reports.Concat(reports))
        {
            await _recorder.RecordAsync("prod", report, CancellationToken.None);
        }

        Assert.Equal(6, _log.WithEventId(100).Count);
        Assert.Single(_log.WithEventId(110));
        Assert.Equal(6, _log.WithEventId(101).Count);
    }

    [Fact]
    public async Task A_failed_backup_is_logged_as_a_warning()
    {
        await _recorder.RecordAsync("prod", Backup("Sales", Monday, null, status: BackupXe.Core.Reporting.OperationStatus.Failed), CancellationToken.None);

        // No throughput: the event that says so in words (103), at warning level
        Assert.Equal(LogEventLevel.Warning, Assert.Single(_log.WithEventId(103)).Level);
    }
}
