using BackupXe.Core.Events;
using BackupXe.Core.Reporting;
using BackupXe.History;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using BackupXe.Worker.Configuration;
using BackupXe.Worker.Monitoring;
using BackupXe.Worker.Telemetry;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Serilog.Extensions.Logging;
using Xunit;
using static BackupXe.Tests.Worker.Operations;

namespace BackupXe.Tests.Worker.Monitoring;

public sealed class MonitoringServiceTests : IDisposable
{
    private const string Secret = "Hunter2!";

    private static readonly TraceEvent[] SomeEvents =
    [
        new ProgressTraceEvent(Monday, 57, OperationKind.Backup, "Sales", "BACKUP DATABASE started"),
        new ProgressTraceEvent(Monday.AddMinutes(2), 57, OperationKind.Backup, "Sales", "BACKUP DATABASE finished"),
    ];

    private readonly TempDirectory _directory = new();
    private readonly CollectingSink _log = new();
    private readonly SerilogLoggerFactory _loggers;
    private readonly BackupXeMetrics _metrics = new();
    private readonly FakeClock _time = new();
    private readonly SqliteHistoryStore _history;

    public MonitoringServiceTests()
    {
        _loggers = new SerilogLoggerFactory(_log.CreateLogger(), dispose: true);
        _history = new SqliteHistoryStore(_directory.File("history.db"), _time);
    }

    public void Dispose()
    {
        _loggers.Dispose();
        _metrics.Dispose();
        _directory.Dispose();
    }

    private MonitoringService Service(IInstanceSourceFactory sources, IReadOnlyDictionary<string, IReadOnlyList<OperationReport>> operations)
    {
        var options = Options.Create(new BackupXeOptions
        {
            RetryDelaySeconds = 30,
            Instances =
            [
                new InstanceOptions { Name = "flaky", ReplayPath = "flaky.xml" },
                new InstanceOptions { Name = "steady", ReplayPath = "steady.xml" },
            ],
        });
        var recorder = new OperationRecorder(_history, new StoredBaselines(_history, options.Value.Regression.ToComparisonSettings()), _metrics, _loggers.CreateLogger<OperationRecorder>());
        return new MonitoringService(options, sources, new ScriptedAnalyzer(operations), _history, recorder, _metrics, _time, _loggers);
    }

    private async Task<IReadOnlyList<string>> StoredInstancesAsync()
        => [.. (await _history.QueryAsync(new HistoryQuery(), CancellationToken.None)).Select(stored => stored.Instance).Order()];

    [Fact]
    public async Task A_stop_while_the_history_opens_at_start_up_is_a_stop_not_a_failure()
    {
        // Given: the service manager's stop arrives while the history file is being opened
        var service = Service(new ScriptedSourceFactory((instance, _) => new ScriptedSource($"{instance.Name}.xml", SomeEvents)), new Dictionary<string, IReadOnlyList<OperationReport>>());
        using var stopping = new CancellationTokenSource();
        await stopping.CancelAsync();

        // When
        await service.StartAsync(stopping.Token);
        await service.StopAsync(CancellationToken.None);

        // Then: nothing started, no fault, nothing logged as an error
        Assert.Null(service.Fault);
        Assert.Null(service.ExecuteTask);
        Assert.DoesNotContain(_log.Events, e => e.Level >= Serilog.Events.LogEventLevel.Error);
    }

    [Fact]
    public async Task A_failing_instance_does_not_stop_the_others_and_is_retried_after_the_delay()
    {
        // Given "flaky" whose first open fails (quoting its connection string, as drivers do) and "steady"
        var sources = new ScriptedSourceFactory((instance, attempt) => instance.Name == "flaky" && attempt == 1
            ? throw new InvalidOperationException($"Login failed for 'Server=db1;User ID=backupxe;Password={Secret}'")
            : new ScriptedSource($"{instance.Name}.xml", SomeEvents));
        var service = Service(sources, new Dictionary<string, IReadOnlyList<OperationReport>>
        {
            ["flaky.xml"] = [Backup("Sales", Monday, 100)],
            ["steady.xml"] = [Backup("HR", Monday, 80)],
        });

        // When both start
        await service.StartAsync(CancellationToken.None);
        await Eventually.TrueAsync(() => _time.PendingTimers == 1, "flaky waiting to retry");
        await Eventually.TrueAsync(() => _log.WithEventId(141).Count == 1, "steady finished");

        // Then steady was fully recorded while flaky waits, its failure logged under its name
        Assert.Equal(["steady"], await StoredInstancesAsync());
        var failure = Assert.Single(_log.WithEventId(120));
        Assert.Equal("flaky", failure.Scalar("Instance"));
        Assert.Equal(1, sources.OpenedCount("flaky"));

        // ... and flaky tries again only once the retry delay has passed
        _time.Advance(TimeSpan.FromSeconds(29));
        Assert.Equal(1, sources.OpenedCount("flaky"));
        _time.Advance(TimeSpan.FromSeconds(1));
        await Eventually.TrueAsync(() => _log.WithEventId(141).Count == 2, "flaky finished on its second attempt");
        Assert.Equal(["flaky", "steady"], await StoredInstancesAsync());

        await service.StopAsync(CancellationToken.None);
    }

    [Fact]
    public async Task A_connection_string_in_an_error_never_reaches_the_log()
    {
        var sources = new ScriptedSourceFactory((instance, _) => instance.Name == "flaky"
            ? throw new InvalidOperationException($"Login failed for 'Server=db1;User ID=backupxe;Password={Secret};Encrypt=True'")
            : new ScriptedSource("steady.xml", [], failure: new IOException($"lost pwd = {Secret} somewhere")));
        var service = Service(sources, new Dictionary<string, IReadOnlyList<OperationReport>>());

        await service.StartAsync(CancellationToken.None);
        await Eventually.TrueAsync(() => _log.WithEventId(120).Count == 2 && _log.WithEventId(121).Count == 2, "both failures logged");
        await service.StopAsync(CancellationToken.None);

        var everything = _log.RenderAsJson();
        Assert.DoesNotContain(Secret, everything);
        Assert.Contains($"Password={BackupXe.SqlServer.ConnectionStringRedactor.Mask}", everything);
        Assert.Contains("Server=db1", everything);
    }

    [Fact]
    public async Task Stopping_the_daemon_ends_a_monitor_waiting_to_retry()
    {
        var sources = new ScriptedSourceFactory((_, _) => throw new TimeoutException("server gone"));
        var service = Service(sources, new Dictionary<string, IReadOnlyList<OperationReport>>());

        await service.StartAsync(CancellationToken.None);
        await Eventually.TrueAsync(() => _time.PendingTimers == 2, "both waiting to retry");
        await service.StopAsync(CancellationToken.None);

        Assert.NotNull(service.ExecuteTask);
        Assert.True(service.ExecuteTask.IsCompletedSuccessfully);
        Assert.Empty(_log.WithEventId(150));
    }

    [Fact]
    public async Task An_instance_with_capture_windows_is_read_only_once_the_daemon_has_armed_its_session()
    {
        // Given a live instance whose stopped session (STARTUP_STATE OFF) has a window at 03:00 UTC, the clock at 02:00
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = false, StartsWithServer = false };
        await using var server = TdsServerDouble.Start(sql.Script);
        var sources = new ScriptedSourceFactory((instance, _) => new ScriptedSource($"{instance.Name}.xml", SomeEvents));
        var options = Options.Create(new BackupXeOptions
        {
            RetryDelaySeconds = 30,
            Instances =
            [
                new InstanceOptions
                {
                    Name = "prod", Server = server.Server, UserName = TdsClient.User, Password = TdsClient.Password,
                    Encrypt = false, // test-only: the double speaks no TLS
                    EnsureSession = true,
                    CaptureWindows = new CaptureWindowsOptions { TimeZone = "UTC", Windows = [new CaptureWindowOptions { Start = "0 3 * * *", DurationMinutes = 60 }] },
                },
            ],
        });
        var recorder = new OperationRecorder(_history, new StoredBaselines(_history, options.Value.Regression.ToComparisonSettings()), _metrics, _loggers.CreateLogger<OperationRecorder>());
        var service = new MonitoringService(options, sources, new ScriptedAnalyzer(new Dictionary<string, IReadOnlyList<OperationReport>>()), _history, recorder, _metrics, _time, _loggers);

        // When the daemon starts, and the clock reaches the lead before the window
        await service.StartAsync(CancellationToken.None);
        var wait = await _time.NextTimerAsync();
        var openedBefore = sources.OpenedCount("prod");
        _time.Advance(wait);
        await Eventually.TrueAsync(() => sources.OpenedCount("prod") == 1, "the instance read in its window");
        var runningInWindow = sql.SessionRunning;
        await service.StopAsync(CancellationToken.None);

        // Then nothing was read before 02:55, the session was started for the window, and stopped when the daemon stopped
        Assert.Equal(TimeSpan.FromMinutes(55), wait);
        Assert.Equal(0, openedBefore);
        Assert.True(runningInWindow);
        Assert.False(sql.SessionRunning);
    }

    [Fact]
    public async Task A_stop_during_the_start_of_5000_instances_is_observed_by_every_instance_not_yet_started()
    {
        // Given 5,000 instances, and a stop that comes while the 100th is being set up
        var options = Options.Create(new BackupXeOptions
        {
            RetryDelaySeconds = 30,
            Instances = [.. Enumerable.Range(0, 5_000).Select(i => new InstanceOptions { Name = $"replay{i}", ReplayPath = $"replay{i}.xml" })],
        });
        var sources = new ScriptedSourceFactory((instance, _) => new ScriptedSource($"{instance.Name}.xml", []));
        using var loggers = new StopAtLogger(_loggers, stopAt: 100);
        var recorder = new OperationRecorder(_history, new StoredBaselines(_history, options.Value.Regression.ToComparisonSettings()), _metrics, _loggers.CreateLogger<OperationRecorder>());
        var service = new MonitoringService(options, sources, new ScriptedAnalyzer(new Dictionary<string, IReadOnlyList<OperationReport>>()), _history, recorder, _metrics, _time, loggers);

        // When the host starts it, and stops it as the 100th instance is set up
        var starting = Task.Run(() => service.StartAsync(CancellationToken.None));
        await loggers.Reached.Task.WaitAsync(TimeSpan.FromSeconds(30));
        await starting.WaitAsync(TimeSpan.FromSeconds(30)); // the host's start is not held by the instances' set-up
        var stopping = service.StopAsync(CancellationToken.None);
        loggers.Release.Set();
        await stopping.WaitAsync(TimeSpan.FromSeconds(30));

        // Then no instance after it was set up or opened
        Assert.True(service.ExecuteTask!.IsCompletedSuccessfully);
        Assert.Equal(100, loggers.MonitorLoggers);
        Assert.Equal(0, Enumerable.Range(100, 4_900).Sum(i => sources.OpenedCount($"replay{i}")));
        Assert.Null(service.Fault);
    }

    /// <summary>Counts the instances set up (one monitor logger each) and holds the <c>stopAt</c>-th until released.</summary>
    private sealed class StopAtLogger(ILoggerFactory inner, int stopAt) : ILoggerFactory
    {
        private int _monitors;

        public TaskCompletionSource Reached { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public ManualResetEventSlim Release { get; } = new();

        public int MonitorLoggers => Volatile.Read(ref _monitors);

        public ILogger CreateLogger(string categoryName)
        {
            if (categoryName == typeof(InstanceMonitor).FullName && Interlocked.Increment(ref _monitors) == stopAt)
            {
                Reached.SetResult();
                Release.Wait(TimeSpan.FromSeconds(60));
            }

            return inner.CreateLogger(categoryName);
        }

        public void AddProvider(ILoggerProvider provider) => inner.AddProvider(provider);

        public void Dispose() => Release.Dispose();
    }
}
