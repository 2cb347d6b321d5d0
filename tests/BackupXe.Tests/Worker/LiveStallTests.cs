using BackupXe.History;
using BackupXe.Sources;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Requests;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using BackupXe.Worker.Configuration;
using BackupXe.Worker.Monitoring;
using BackupXe.Worker.Telemetry;
using Microsoft.Extensions.Logging;
using Serilog.Events;
using Serilog.Extensions.Logging;
using Xunit;

namespace BackupXe.Tests.Worker;

/// <summary>
/// The daemon's whole stall path on a live instance: a capture sent at its recorded pace (<see cref="PacedLiveSource"/>,
/// on a <see cref="FakeClock"/>) through <see cref="InstanceMonitor"/> and the production analyzer, the quiet clock
/// ticking while no event comes, the stall named while it lasts (event 180), and the stalled session's current wait read
/// through the real driver from the TDS double's sys.dm_exec_requests (event 182).
/// </summary>
public sealed class LiveStallTests : IDisposable
{
    private static readonly TimeSpan Gap = TimeSpan.FromMinutes(7);

    private readonly TempDirectory _directory = new();
    private readonly CollectingSink _log = new();
    private readonly SerilogLoggerFactory _loggers;
    private readonly BackupXeMetrics _metrics = new();
    private readonly QuietPeriodCounts _counts;
    private readonly FakeClock _time = new();

    public LiveStallTests()
    {
        Environment.SetEnvironmentVariable(TdsClient.PasswordVariable, TdsClient.Password);
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

    /// <summary>Runs the monitor over <paramref name="capture"/> sent live until <paramref name="done"/>; returns the fake time it took.</summary>
    private async Task<TimeSpan> RunLiveAsync(string capture, ScriptedSqlServer sql, Func<bool> done)
    {
        await using var server = TdsServerDouble.Start(sql.Script);
        var options = new BackupXeOptions { Instances = [new InstanceOptions { Name = "prod", ReplayPath = capture }] };
        var history = new SqliteHistoryStore(_directory.File("history.db"), _time);
        await history.InitializeAsync(CancellationToken.None);
        var recorder = new OperationRecorder(history, new StoredBaselines(history, options.Regression.ToComparisonSettings()), _metrics, _loggers.CreateLogger<OperationRecorder>());
        var source = new PacedLiveSource(InputSources.Open(capture), _time);
        var waits = new StallWaits(new RunningRequestReader(new SqlConnectionFactory(TdsClient.Settings(server))), _loggers.CreateLogger<InstanceMonitor>());
        var monitor = new InstanceMonitor(
            options.Instances[0], new ScriptedSourceFactory((_, _) => source), new SessionOperationAnalyzer(), recorder, _metrics, _time,
            TimeSpan.FromSeconds(30), _loggers.CreateLogger<InstanceMonitor>(), TimeSpan.FromMinutes(5), waits);

        using var stop = new CancellationTokenSource();
        var running = Task.Run(() => monitor.RunAsync(stop.Token));
        // Settled: the source waits for its next event and the analysis for its next quiet tick (two timers), or the
        // capture is drained and only the quiet tick is left; and a stall once announced has had its wait looked up
        // (a round trip in real time, which the fake clock must not outrun on a loaded machine).
        var lookedUp = () => _log.WithEventId(180).Count == 0 || _log.WithEventId(182).Count + _log.WithEventId(183).Count > 0;
        await ClockDriver.RunAsync(_time, TimeSpan.FromSeconds(1), TimeSpan.FromMinutes(12), done,
            () => (_time.PendingTimers >= 2 || (source.Drained && _time.PendingTimers >= 1)) && lookedUp(),
            () => $"events {string.Join(",", _log.Events.Select(e => e.Properties.TryGetValue("EventId", out var id) ? id.ToString() : "?"))}; drained {source.Drained}",
            settleWithin: TimeSpan.FromSeconds(10));
        var took = _time.Elapsed;
        await stop.CancelAsync();
        await running.WaitAsync(TimeSpan.FromSeconds(20));
        return took;
    }

    private bool Recorded => _log.WithEventId(100).Count + _log.WithEventId(103).Count > 0;

    [Fact]
    public async Task A_live_stall_in_the_copy_is_named_while_it_lasts_with_the_stalled_sessions_current_wait()
    {
        // Given: the buffer-starved backup (session 61) sent live with no byte for 7 minutes after 40 percent, and
        // sys.dm_exec_requests showing session 61 waiting on BACKUPIO
        var capture = GappedCapture.XeXml(CliRun.Sample("buffer-starved-backup.xml"), "40 percent", Gap, _directory.Path);
        var sql = new ScriptedSqlServer();
        sql.RunningRequests.Add(new ScriptedRequest(61, "BACKUP DATABASE", "SalesDB", 40f, 0, new DateTime(2024, 5, 1, 1, 30, 0, DateTimeKind.Utc), "BACKUPIO", 301_000, "BACKUPBUFFER"));

        // When: run until the session's wait is logged and the backup has been recorded
        await RunLiveAsync(capture, sql, () => _log.WithEventId(182).Count > 0 && Recorded);

        // Then: one stall, announced while it lasted (5 to 7 minutes in), then the wait read for it
        var stall = Assert.Single(_log.WithEventId(180));
        Assert.Equal("copy-data", stall.Scalar("Phase"));
        Assert.Equal(false, stall.Scalar("SeenAfterwards"));
        Assert.InRange(Convert.ToDouble(stall.Scalar("QuietSeconds"), System.Globalization.CultureInfo.InvariantCulture), 300, Gap.TotalSeconds);
        var wait = Assert.Single(_log.WithEventId(182));
        Assert.Equal(LogEventLevel.Warning, wait.Level);
        Assert.Equal(61, wait.Scalar("SessionId"));
        Assert.Equal("copy-data", wait.Scalar("Phase"));
        Assert.Equal("BACKUPIO", wait.Scalar("WaitType"));
        Assert.Equal(301_000L, wait.Scalar("WaitMs"));
        Assert.Equal("prod", wait.Scalar("Instance"));
        Assert.Empty(_log.WithEventId(183));
        Assert.Empty(_log.WithEventId(181));
        Assert.Equal(["stall copy-data"], _counts.Counted);
    }

    [Fact]
    public async Task The_same_gap_live_in_log_zeroing_is_expected_waiting_and_no_wait_is_looked_up()
    {
        // Given
        var capture = GappedCapture.Errorlog(CliRun.Sample("log-zeroing-restore.log"), "Waiting for log zero", Gap, _directory.Path);

        // When
        await RunLiveAsync(capture, new ScriptedSqlServer(), () => Recorded);

        // Then
        var expected = Assert.Single(_log.WithEventId(181));
        Assert.Equal("wait-log-zero", expected.Scalar("Phase"));
        Assert.Empty(_log.WithEventId(180));
        Assert.Empty(_log.WithEventId(182));
        Assert.Empty(_log.WithEventId(183));
        Assert.Equal(["expected-wait wait-log-zero"], _counts.Counted);
    }
}
