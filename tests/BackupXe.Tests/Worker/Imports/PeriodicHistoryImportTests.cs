using BackupXe.Core.Baselines;
using BackupXe.Core.Restores;
using BackupXe.History;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.Tests.Cli;
using BackupXe.Tests.SqlServer.Msdb;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using BackupXe.Worker.Configuration;
using BackupXe.Worker.Imports;
using BackupXe.Worker.Telemetry;
using Microsoft.Data.Sqlite;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using Serilog.Events;
using Serilog.Extensions.Logging;
using Xunit;

namespace BackupXe.Tests.Worker.Imports;

/// <summary>
/// The daemon's periodic import against the TDS double (msdb rows built from the documented column types) on a
/// manual clock. It tests the timer, the merge and the regression path; it says nothing about a real server's answers.
/// </summary>
public sealed class PeriodicHistoryImportTests : IDisposable
{
    private const long GiB = 1L << 30;
    private static readonly DateTime Night = new(2024, 4, 20, 1, 0, 0);
    private static readonly HistoryImportOptions Hourly = new() { IntervalMinutes = 60, LookbackDays = 30 };

    private readonly TempDirectory _directory = new();
    private readonly CollectingSink _log = new();
    private readonly SerilogLoggerFactory _loggers;
    private readonly BackupXeMetrics _metrics = new();
    private readonly FakeClock _time = new();
    private readonly SqliteHistoryStore _captures;
    private readonly SqliteImportedHistory _history;
    private readonly PeriodicHistoryImport _import;

    public PeriodicHistoryImportTests()
    {
        Environment.SetEnvironmentVariable(TdsClient.PasswordVariable, TdsClient.Password);
        _loggers = new SerilogLoggerFactory(_log.CreateLogger(), dispose: true);
        var path = _directory.File("history.db");
        _captures = new SqliteHistoryStore(path, _time);
        _history = new SqliteImportedHistory(path, _time);
        _import = new PeriodicHistoryImport(
            _history, new StoredBaselines(_captures, new BaselineComparisonSettings()), _metrics, _time, _loggers.CreateLogger<PeriodicHistoryImport>());
    }

    public void Dispose()
    {
        SqliteConnection.ClearAllPools();
        _loggers.Dispose();
        _metrics.Dispose();
        _directory.Dispose();
    }

    /// <summary>Six nightly 10 GiB full backups: five at about 100 s, the last at 400 s (a quarter of the speed).</summary>
    private static TdsResultSet SixNights()
    {
        var rows = ServerHistoryReaderTests.MsdbRows();
        int[] seconds = [100, 104, 98, 101, 99, 400];
        for (var night = 0; night < seconds.Length; night++)
        {
            var start = Night.AddDays(night);
            rows.Row(night + 1, "Sales", null, "D", false, false, true, start, start.AddSeconds(seconds[night]), 10 * GiB, 4 * GiB, null, "MS_XPRESS", 8, $@"X:\b\Sales_{night}.bak", 2, 0, null, null, null, null);
        }

        return rows;
    }

    /// <summary>A server whose msdb holds <see cref="SixNights"/>.</summary>
    private static TdsScript SixNightsServer() => ServerHistoryReaderTests.Server(ServerHistoryReaderTests.Columns2022(), SixNights(), commandLog: null);

    [Fact]
    public async Task Two_ticks_import_once_each_the_second_adds_no_rows_and_the_regression_is_warned_once()
    {
        // Given: a server whose msdb holds six nightly backups, the last one four times slower
        await using var server = TdsServerDouble.Start(SixNightsServer());
        using var stop = new CancellationTokenSource();
        var run = _import.RunAsync("prod", new SqlConnectionFactory(TdsClient.Settings(server)), Hourly, stop.Token);
        Assert.Equal(TimeSpan.FromMinutes(60), await _time.NextTimerAsync());
        Assert.Empty(_log.WithEventId(170));

        // When: the first tick
        _time.Advance(TimeSpan.FromMinutes(60));
        await _time.NextTimerAsync();

        // Then: one import, six rows, one warning for the slow night
        var first = Assert.Single(_log.WithEventId(170));
        Assert.Equal(6, first.Scalar("Added"));
        var warning = Assert.Single(_log.WithEventId(110));
        Assert.Equal(LogEventLevel.Warning, warning.Level);
        Assert.Equal("Sales", warning.Scalar("Database"));
        Assert.Equal("prod", warning.Scalar("Instance"));

        // When: the second tick re-imports the same window
        _time.Advance(TimeSpan.FromMinutes(60));
        await _time.NextTimerAsync();

        // Then: a second import that adds nothing and warns nothing new
        var imports = _log.WithEventId(170);
        Assert.Equal(2, imports.Count);
        Assert.Equal(0, imports[1].Scalar("Added"));
        Assert.Equal(6, imports[1].Scalar("Unchanged"));
        Assert.Single(_log.WithEventId(110));
        Assert.Equal(6, (await _history.ReadAsync("prod", null, CancellationToken.None)).Count);
        Assert.Empty(_log.WithEventId(171));

        await stop.CancelAsync();
        await run;
    }

    [Fact]
    public async Task A_failed_import_is_logged_without_the_password_and_the_next_tick_still_runs()
    {
        // Given: a server that answers with the wrong password (the login fails on every try)
        await using var server = TdsServerDouble.Start(SixNightsServer());
        server.Credentials = (TdsClient.User, TdsClient.Password);
        var settings = TdsClient.Settings(server, password: "Wrong-Secret-123");
        using var stop = new CancellationTokenSource();
        var run = _import.RunAsync("prod", new SqlConnectionFactory(settings), Hourly, stop.Token);
        await _time.NextTimerAsync();

        // When: two ticks
        _time.Advance(TimeSpan.FromMinutes(60));
        await _time.NextTimerAsync();
        _time.Advance(TimeSpan.FromMinutes(60));
        await _time.NextTimerAsync();

        // Then: two failures logged, the secret in neither, and the loop is still scheduled
        var failures = _log.WithEventId(171);
        Assert.Equal(2, failures.Count);
        Assert.All(failures, failure => Assert.DoesNotContain("Wrong-Secret-123", failure.RenderMessage(formatProvider: null), StringComparison.Ordinal));
        Assert.Empty(_log.WithEventId(170));
        Assert.False(run.IsCompleted);

        await stop.CancelAsync();
        await run;
    }

    [Fact]
    public async Task The_service_imports_each_instance_on_its_own_so_one_failing_never_stops_another()
    {
        // Given: two live instances on one server double, one with a password the server refuses
        await using var server = TdsServerDouble.Start(SixNightsServer());
        server.Credentials = (TdsClient.User, TdsClient.Password);
        InstanceOptions Live(string name, string password) => new()
        {
            Name = name, Server = server.Server, UserName = TdsClient.User, Password = password,
            Encrypt = false, // test-only: the double speaks no TLS
            HistoryImport = Hourly,
        };
        var options = new BackupXeOptions { Instances = [Live("broken", "Wrong-Secret-123"), Live("prod", TdsClient.Password)] };
        using var service = new HistoryImportService(Options.Create(options), _import, NullLogger<HistoryImportService>.Instance);
        await service.StartAsync(CancellationToken.None);
        await TimersCreated(2);

        // When: one tick
        _time.Advance(TimeSpan.FromMinutes(60));
        await TimersCreated(4);

        // Then: the broken instance failed, the other imported its rows
        Assert.Equal("broken", Assert.Single(_log.WithEventId(171)).Scalar("Instance"));
        var imported = Assert.Single(_log.WithEventId(170));
        Assert.Equal("prod", imported.Scalar("Instance"));
        Assert.Equal(6, imported.Scalar("Added"));

        await service.StopAsync(CancellationToken.None);
    }

    // Each loop creates its next delay only after its import has finished (or failed): a signal, bounded so a
    // hang fails the test instead of stalling the suite.
    private async Task TimersCreated(int count)
    {
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(20);
        while (_time.ScheduledDelays.Count < count)
        {
            Assert.True(DateTime.UtcNow < deadline, $"{_time.ScheduledDelays.Count} of {count} timers created");
            await Task.Delay(10);
        }
    }

    [Fact]
    public async Task A_gap_in_the_restore_chain_is_logged_once_as_a_structured_warning()
    {
        // Given: msdb's chain for Sales misses the log backup between 02:00 and 04:00 (LSNs as backupset holds them)
        var chainNight = DateTime.Today.AddDays(-2).AddHours(1);
        var script = ScriptedMsdb.WithChain(
            SixNightsServer(),
            new("Sales", "D", false, "41000000016000037", "41000000017600001", "41000000000000001", "41000000016000037", "FULL", chainNight, chainNight.AddMinutes(10)),
            new("Sales", "L", false, "41000000008800001", "41000000018400001", "41000000016000037", "41000000018400001", "FULL", chainNight.AddHours(1), chainNight.AddHours(1).AddMinutes(1)),
            new("Sales", "L", false, "41000000020000001", "41000000021600001", "41000000016000037", "41000000021600001", "FULL", chainNight.AddHours(3), chainNight.AddHours(3).AddMinutes(1)));
        await using var server = TdsServerDouble.Start(script);
        using var stop = new CancellationTokenSource();
        var run = _import.RunAsync("prod", new SqlConnectionFactory(TdsClient.Settings(server)), Hourly, stop.Token);
        await _time.NextTimerAsync();

        // When: two imports
        _time.Advance(TimeSpan.FromMinutes(60));
        await _time.NextTimerAsync();
        _time.Advance(TimeSpan.FromMinutes(60));
        await _time.NextTimerAsync();

        // Then: the gap once, with its database, span, LSNs and reason as properties
        Assert.Equal(2, _log.WithEventId(170).Count);
        var gap = Assert.Single(_log.WithEventId(190));
        Assert.Equal(LogEventLevel.Warning, gap.Level);
        Assert.Equal("Sales", gap.Scalar("Database"));
        Assert.Equal("prod", gap.Scalar("Instance"));
        Assert.Equal("41000000018400001", gap.Scalar("FromLsn"));
        Assert.Equal("41000000020000001", gap.Scalar("ToLsn"));
        Assert.StartsWith("a log backup is missing", (string)gap.Scalar("Reason")!, StringComparison.Ordinal);
        Assert.Empty(_log.WithEventId(191));

        await stop.CancelAsync();
        await run;
    }

    [Fact]
    public async Task Each_import_records_how_many_databases_are_past_their_targets_and_the_worst_rpo()
    {
        // Given: Sales' six nightly fulls and a chain with a gap, judged against an RPO target of a minute
        var chainNight = DateTime.Today.AddDays(-2).AddHours(1);
        var script = ScriptedMsdb.WithChain(
            SixNightsServer(),
            new("Sales", "D", false, "41000000016000037", "41000000017600001", "41000000000000001", "41000000016000037", "FULL", chainNight, chainNight.AddMinutes(10)),
            new("Sales", "L", false, "41000000008800001", "41000000018400001", "41000000016000037", "41000000018400001", "FULL", chainNight.AddHours(1), chainNight.AddHours(1).AddMinutes(1)));
        var import = new PeriodicHistoryImport(
            _history, new StoredBaselines(_captures, new BaselineComparisonSettings()), _metrics, _time, _loggers.CreateLogger<PeriodicHistoryImport>(),
            Options.Create(new BackupXeOptions { Targets = new TargetsOptions { RpoMinutes = 1, DatabaseSeries = "Sal*", MaxDatabaseSeries = 1 } }));
        using var measured = new RecordedMeasurements(_metrics.Meter, name => name.StartsWith("backupxe.fleet.", StringComparison.Ordinal));
        await using var server = TdsServerDouble.Start(script);

        // When: one import
        await import.ImportOnceAsync("prod", new SqlConnectionFactory(TdsClient.Settings(server)), Hourly, CancellationToken.None);
        var recorded = measured.All.Select(m => (Name: m.Instrument, Target: m.Tag("target"), m.Value)).ToList();

        // Then: Sales is past its RPO target, none past an RTO target (none is set), and the worst RPO is over a minute
        Assert.Contains(("backupxe.fleet.out_of_target", "rpo", 1.0), recorded);
        Assert.Contains(("backupxe.fleet.out_of_target", "rto", 0.0), recorded);
        Assert.True(recorded.Single(r => r.Name == "backupxe.fleet.rpo.worst").Value > 60, string.Join("; ", recorded));
        // Sales matches the opted-in pattern: its own series, its RPO the instance's worst, past its RPO target
        Assert.Equal(recorded.Single(r => r.Name == "backupxe.fleet.rpo.worst").Value, recorded.Single(r => r.Name == "backupxe.fleet.database.rpo").Value);
        Assert.Contains(("backupxe.fleet.database.out_of_target", "rpo", 1.0), recorded);
        Assert.Contains(("backupxe.fleet.database.out_of_target", "rto", 0.0), recorded);
    }

    /// <summary>
    /// One replica of an availability group whose Sales (group_database_id <paramref name="group"/>) has the backups
    /// <paramref name="backups"/> (type, hours before now, first and last LSN) in its msdb, with its own database_guid.
    /// </summary>
    private TdsScript Replica(string name, string group, params (string Type, double HoursAgo, long First, long Last)[] backups)
        => ScriptedMsdb.Replica(_time.GetUtcNow().UtcDateTime, name, group, backups);

    [Fact]
    public async Task Two_replicas_whose_backups_alternate_record_the_group_rpo_not_one_servers()
    {
        // Given: sql-a takes the full (6 h ago) and a log backup (2 h ago), sql-b the log backups between (4 h and 20 min
        // ago), one chain on their LSNs; alone, sql-a's newest restore point is 2 h old, past an RPO target of an hour
        const string Group = "5a1e5000-0000-4000-8000-0000000000a9";
        var import = new PeriodicHistoryImport(
            _history, new StoredBaselines(_captures, new BaselineComparisonSettings()), _metrics, _time, _loggers.CreateLogger<PeriodicHistoryImport>(),
            Options.Create(new BackupXeOptions { Targets = new TargetsOptions { RpoMinutes = 60 } }));
        using var measured = new RecordedMeasurements(_metrics.Meter, name => name.StartsWith("backupxe.fleet.", StringComparison.Ordinal));
        await using (var b = TdsServerDouble.Start(Replica("sql-b", Group, ("L", 4, 900, 2100), ("L", 1.0 / 3, 2200, 2300))))
        {
            await import.ImportOnceAsync("sql-b", new SqlConnectionFactory(TdsClient.Settings(b)), Hourly, CancellationToken.None);
        }

        measured.Clear();

        // When: sql-a's import
        await using var a = TdsServerDouble.Start(Replica("sql-a", Group, ("D", 6, 1000, 2000), ("L", 2, 2100, 2200)));
        await import.ImportOnceAsync("sql-a", new SqlConnectionFactory(TdsClient.Settings(a)), Hourly, CancellationToken.None);
        var recorded = measured.All.Select(m => (Name: m.Instrument, Instance: m.Tag("instance"), Target: m.Tag("target"), m.Value)).ToList();

        // Then: sql-a's gauges carry the group's RPO, sql-b's log of 20 minutes ago (+30 s): within the hour
        Assert.Contains(("backupxe.fleet.out_of_target", "sql-a", "rpo", 0.0), recorded);
        var worst = recorded.Single(r => r.Name == "backupxe.fleet.rpo.worst" && r.Instance == "sql-a").Value;
        Assert.InRange(worst, 20 * 60 - 30 - 1, 20 * 60 - 30 + 1);
    }

    [Fact]
    public async Task A_database_restored_over_itself_logs_no_gap_where_its_two_chains_cross()
    {
        // Given: Sales' full of 01:00 and three log backups, restored over itself at 05:00 WITH REPLACE from that full
        // (restorehistory joined to its backupset row), then two log backups continuing from the full's end over LSNs
        // the earlier ones used; matched by LSN alone the two chains interleave and the 07:00 one seems to break off
        var chainNight = DateTime.Today.AddDays(-2).AddHours(1);
        ScriptedBackupSet full = new("Sales", "D", false, "41000000016000037", "41000000017600001", "41000000000000001", "41000000016000037", "FULL", chainNight, chainNight.AddMinutes(10));
        var script = SixNightsServer()
            .On(ScriptedSqlServer.MsdbChainFragment, _ => ScriptedSqlServer.ChainResponse(
            [
                full,
                new("Sales", "L", false, "41000000008800001", "41000000018400001", "41000000016000037", "41000000018400001", "FULL", chainNight.AddHours(1), chainNight.AddHours(1).AddMinutes(1)),
                new("Sales", "L", false, "41000000018400001", "41000000020000001", "41000000016000037", "41000000020000001", "FULL", chainNight.AddHours(2), chainNight.AddHours(2).AddMinutes(1)),
                new("Sales", "L", false, "41000000020000001", "41000000021600001", "41000000016000037", "41000000021600001", "FULL", chainNight.AddHours(3), chainNight.AddHours(3).AddMinutes(1)),
                new("Sales", "L", false, "41000000017600001", "41000000019000001", "41000000016000037", "41000000019000001", "FULL", chainNight.AddHours(6), chainNight.AddHours(6).AddMinutes(1)),
                new("Sales", "L", false, "41000000019000001", "41000000019500001", "41000000016000037", "41000000019500001", "FULL", chainNight.AddHours(7), chainNight.AddHours(7).AddMinutes(1)),
            ]))
            .On("msdb.dbo.restorehistory", _ => ScriptedSqlServer.RestoresResponse([new ScriptedRestore("Sales", chainNight.AddHours(5), true, full)]));
        await using var server = TdsServerDouble.Start(script);
        using var stop = new CancellationTokenSource();
        var run = _import.RunAsync("prod", new SqlConnectionFactory(TdsClient.Settings(server)), Hourly, stop.Token);
        await _time.NextTimerAsync();

        // When: an import
        _time.Advance(TimeSpan.FromMinutes(60));
        await _time.NextTimerAsync();

        // Then: no gap (unaware of the restore, the 07:00 log backup, ending at ...19500001, would be followed by the 03:00 one,
        // starting at ...20000001: event 190)
        Assert.Single(_log.WithEventId(170));
        Assert.Empty(_log.WithEventId(190));
        Assert.Empty(_log.WithEventId(191));

        await stop.CancelAsync();
        await run;
    }

    [Fact]
    public async Task Each_databases_restore_estimate_is_logged_once_per_chain_base_and_the_longest_is_a_gauge()
    {
        // Given: msdb's chain for Sales (a 100 GiB full, then two 1 GiB log backups), its files (200 GiB data, 20 GiB log)
        // and IFI enabled, as the server's documented columns hold them
        var chainNight = DateTime.Today.AddDays(-2).AddHours(1);
        var sets = new List<ScriptedBackupSet>
        {
            new("Sales", "D", false, "41000000016000037", "41000000017600001", "41000000000000001", "41000000016000037", "FULL", chainNight, chainNight.AddSeconds(800), 100 * GiB),
            new("Sales", "L", false, "41000000008800001", "41000000018400001", "41000000016000037", "41000000018400001", "FULL", chainNight.AddHours(1), chainNight.AddHours(1).AddMinutes(1), GiB),
            new("Sales", "L", false, "41000000018400001", "41000000019200001", "41000000016000037", "41000000019200001", "FULL", chainNight.AddHours(2), chainNight.AddHours(2).AddMinutes(1), GiB),
        };
        var script = SixNightsServer()
            .On(ScriptedSqlServer.MsdbChainFragment, _ => { lock (sets) { return ScriptedSqlServer.ChainResponse([.. sets]); } })
            .On("msdb.dbo.restorehistory", _ => ScriptedSqlServer.RestoresResponse([]))
            .On("AS data_pages", _ => ScriptedSqlServer.FilesResponse([new("Sales", 200 * GiB / 8192, 20 * GiB / 8192)], 16))
            .On("instant_file_initialization_enabled", _ => ScriptedSqlServer.InstantFileInitializationResponse("Y"));
        using var measured = new RecordedMeasurements(_metrics.Meter, name => name == "backupxe.restore.estimate.longest");
        await using var server = TdsServerDouble.Start(script);
        using var stop = new CancellationTokenSource();
        var run = _import.RunAsync("prod", new SqlConnectionFactory(TdsClient.Settings(server)), Hourly, stop.Token);
        await _time.NextTimerAsync();

        // When: two imports, then a new full backup, then a third import
        _time.Advance(TimeSpan.FromMinutes(60));
        await _time.NextTimerAsync();
        _time.Advance(TimeSpan.FromMinutes(60));
        await _time.NextTimerAsync();
        lock (sets)
        {
            sets.Add(new("Sales", "D", false, "41000000020000037", "41000000020800001", "41000000016000037", "41000000020000037", "FULL", chainNight.AddHours(3), chainNight.AddHours(3).AddSeconds(800), 100 * GiB));
        }

        _time.Advance(TimeSpan.FromMinutes(60));
        await _time.NextTimerAsync();

        // Then: logged once for the first full (the second import changed nothing), once more for the new one
        Assert.Equal(3, _log.WithEventId(170).Count);
        Assert.Empty(_log.WithEventId(193));
        var estimates = _log.WithEventId(192);
        Assert.Equal(2, estimates.Count);
        var first = estimates[0];
        Assert.Equal(LogEventLevel.Information, first.Level);
        Assert.Equal("Sales", first.Scalar("Database"));
        Assert.Equal("prod", first.Scalar("Instance"));
        Assert.Equal(chainNight, first.Scalar("FullBackupStart"));
        Assert.Equal(2, first.Scalar("LogBackups"));
        var low = (double)first.Scalar("LowSeconds")!;
        var high = (double)first.Scalar("HighSeconds")!;
        Assert.InRange(low, 1, high);
        Assert.Contains(" to ", (string)first.Scalar("RestoreEstimate")!, StringComparison.Ordinal);
        Assert.Equal(chainNight.AddHours(3), estimates[1].Scalar("FullBackupStart"));
        Assert.Equal(0, estimates[1].Scalar("LogBackups"));
        var gauge = measured.All.Select(m => (Bound: m.Tag("bound"), Seconds: m.Value)).ToList();
        Assert.Equal(6, gauge.Count);
        Assert.Equal(("low", low), gauge[0]);
        Assert.Equal(("high", high), gauge[1]);

        await stop.CancelAsync();
        await run;
    }
}
