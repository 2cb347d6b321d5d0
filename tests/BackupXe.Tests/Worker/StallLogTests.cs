using BackupXe.History;
using BackupXe.Sources;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Support;
using BackupXe.Worker.Configuration;
using BackupXe.Worker.Monitoring;
using BackupXe.Worker.Telemetry;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Serilog.Extensions.Logging;
using Xunit;

namespace BackupXe.Tests.Worker;

/// <summary>The daemon names each quiet period of a running operation once, as a log event and a count.</summary>
public sealed class StallLogTests : IDisposable
{
    private readonly TempDirectory _directory = new();
    private readonly CollectingSink _log = new();
    private readonly SerilogLoggerFactory _loggers;
    private readonly BackupXeMetrics _metrics = new();
    private readonly QuietPeriodCounts _counts;
    private readonly FakeClock _time = new();

    public StallLogTests()
    {
        _loggers = new SerilogLoggerFactory(_log.CreateLogger(), dispose: true);
        _counts = new QuietPeriodCounts(_metrics);
    }

    public void Dispose()
    {
        _counts.Dispose();
        _loggers.Dispose();
        _metrics.Dispose();
        _directory.Dispose();
    }

    private async Task RunAsync(string capture)
    {
        var options = Options.Create(new BackupXeOptions { Instances = [new InstanceOptions { Name = "prod", ReplayPath = capture }] });
        var history = new SqliteHistoryStore(_directory.File("history.db"), _time);
        await history.InitializeAsync(CancellationToken.None);
        var recorder = new OperationRecorder(history, new StoredBaselines(history, options.Value.Regression.ToComparisonSettings()), _metrics, _loggers.CreateLogger<OperationRecorder>());
        var monitor = new InstanceMonitor(
            options.Value.Instances[0], new ScriptedSourceFactory((_, _) => InputSources.Open(capture)), new SessionOperationAnalyzer(), recorder, _metrics, _time,
            TimeSpan.FromSeconds(30), _loggers.CreateLogger<InstanceMonitor>(), TimeSpan.FromMinutes(5));
        await monitor.RunAsync(CancellationToken.None);
    }

    [Fact]
    public async Task A_seven_minute_gap_in_the_copy_is_logged_and_counted_once_as_a_stall()
    {
        // Given
        var capture = GappedCapture.XeXml(CliRun.Sample("buffer-starved-backup.xml"), "40 percent", TimeSpan.FromMinutes(7), _directory.Path);

        // When
        await RunAsync(capture);

        // Then
        var stall = Assert.Single(_log.WithEventId(180));
        Assert.Equal("copy-data", stall.Scalar("Phase"));
        Assert.Equal("prod", stall.Scalar("Instance"));
        Assert.Empty(_log.WithEventId(181));
        Assert.Equal(["stall copy-data"], _counts.Counted);
    }

    [Fact]
    public async Task The_same_gap_in_log_zeroing_is_logged_as_expected_waiting()
    {
        // Given
        var capture = GappedCapture.Errorlog(CliRun.Sample("log-zeroing-restore.log"), "Waiting for log zero", TimeSpan.FromMinutes(7), _directory.Path);

        // When
        await RunAsync(capture);

        // Then
        var wait = Assert.Single(_log.WithEventId(181));
        Assert.Equal("wait-log-zero", wait.Scalar("Phase"));
        Assert.Empty(_log.WithEventId(180));
        Assert.Equal(["expected-wait wait-log-zero"], _counts.Counted);
    }
}
