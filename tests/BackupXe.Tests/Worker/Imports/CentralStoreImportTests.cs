using BackupXe.Core.Baselines;
using BackupXe.Core.Rendering;
using BackupXe.History;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using BackupXe.Worker.Configuration;
using BackupXe.Worker.Imports;
using BackupXe.Worker.Telemetry;
using Microsoft.Data.Sqlite;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using Xunit;

namespace BackupXe.Tests.Worker.Imports;

/// <summary>
/// The daemon's periodic msdb import into the central store (History:Provider sqlserver; docs/fleet.md), through the real
/// driver: msdb is one TDS double per replica, the store another, serving the import statements' documented semantics
/// (ScriptedHistoryTables). The same msdb rows imported into the SQLite history and into the store read back the same:
/// the two histories merge with one HistoryMerge. It says nothing of a real server's locking.
/// </summary>
public sealed class CentralStoreImportTests : IAsyncDisposable
{
    private const string Group = "5a1e5000-0000-4000-8000-0000000000a9";
    private static readonly HistoryImportOptions Hourly = new() { IntervalMinutes = 60, LookbackDays = 30 };

    private readonly TempDirectory _directory = new();
    private readonly FakeClock _time = new(new DateTimeOffset(2026, 11, 20, 6, 0, 0, TimeSpan.Zero));
    private readonly BackupXeMetrics _sqliteMetrics = new();
    private readonly BackupXeMetrics _centralMetrics = new();
    private readonly ScriptedHistoryTables _tables = new();
    private readonly TdsServerDouble _store;

    public CentralStoreImportTests()
    {
        Environment.SetEnvironmentVariable(TdsClient.PasswordVariable, TdsClient.Password);
        _store = TdsServerDouble.Start(_tables.Serve(new TdsScript()));
    }

    private string HistoryFile => _directory.File("history.db");

    public async ValueTask DisposeAsync()
    {
        // Awaited, not waited on: a test thread blocked on the double's shutdown could hold the slot its loops need.
        await _store.DisposeAsync();
        SqliteConnection.ClearAllPools();
        _sqliteMetrics.Dispose();
        _centralMetrics.Dispose();
        _directory.Dispose();
    }

    private SqlConnectionFactory Store => new(TdsClient.Settings(_store));

    private static TransientRetry NoWait => new(backoff: new LiveSourceOptions { InitialReconnectDelay = TimeSpan.Zero });

    private PeriodicHistoryImport Sqlite() => new(
        new SqliteImportedHistory(HistoryFile, _time), new StoredBaselines(new SqliteHistoryStore(HistoryFile, _time), new BaselineComparisonSettings()),
        _sqliteMetrics, _time, NullLogger<PeriodicHistoryImport>.Instance, Targets, new SqliteReplicaRoles(HistoryFile, _time), new SqliteMsdbRestores(HistoryFile, _time));

    private PeriodicHistoryImport Central() => new(
        new SqlServerImportedHistory(Store, NoWait), new StoredBaselines(new SqlServerHistoryStore(Store, NoWait), new BaselineComparisonSettings()),
        _centralMetrics, _time, NullLogger<PeriodicHistoryImport>.Instance, Targets, new SqlServerReplicaRoles(Store, NoWait), new SqlServerMsdbRestores(Store, NoWait));

    private static IOptions<BackupXeOptions> Targets => Options.Create(new BackupXeOptions { Targets = new TargetsOptions { RpoMinutes = 90 } });

    /// <summary>
    /// Group AG1's Sales: sql-b (secondary, preferred) took two log backups, sql-a (primary) the full and the newest log
    /// backup; sql-a's restorehistory holds a restore of Sales an hour ago.
    /// </summary>
    private TdsScript[] Replicas()
    {
        var now = DateTime.SpecifyKind(_time.GetUtcNow().UtcDateTime, DateTimeKind.Unspecified);
        ScriptedBackupSet full = new("Sales", "D", false, "1000", "2000", null, "1000", "FULL", now.AddHours(-6), now.AddHours(-6).AddSeconds(30));
        return
        [
            Replica("sql-b", new ScriptedReplicaRole("Sales", Group, "AG1", "SECONDARY", 50, "SECONDARY", Preferred: true), ("L", 4, 900, 2100), ("L", 3, 2100, 2200)),
            Replica("sql-a", new ScriptedReplicaRole("Sales", Group, "AG1", "SECONDARY", 50, "PRIMARY", Preferred: false), ("D", 6, 1000, 2000), ("L", 1.0 / 3, 2200, 2300))
                .On("msdb.dbo.restorehistory", _ => ScriptedSqlServer.RestoresResponse([new ScriptedRestore("Sales", now.AddHours(-1), true, full)])),
        ];
    }

    private TdsScript Replica(string name, ScriptedReplicaRole role, params (string Type, double HoursAgo, long First, long Last)[] backups)
        => ScriptedMsdb.Replica(_time.GetUtcNow().UtcDateTime, name, Group, backups)
            .On(ScriptedSqlServer.HadrFactsFragment, ScriptedSqlServer.HadrFactsResponse(1, 1))
            .On(ScriptedSqlServer.ReplicaRolesFragment, ScriptedSqlServer.ReplicaRolesResponse(role));

    /// <summary>`backupxe fleet` judging at the fake clock's now, so two runs judge at one moment.</summary>
    private async Task<CliRun> FleetAsync(params string[] args)
    {
        var (output, error) = (new StringWriter(), new StringWriter());
        var captured = CliRun.Captured(output, error);
        var console = new BackupXe.Cli.CliConsole
        {
            Out = output, Error = error, OpenStandardOutput = captured.OpenStandardOutput, IsOutputRedirected = true, IsErrorRedirected = true,
            Columns = captured.Columns, WindowWidth = captured.WindowWidth, Time = _time,
        };
        var exit = await BackupXe.Cli.Program.RunAsync(["fleet", .. args], console, _time);
        return new CliRun(exit, output.ToString(), error.ToString());
    }

    private static async Task<HistoryImportResult> ImportAsync(PeriodicHistoryImport import, string instance, TdsScript script)
    {
        await using var server = TdsServerDouble.Start(script);
        return await import.ImportOnceAsync(instance, new SqlConnectionFactory(TdsClient.Settings(server)), Hourly, CancellationToken.None);
    }

    [Fact]
    public async Task The_same_msdb_rows_imported_into_the_central_store_read_back_as_from_the_sqlite_history()
    {
        // Given the two replicas' msdb, imported by a daemon of each provider
        var (sqlite, central) = (Sqlite(), Central());
        var replicas = Replicas();
        foreach (var (instance, script) in new[] { ("sql-b", replicas[0]), ("sql-a", replicas[1]) })
        {
            await ImportAsync(sqlite, instance, script);
            await ImportAsync(central, instance, script);
        }

        // Then the operations, the replica roles and msdb's restores are the same in both
        var fromFile = await new SqliteImportedHistory(HistoryFile, _time).ReadAsync(null, null, CancellationToken.None);
        var fromStore = await new SqlServerImportedHistory(Store, NoWait).ReadAsync(null, null, CancellationToken.None);
        Assert.Equal(4, fromFile.Count);
        Assert.Equal(
            fromFile.Select(r => r.Instance + " " + ReportJson.Serialize(r.Record)),
            fromStore.Select(r => r.Instance + " " + ReportJson.Serialize(r.Record)));
        Assert.All(fromStore, r => Assert.Equal(Guid.Parse(Group), r.Record.Identity?.GroupDatabaseId));
        Assert.All(fromStore, r => Assert.NotNull(r.Record.Lsns));

        var rolesInFile = await new SqliteReplicaRoles(HistoryFile, _time).ReadAsync(CancellationToken.None);
        var rolesInStore = await new SqlServerReplicaRoles(Store, NoWait).ReadAsync(CancellationToken.None);
        Assert.Equal(2, rolesInFile.Count);
        Assert.Equal(rolesInFile, rolesInStore);

        var restoresInFile = await new SqliteMsdbRestores(HistoryFile, _time).ReadAsync(CancellationToken.None);
        var restoresInStore = await new SqlServerMsdbRestores(Store, NoWait).ReadAsync(CancellationToken.None);
        Assert.Single(restoresInFile);
        Assert.Equal(restoresInFile, restoresInStore);
    }

    [Fact]
    public async Task The_fleet_page_read_from_the_central_store_is_the_page_read_from_the_sqlite_history_for_the_same_msdb_rows()
    {
        // Given the two replicas' msdb, imported by a daemon of each provider
        var (sqlite, central) = (Sqlite(), Central());
        var replicas = Replicas();
        foreach (var (instance, script) in new[] { ("sql-b", replicas[0]), ("sql-a", replicas[1]) })
        {
            await ImportAsync(sqlite, instance, script);
            await ImportAsync(central, instance, script);
        }

        // When fleet reads each
        var fromFile = await FleetAsync("--history", HistoryFile, "--format", "json");
        var fromStore = await FleetAsync([.. TdsClient.CliArguments(_store), "--connect-database", "BackupXeHistory", "--format", "json"]);

        // Then the pages are the same, and they judge the group database with both replicas' backups, roles and restore
        Assert.True(fromFile.ExitCode == 0, fromFile.Error);
        Assert.True(fromStore.ExitCode == 0, fromStore.Error);
        Assert.Equal(fromFile.Output, fromStore.Output);
        Assert.Contains("\"offPreference\"", fromStore.Output, StringComparison.Ordinal);
        Assert.Contains("sql-a", fromStore.Output, StringComparison.Ordinal);
        Assert.Contains("sql-b", fromStore.Output, StringComparison.Ordinal);
        Assert.Contains("restorehistory", fromStore.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Fleet_reads_one_history_the_file_or_the_store_never_both()
    {
        var run = await CliRun.RunAsync(_time, ["fleet", "--history", HistoryFile, .. TdsClient.CliArguments(_store)]);

        Assert.Equal(1, run.ExitCode);
        Assert.Equal("backupxe: fleet reads one history: --history (a SQLite file) or --server (the central store), not both.", run.Error.Trim());
        Assert.Equal(0, _tables.OperationCount);
    }

    [Fact]
    public async Task Fleet_on_a_store_whose_script_predates_migration_6_is_one_line_naming_the_script_and_no_secret()
    {
        await using var old = TdsServerDouble.Start(new TdsScript()
            .On("COL_LENGTH(N'dbo.operations', N'group_database_id')", TdsResponse.Of(new TdsResultSet(TdsColumn.Int("ready")).Row(6))));

        var run = await FleetAsync([.. TdsClient.CliArguments(old), "--connect-database", "BackupXeHistory"]);

        Assert.Equal(1, run.ExitCode);
        // The double is reached without TLS, which the CLI warns of first; then the one line
        var lines = run.Error.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(2, lines.Length);
        Assert.StartsWith("backupxe: warning: encryption is off", lines[0], StringComparison.Ordinal);
        var line = lines[1];
        Assert.StartsWith($"backupxe: {old.Server}: The central history repository predates its script's migration 6: run sessions/backupxe-history-sqlserver.sql", line, StringComparison.Ordinal);
        Assert.DoesNotContain(TdsClient.Password, run.Error, StringComparison.Ordinal);
        Assert.Equal(string.Empty, run.Output);
    }

    [Fact]
    public async Task Importing_the_same_msdb_rows_again_adds_nothing_to_the_central_store()
    {
        var central = Central();
        var replica = Replicas()[1];

        var first = await ImportAsync(central, "sql-a", replica);
        var again = await ImportAsync(central, "sql-a", replica);

        Assert.Equal(new HistoryImportResult(2, 0, 0), first);
        Assert.Equal(new HistoryImportResult(0, 0, 2), again);
        Assert.Equal(2, _tables.OperationCount);
        Assert.Single(await new SqlServerMsdbRestores(Store, NoWait).ReadAsync(CancellationToken.None));
    }

    [Fact]
    public async Task A_store_whose_script_predates_migration_6_stops_the_import_naming_the_script()
    {
        await using var old = TdsServerDouble.Start(new TdsScript()
            .On("COL_LENGTH(N'dbo.operations', N'group_database_id')", TdsResponse.Of(new TdsResultSet(TdsColumn.Int("ready")).Row(6))));

        var failure = await Assert.ThrowsAsync<HistoryStoreException>(
            () => new SqlServerImportedHistory(new SqlConnectionFactory(TdsClient.Settings(old)), NoWait).InitializeAsync(CancellationToken.None));

        Assert.Contains("predates its script's migration 6", failure.Message, StringComparison.Ordinal);
        Assert.Contains("sessions/backupxe-history-sqlserver.sql", failure.Message, StringComparison.Ordinal);
    }
}
