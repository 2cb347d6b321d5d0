using System.Text.Json;
using BackupXe.Core.Baselines;
using BackupXe.History;
using BackupXe.SqlServer.Client;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using BackupXe.Worker.Configuration;
using BackupXe.Worker.Imports;
using BackupXe.Worker.Telemetry;
using Microsoft.Data.Sqlite;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Serilog.Events;
using Serilog.Extensions.Logging;
using Xunit;

namespace BackupXe.Tests.Worker.Imports;

/// <summary>
/// The daemon's fleet work after each import, against the TDS double on a fake clock: the availability group replica
/// roles and backup preference it reads (the documented column types, ScriptedSqlServer.ReplicaRolesResponse) and keeps
/// for `fleet`, and each change of a database's compliance logged once (event 194). It says nothing about a real
/// server's answers beyond what Microsoft's pages document.
/// </summary>
public sealed class DaemonFleetTests : IDisposable
{
    private const string Group = "5a1e5000-0000-4000-8000-0000000000a9";
    private static readonly HistoryImportOptions Hourly = new() { IntervalMinutes = 60, LookbackDays = 30 };

    private readonly TempDirectory _directory = new();
    private readonly CollectingSink _log = new();
    private readonly SerilogLoggerFactory _loggers;
    private readonly BackupXeMetrics _metrics = new();
    private readonly FakeClock _time = new(new DateTimeOffset(2026, 11, 20, 6, 0, 0, TimeSpan.Zero));
    private readonly SqliteImportedHistory _history;
    private readonly PeriodicHistoryImport _import;

    public DaemonFleetTests()
    {
        Environment.SetEnvironmentVariable(TdsClient.PasswordVariable, TdsClient.Password);
        _loggers = new SerilogLoggerFactory(_log.CreateLogger(), dispose: true);
        _history = new SqliteImportedHistory(HistoryFile, _time);
        _import = new PeriodicHistoryImport(
            _history, new StoredBaselines(new SqliteHistoryStore(HistoryFile, _time), new BaselineComparisonSettings()), _metrics, _time,
            _loggers.CreateLogger<PeriodicHistoryImport>(),
            Options.Create(new BackupXeOptions { Targets = new TargetsOptions { RpoMinutes = 90 } }),
            new SqliteReplicaRoles(HistoryFile, _time),
            new SqliteMsdbRestores(HistoryFile, _time),
            new SqliteRestoreDrills(HistoryFile, _time));
    }

    private string HistoryFile => _directory.File("history.db");

    public void Dispose()
    {
        SqliteConnection.ClearAllPools();
        _loggers.Dispose();
        _metrics.Dispose();
        _directory.Dispose();
    }

    /// <summary>
    /// A server named <paramref name="name"/> whose Sales has <paramref name="backups"/> (type, hours before the clock's
    /// start, first and last LSN) in its msdb; in the availability group when <paramref name="role"/> is given.
    /// </summary>
    private TdsScript Server(string name, ScriptedReplicaRole? role, params (string Type, double HoursAgo, long First, long Last)[] backups)
        => ScriptedMsdb.Replica(_time.GetUtcNow().UtcDateTime, name, role is null ? null : Group, backups)
            .On(ScriptedSqlServer.HadrFactsFragment, ScriptedSqlServer.HadrFactsResponse(role is null ? 0 : 1, 1))
            .On(ScriptedSqlServer.ReplicaRolesFragment, role is null ? ScriptedSqlServer.ReplicaRolesResponse() : ScriptedSqlServer.ReplicaRolesResponse(role));

    private async Task ImportAsync(string instance, TdsScript script)
    {
        await using var server = TdsServerDouble.Start(script);
        await _import.ImportOnceAsync(instance, new SqlConnectionFactory(TdsClient.Settings(server)), Hourly, CancellationToken.None);
    }

    /// <summary>
    /// Group AG1 prefers backups on a secondary. sql-a, the primary (not preferred), takes the full 6 h ago and the newest
    /// log backup 20 minutes ago; sql-b, the secondary (preferred), the log backups between.
    /// </summary>
    private async Task ImportGroupAsync()
    {
        await ImportAsync("sql-b", Server("sql-b", new ScriptedReplicaRole("Sales", Group, "AG1", "SECONDARY", 50, "SECONDARY", Preferred: true),
            ("L", 4, 900, 2100), ("L", 3, 2100, 2200)));
        await ImportAsync("sql-a", Server("sql-a", new ScriptedReplicaRole("Sales", Group, "AG1", "SECONDARY", 50, "PRIMARY", Preferred: false),
            ("D", 6, 1000, 2000), ("L", 1.0 / 3, 2200, 2300)));
    }

    [Fact]
    public async Task A_backup_on_the_replica_that_is_not_preferred_is_noted_on_the_fleet_page()
    {
        await ImportGroupAsync();

        var json = await CliRun.RunAsync(_time, "fleet", "--history", HistoryFile, "--format", "json");
        var console = await CliRun.RunAsync(_time, "fleet", "--history", HistoryFile);

        Assert.True(json.ExitCode == 0, json.Error);
        using var page = JsonDocument.Parse(json.Output);
        var sales = Assert.Single(page.RootElement.GetProperty("databases").EnumerateArray());
        Assert.Equal("SECONDARY", sales.GetProperty("backupPreference").GetString());
        var roles = sales.GetProperty("replicaRoles").EnumerateArray().ToList();
        Assert.Equal(["sql-a:PRIMARY:False", "sql-b:SECONDARY:True"],
            roles.Select(r => $"{r.GetProperty("instance").GetString()}:{r.GetProperty("role").GetString()}:{r.GetProperty("preferred").GetBoolean()}"));
        Assert.All(roles, r => Assert.Equal(50, r.GetProperty("backupPriority").GetInt32()));
        var notes = sales.GetProperty("offPreference").EnumerateArray().Select(n => n.GetString()!).ToList();
        // Both the full and the newest log backup ran on sql-a, the primary, which the group's preference does not name
        Assert.Equal(2, notes.Count);
        Assert.StartsWith("the last full backup (finished 2026-11-20 00:00) was taken on sql-a, not the preferred backup replica", notes[0], StringComparison.Ordinal);
        Assert.StartsWith("the last log backup (finished 2026-11-20 05:40) was taken on sql-a", notes[1], StringComparison.Ordinal);
        Assert.EndsWith("(role PRIMARY, group AG1 prefers SECONDARY, backup priority 50); preferred: sql-b", notes[1], StringComparison.Ordinal);
        Assert.Contains("  where  the last log backup (finished 2026-11-20 05:40) was taken on sql-a", console.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Backups_on_the_preferred_replica_carry_no_note()
    {
        // sql-b is now the one preferred for both: what it took is as the group wishes
        await ImportAsync("sql-b", Server("sql-b", new ScriptedReplicaRole("Sales", Group, "AG1", "PRIMARY", 50, "PRIMARY", Preferred: true),
            ("D", 6, 1000, 2000), ("L", 1.0 / 3, 2000, 2100)));

        var json = await CliRun.RunAsync(_time, "fleet", "--history", HistoryFile, "--format", "json");

        using var page = JsonDocument.Parse(json.Output);
        var sales = Assert.Single(page.RootElement.GetProperty("databases").EnumerateArray());
        Assert.Equal("PRIMARY", sales.GetProperty("backupPreference").GetString());
        Assert.Empty(sales.GetProperty("offPreference").EnumerateArray());
    }

    [Fact]
    public async Task A_login_without_view_server_state_gets_one_warning_and_no_roles()
    {
        var script = Server("sql-a", new ScriptedReplicaRole("Sales", Group, "AG1", "SECONDARY", 50, "PRIMARY", Preferred: false), ("D", 6, 1000, 2000))
            .On(ScriptedSqlServer.HadrFactsFragment, ScriptedSqlServer.HadrFactsResponse(1, 0))
            // Asked without the permission, a real server would refuse; the double fails the test instead.
            .On(ScriptedSqlServer.ReplicaRolesFragment, _ => throw new InvalidOperationException("the roles were queried without the permission"));

        await ImportAsync("sql-a", script);
        await ImportAsync("sql-a", script);

        var warning = Assert.Single(_log.WithEventId(195));
        Assert.Equal(LogEventLevel.Warning, warning.Level);
        Assert.Contains("needs VIEW SERVER STATE (VIEW SERVER PERFORMANCE STATE from SQL Server 2022)", (string)warning.Scalar("Note")!, StringComparison.Ordinal);
        Assert.Empty(await new SqliteReplicaRoles(HistoryFile, _time).ReadAsync(CancellationToken.None));
    }

    [Fact]
    public async Task A_login_without_view_any_definition_gets_one_warning_instead_of_an_empty_answer_read_as_no_group()
    {
        var script = Server("sql-a", new ScriptedReplicaRole("Sales", Group, "AG1", "SECONDARY", 50, "PRIMARY", Preferred: false), ("D", 6, 1000, 2000))
            .On(ScriptedSqlServer.HadrFactsFragment, ScriptedSqlServer.HadrFactsResponse(1, 1, viewAnyDefinition: 0))
            // Without the permission the catalog views hide the group's rows; the double fails the test if they are read.
            .On(ScriptedSqlServer.ReplicaRolesFragment, _ => throw new InvalidOperationException("the roles were queried without VIEW ANY DEFINITION"));

        await ImportAsync("sql-a", script);

        var warning = Assert.Single(_log.WithEventId(195));
        Assert.Contains("need VIEW ANY DEFINITION", (string)warning.Scalar("Note")!, StringComparison.Ordinal);
        Assert.Empty(await new SqliteReplicaRoles(HistoryFile, _time).ReadAsync(CancellationToken.None));
    }

    [Fact]
    public async Task A_server_without_hadr_is_not_asked_for_roles_and_says_nothing()
    {
        var script = Server("sql-d", role: null, ("D", 6, 1000, 2000))
            .On(ScriptedSqlServer.ReplicaRolesFragment, _ => throw new InvalidOperationException("the roles were queried with HADR off"));

        await ImportAsync("sql-d", script);

        Assert.Empty(_log.WithEventId(195));
        Assert.Empty(await new SqliteReplicaRoles(HistoryFile, _time).ReadAsync(CancellationToken.None));
    }

    [Fact]
    public async Task A_database_passing_its_rpo_target_is_one_event_and_an_unchanged_state_none()
    {
        // Given: Sales' full 2 h ago and its last log backup 20 minutes ago, an RPO target of 90 minutes, hourly imports
        var script = Server("prod", role: null, ("D", 2, 1000, 2000), ("L", 1.0 / 3, 2000, 2100));
        await using var server = TdsServerDouble.Start(script);
        using var stop = new CancellationTokenSource();
        var run = _import.RunAsync("prod", new SqlConnectionFactory(TdsClient.Settings(server)), Hourly, stop.Token);
        await _time.NextTimerAsync();

        // When: three imports, at 1 h 20 min (within), 2 h 20 min and 3 h 20 min (outside) after the log backup
        for (var i = 0; i < 3; i++)
        {
            _time.Advance(TimeSpan.FromMinutes(60));
            await _time.NextTimerAsync();
        }

        // Then: one event, at the second import, for the RPO only, with its evidence; the never-restored state was said
        // at the first, being out of order when first seen, and not again
        Assert.Equal(3, _log.WithEventId(170).Count);
        var events = _log.WithEventId(194);
        var rpo = Assert.Single(events, e => (string)e.Scalar("Aspect")! == "rpo");
        Assert.Equal(LogEventLevel.Warning, rpo.Level);
        Assert.Equal("within", rpo.Scalar("From"));
        Assert.Equal("outside", rpo.Scalar("To"));
        Assert.Equal(" since 2026-11-20 07:10", rpo.Scalar("SinceText"));
        Assert.Contains("the log backup that finished 2026-11-20 05:40 is the newest restore point", (string)rpo.Scalar("Evidence")!, StringComparison.Ordinal);
        var restored = Assert.Single(events, e => (string)e.Scalar("Aspect")! == "restored");
        Assert.Equal("none", restored.Scalar("From"));
        Assert.Equal("never-restored", restored.Scalar("To"));
        Assert.True(events.ToList().IndexOf(restored) < events.ToList().IndexOf(rpo));

        await stop.CancelAsync();
        await run;
    }

    [Fact]
    public async Task A_restore_msdbs_restorehistory_holds_is_kept_and_the_database_is_not_said_never_restored()
    {
        // Given Sales's full backup 6 h ago, restored (by hand, no capture) 1 h ago, as restorehistory records it
        var now = DateTime.SpecifyKind(_time.GetUtcNow().UtcDateTime, DateTimeKind.Unspecified);
        ScriptedBackupSet full = new("Sales", "D", false, "1000", "2000", null, "1000", "FULL", now.AddHours(-6), now.AddHours(-6).AddSeconds(30));
        var script = Server("sql-a", null, ("D", 6, 1000, 2000))
            .On("msdb.dbo.restorehistory", _ => ScriptedSqlServer.RestoresResponse([new ScriptedRestore("Sales", now.AddHours(-1), true, full)]));

        // When
        await ImportAsync("sql-a", script);

        // Then the restore is kept, and the first judgement finds Sales restored: no "never-restored" event
        var kept = Assert.Single(await new SqliteMsdbRestores(HistoryFile, _time).ReadAsync(CancellationToken.None));
        Assert.Equal(("sql-a", "Sales", now.AddHours(-1)), (kept.Instance, kept.Restore.Database, kept.Restore.RestoredAt));
        Assert.DoesNotContain(_log.WithEventId(194), e => (string)e.Scalar("Aspect")! == "restored");
        Assert.Empty(_log.WithEventId(209));
    }

    [Fact]
    public async Task A_login_that_cannot_read_restorehistory_is_one_warning_however_often_it_imports()
    {
        var script = Server("sql-a", null, ("D", 6, 1000, 2000))
            .On("msdb.dbo.restorehistory", _ => new TdsResponse().Error(229, 14, "The SELECT permission was denied on the object 'restorehistory', database 'msdb', schema 'dbo'."));

        await ImportAsync("sql-a", script);
        await ImportAsync("sql-a", script);

        var warning = Assert.Single(_log.WithEventId(209));
        Assert.Contains("msdb.dbo.restorehistory not read (The SELECT permission was denied", (string)warning.Scalar("Note")!, StringComparison.Ordinal);
        Assert.Empty(await new SqliteMsdbRestores(HistoryFile, _time).ReadAsync(CancellationToken.None));
    }
}
