using BackupXe.Core.Drill;
using BackupXe.History;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Sessions;
using BackupXe.Tests.SqlServer.Drill;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using BackupXe.Worker.Configuration;
using BackupXe.Worker.Drill;
using BackupXe.Worker.Telemetry;
using Serilog.Extensions.Logging;
using Xunit;

namespace BackupXe.Tests.Worker.Drill;

/// <summary>
/// The daemon's restore drill windows through the real driver against two TDS doubles (<see cref="DrillOverTds"/>):
/// PROD holds SalesDB's chain in its msdb, TEST is the target. The fake clock starts at 02:00 UTC; the window opens at
/// 03:00 UTC. Each statement moves the clock by its time on the double, so the phases are measured exactly.
/// </summary>
public sealed class DrillWindowRunnerTests : IDisposable
{
    private static readonly DateTimeOffset Start = new(2026, 11, 29, 2, 0, 0, TimeSpan.Zero);
    private static readonly DateTimeOffset Opens = Start.AddHours(1);
    private const string Scratch = "SalesDB_drill_202611290300";

    private readonly FakeClock _clock = new(Start);
    private readonly CollectingSink _log = new();
    private readonly SerilogLoggerFactory _loggers;
    private readonly TempDirectory _directory = new();
    private readonly BackupXeMetrics _metrics;
    private readonly RecordedMeasurements _recorded;

    public DrillWindowRunnerTests()
    {
        Environment.SetEnvironmentVariable(TdsClient.PasswordVariable, TdsClient.Password);
        _loggers = new SerilogLoggerFactory(_log.CreateLogger(), dispose: true);
        _metrics = new BackupXeMetrics(_clock);
        Prod = new DrillOverTds(_clock, "PRODSQL01");
        Test = new DrillOverTds(_clock, "TESTSQL01");
        _recorded = new RecordedMeasurements(_metrics.Meter);
    }

    private DrillOverTds Prod { get; }

    private DrillOverTds Test { get; }

    private string HistoryFile => _directory.File("history.db");

    public void Dispose()
    {
        _recorded.Dispose();
        _metrics.Dispose();
        _loggers.Dispose();
        _directory.Dispose();
    }

    /// <summary>PROD's drills of SalesDB on <paramref name="target"/> in a window at 03:00 UTC of <paramref name="minutes"/>; returns it running.</summary>
    private (Task Run, CancellationTokenSource Stop) Runner(TdsServerDouble prod, TdsServerDouble target, int minutes = 60)
    {
        var settings = new RestoreDrillsOptions
        {
            Databases = ["SalesDB"], TargetInstance = "test", TimeZone = "UTC",
            Windows = [new CaptureWindowOptions { Start = "0 3 * * *", DurationMinutes = minutes }],
        };
        var (schedule, problems) = CaptureSchedule.From(settings.AsWindows(), "BackupXe:Instances:0:RestoreDrills");
        Assert.Empty(problems);
        var servers = new DrillServers("test", new SqlConnectionFactory(TdsClient.Settings(prod)), new SqlConnectionFactory(TdsClient.Settings(target)), new CaptureSessionSettings());
        var runner = new DrillWindowRunner(
            "prod", settings, schedule!, servers, new SemaphoreSlim(1, 1), new SqliteRestoreDrills(HistoryFile, _clock), _metrics, _clock, _loggers.CreateLogger("drill"));
        var stop = new CancellationTokenSource();
        return (Task.Run(() => runner.RunAsync(stop.Token)), stop);
    }

    /// <summary>Moves the clock to the window's opening, which must be the runner's next timer.</summary>
    private async Task OpenTheWindowAsync((Task Run, CancellationTokenSource Stop) runner)
    {
        var next = _clock.NextTimerAsync();
        if (await Task.WhenAny(runner.Run, next) == runner.Run)
        {
            await runner.Run;
            Assert.Fail("the runner ended before its window");
        }

        var due = await next;
        Assert.Equal(Opens, _clock.GetUtcNow() + due);
        _clock.Advance(due);
    }

    /// <summary>Waits (on real time, polled) for the drill's event: a drill is some thirty round trips to the doubles.</summary>
    private Task DrilledAsync(int eventId) => UntilAsync(() => _log.WithEventId(eventId).Count > 0, $"event {eventId}");

    private async Task UntilAsync(Func<bool> condition, string what)
    {
        for (var waited = System.Diagnostics.Stopwatch.StartNew(); !condition(); await Task.Delay(5))
        {
            Assert.True(waited.Elapsed < TimeSpan.FromSeconds(60), $"no {what} within a minute: {string.Join(" | ", _log.Events.Select(e => e.RenderMessage()))}");
        }
    }

    /// <summary>The status of every drill stored, in order.</summary>
    private List<string> StoredStatuses()
    {
        using var connection = new Microsoft.Data.Sqlite.SqliteConnection($"Data Source={HistoryFile};Mode=ReadOnly;Pooling=False");
        connection.Open();
        using var command = connection.CreateCommand();
        command.CommandText = "SELECT status FROM restore_drills ORDER BY id;";
        using var reader = command.ExecuteReader();
        var statuses = new List<string>();
        while (reader.Read())
        {
            statuses.Add(reader.GetString(0));
        }

        return statuses;
    }

    private static async Task StopAsync((Task Run, CancellationTokenSource Stop) runner)
    {
        await runner.Stop.CancelAsync();
        await runner.Run.WaitAsync(TimeSpan.FromSeconds(30));
        runner.Stop.Dispose();
    }

    [Fact]
    public async Task When_its_window_opens_the_daemon_drills_with_the_clis_statements_stores_the_drill_logs_it_and_measures_each_phase()
    {
        // Given
        await using var prod = TdsServerDouble.Start(Prod.Sql.Script);
        await using var test = TdsServerDouble.Start(Test.Sql.Script);
        var runner = Runner(prod, test);

        // When
        await OpenTheWindowAsync(runner);
        await DrilledAsync(220);
        await StopAsync(runner);

        // Then: the checks before the first restore, the chain, recovery and the drop, never REPLACE, nothing left
        var kinds = Test.Statements.Skip(1).Select(s => string.Join(' ', s.Split([' ', '\n'], 3).Take(2))).ToList();
        string[] checks = ["RESTORE HEADERONLY", "RESTORE FILELISTONLY", "RESTORE VERIFYONLY"];
        Assert.Equal([.. Enumerable.Repeat(checks, 5).SelectMany(c => c), "RESTORE DATABASE", "RESTORE DATABASE", "RESTORE LOG", "RESTORE LOG", "RESTORE LOG", "RESTORE DATABASE", "DROP DATABASE"], kinds);
        Assert.Equal($"DROP DATABASE [{Scratch}];", Test.Statements[^1]);
        Assert.DoesNotContain(Test.Statements, s => s.Contains("REPLACE", StringComparison.Ordinal));
        Assert.DoesNotContain(Scratch, Test.Databases);
        Assert.Empty(Prod.Statements);

        // and stored under the source's name, as the CLI's --history stores it
        var stored = await new SqliteRestoreDrills(HistoryFile, _clock).LatestAsync("prod", "SalesDB", CancellationToken.None);
        Assert.NotNull(stored);
        Assert.Equal(DrillStatus.Completed, stored.Status);
        Assert.Equal(1050, stored.RestoreSeconds, 3);
        // Started once planned: the plan's file list took a second on the double.
        Assert.Equal(Opens.UtcDateTime.AddSeconds(1), stored.DrilledAt);

        // and logged, and measured by phase with the restore and recovery, and the last success's age
        var completed = Assert.Single(_log.WithEventId(220));
        Assert.Equal(1050.0, completed.Scalar("RestoreSeconds"));
        Assert.Equal("nothing", completed.Scalar("LeftBehind"));
        var durations = _recorded.Of("backupxe.restore.drill.duration");
        Assert.Equal(660, durations.Single(m => m.Tags["phase"] == "restore-full").Value, 3);
        Assert.Equal(90, durations.Single(m => m.Tags["phase"] == "restore-log").Value, 3);
        Assert.Equal(1050, durations.Single(m => m.Tags["phase"] == "restore-and-recovery").Value, 3);
        Assert.All(durations, m => Assert.Equal(["instance", "phase", "status"], m.Tags.Keys.Order()));
        Assert.All(durations, m => Assert.Equal("completed", m.Tags["status"]));
        Assert.Equal(["planning", "restore-full", "restore-differential", "restore-log", "recovery", "drop", "restore-and-recovery"], durations.Select(m => m.Tags["phase"]));
        var counted = Assert.Single(_recorded.Of("backupxe.restore.drills"));
        Assert.Equal("completed", counted.Tags["status"]);
        _clock.Advance(TimeSpan.FromHours(1));
        _recorded.RecordObservableInstruments();
        var age = Assert.Single(_recorded.Of("backupxe.restore.drill.last_success.age"));
        Assert.Equal((_clock.GetUtcNow().UtcDateTime - stored.DrilledAt).TotalSeconds, age.Value, 3);
        Assert.Equal("SalesDB", age.Tags["database"]);
    }

    [Fact]
    public async Task A_drill_still_restoring_when_its_window_ends_is_cancelled_on_the_server_and_its_scratch_database_dropped()
    {
        // Given: a 30-minute window, and the first log restore held by the server (nothing sent until ATTENTION) at 03:18
        Test.Intercept = sql => sql.StartsWith("RESTORE LOG", StringComparison.Ordinal) ? new TdsResponse().Stall() : null;
        await using var prod = TdsServerDouble.Start(Prod.Sql.Script);
        await using var test = TdsServerDouble.Start(Test.Sql.Script);
        var runner = Runner(prod, test, minutes: 30);
        await OpenTheWindowAsync(runner);
        await UntilAsync(() => test.Stalled > 0, "log restore held by the server");

        // When: the clock reaches the window's end, the runner's next timer
        var due = await _clock.NextTimerAsync();
        Assert.Equal(Opens.AddMinutes(30), _clock.GetUtcNow() + due);
        _clock.Advance(due);
        await DrilledAsync(223);
        await StopAsync(runner);

        // Then
        Assert.Equal(1, test.Attentions);
        Assert.Single(Test.StatementsOf("RESTORE LOG"));
        Assert.Equal($"DROP DATABASE [{Scratch}];", Test.Statements[^1]);
        Assert.DoesNotContain(Scratch, Test.Databases);
        var stopped = Assert.Single(_log.WithEventId(223));
        Assert.Equal("at the end of its window (2026-11-29T03:30:00.0000000+00:00)", stopped.Scalar("Cause"));
        Assert.Equal("cancelled during restore log", stopped.Scalar("Failure"));
        Assert.Equal("nothing", stopped.Scalar("LeftBehind"));
        Assert.Empty(_log.WithEventId(224));
        Assert.Equal(["cancelled"], StoredStatuses());
        Assert.Equal("cancelled", Assert.Single(_recorded.Of("backupxe.restore.drills")).Tags["status"]);
    }

    [Fact]
    public async Task A_daemon_stopped_while_a_drill_restores_cancels_it_on_the_server_and_drops_its_scratch_database_before_it_ends()
    {
        // Given: the first log restore held by the server
        Test.Intercept = sql => sql.StartsWith("RESTORE LOG", StringComparison.Ordinal) ? new TdsResponse().Stall() : null;
        await using var prod = TdsServerDouble.Start(Prod.Sql.Script);
        await using var test = TdsServerDouble.Start(Test.Sql.Script);
        var runner = Runner(prod, test);
        await OpenTheWindowAsync(runner);
        await UntilAsync(() => test.Stalled > 0, "log restore held by the server");

        // When: the daemon stops (SIGTERM) inside the window
        await StopAsync(runner);

        // Then: the runner ended only after the drop, and says it was the stop
        Assert.Equal(1, test.Attentions);
        Assert.Equal($"DROP DATABASE [{Scratch}];", Test.Statements[^1]);
        Assert.DoesNotContain(Scratch, Test.Databases);
        var stopped = Assert.Single(_log.WithEventId(223));
        Assert.Equal("by the daemon's stop", stopped.Scalar("Cause"));
        Assert.Equal(["cancelled"], StoredStatuses());
    }

    [Fact]
    public async Task A_failed_step_is_an_event_with_the_servers_error_as_its_root_cause()
    {
        // Given: CREATE DATABASE held by HAS_PERMS_BY_NAME, refused by the RESTORE itself
        Test.DeniedStatement = "RESTORE DATABASE";
        await using var prod = TdsServerDouble.Start(Prod.Sql.Script);
        await using var test = TdsServerDouble.Start(Test.Sql.Script);
        var runner = Runner(prod, test);

        // When
        await OpenTheWindowAsync(runner);
        await DrilledAsync(222);
        await StopAsync(runner);

        // Then
        var failed = Assert.Single(_log.WithEventId(222));
        Assert.StartsWith("restore full failed: CREATE DATABASE permission denied in database 'master'.", (string)failed.Scalar("Failure")!, StringComparison.Ordinal);
        Assert.EndsWith("(error 262)", (string)failed.Scalar("Failure")!, StringComparison.Ordinal);
        Assert.DoesNotContain('\n', (string)failed.Scalar("Failure")!);
        Assert.Equal(["failed"], StoredStatuses());
        Assert.Equal("nothing", failed.Scalar("LeftBehind"));
        Assert.Equal("failed", Assert.Single(_recorded.Of("backupxe.restore.drills")).Tags["status"]);
        Assert.DoesNotContain(_recorded.Of("backupxe.restore.drill.duration"), m => m.Tags["phase"] == "restore-log");
    }

    [Fact]
    public async Task A_drill_whose_target_is_the_source_server_is_refused_before_any_statement_and_logged_with_why()
    {
        // Given: the target answers as PROD's machine and instance (another address of the same server)
        var alias = new DrillOverTds(_clock, "PRODSQL01");
        await using var prod = TdsServerDouble.Start(Prod.Sql.Script);
        await using var prodAgain = TdsServerDouble.Start(alias.Sql.Script);
        var runner = Runner(prod, prodAgain);

        // When
        await OpenTheWindowAsync(runner);
        await DrilledAsync(221);
        await StopAsync(runner);

        // Then
        Assert.Contains(@"is the source server (PRODSQL01\MSSQLSERVER", (string)Assert.Single(_log.WithEventId(221)).Scalar("Refusals")!, StringComparison.Ordinal);
        Assert.DoesNotContain(alias.Statements, s => !s.StartsWith("RESTORE FILELISTONLY", StringComparison.Ordinal));
        Assert.Equal("refused", Assert.Single(_recorded.Of("backupxe.restore.drills")).Tags["status"]);
    }
}
