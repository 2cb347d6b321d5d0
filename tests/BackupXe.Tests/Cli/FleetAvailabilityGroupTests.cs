using System.Text.Json;
using BackupXe.Cli;
using BackupXe.History;
using BackupXe.Sources;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Msdb;
using BackupXe.Tests.SqlServer.Msdb;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using Microsoft.Data.Sqlite;
using Xunit;

namespace BackupXe.Tests.Cli;

/// <summary>
/// An availability group database through the real driver: each replica's msdb and sys.databases served by its own TDS
/// double (the documented columns: group_database_id the same on every replica, database_guid each replica's own, fulls
/// COPY_ONLY on a secondary), each imported as `history import --server` and the daemon import it (ServerHistoryReader
/// into the SQLite history), then judged by `backupxe fleet` and `history chain` from the file alone.
/// </summary>
public sealed class FleetAvailabilityGroupTests : IAsyncLifetime
{
    private const long GiB = 1L << 30;
    private const string Group = "5a1e5000-0000-4000-8000-0000000000a9";
    private const string Family = "f0f0f0f0-1111-4222-8333-444455556666";
    private static readonly DateTime Night = new(2026, 11, 20, 0, 0, 0);

    // 05:30 UTC; the servers' time_zone is 0, so their local time is UTC.
    private static readonly FakeClock Clock = new(new DateTimeOffset(2026, 11, 20, 5, 30, 0, TimeSpan.Zero));

    private readonly string _folder = Directory.CreateTempSubdirectory("backupxe-fleet-ag-").FullName;

    public FleetAvailabilityGroupTests() => Environment.SetEnvironmentVariable(TdsClient.PasswordVariable, TdsClient.Password);

    private string ImportFile => Path.Combine(_folder, "history.db");

    public ValueTask InitializeAsync() => ValueTask.CompletedTask;

    public ValueTask DisposeAsync()
    {
        SqliteConnection.ClearAllPools();
        Directory.Delete(_folder, recursive: true);
        return ValueTask.CompletedTask;
    }

    /// <summary>One msdb row (one media family) with its LSNs, recovery model and family_guid.</summary>
    private static object?[] Row(int id, string database, string databaseGuid, string type, bool copyOnly, DateTime start, int seconds, long size, long first, long last, long checkpoint, string path) =>
    [
        id, database, databaseGuid, type, copyOnly, false, true, start, start.AddSeconds(seconds), size, size, "NO_Encryption", null, 0, path, 2, 0, null, 16, 0, 4135,
        first.ToString(System.Globalization.CultureInfo.InvariantCulture), last.ToString(System.Globalization.CultureInfo.InvariantCulture),
        "1500", checkpoint.ToString(System.Globalization.CultureInfo.InvariantCulture), "FULL", Family,
    ];

    /// <summary>A replica (or a standalone instance): its name, its databases' GUIDs (database_id 5 Sales, 6 Sales_copy), its group databases and its msdb.</summary>
    private static TdsScript Replica(string name, string salesGuid, TdsResultSet msdb, bool inGroup, string? copyGuid = null)
    {
        var databases = copyGuid is null
            ? ServerHistoryReaderTests.Databases((1, "master", false), (4, "msdb", false), (5, "Sales", false))
            : ServerHistoryReaderTests.Databases((1, "master", false), (4, "msdb", false), (5, "Sales", false), (6, "Sales_copy", false));
        return ServerHistoryReaderTests.Server(ServerHistoryReaderTests.Columns2022(), msdb, commandLog: null, databases)
            .On("SERVERPROPERTY('ServerName')", TdsResponse.Of(new TdsResultSet(TdsColumn.NVarChar("server_name", 128)).Row(name)))
            .On("FROM sys.database_recovery_status AS drs", r => TdsResponse.Of(new TdsResultSet(TdsColumn.NVarChar("database_guid", 36))
                .Row(Convert.ToInt32(r.Parameters["@database_id"], System.Globalization.CultureInfo.InvariantCulture) switch
                {
                    5 => salesGuid,
                    6 => copyGuid,
                    var id => $"00000000-0000-0000-0000-{id:D12}",
                })))
            .On(ScriptedSqlServer.GroupDatabasesFragment, inGroup ? ScriptedSqlServer.GroupDatabasesResponse(("Sales", Group)) : ScriptedSqlServer.GroupDatabasesResponse());
    }

    private static TdsResultSet Msdb(params object?[][] rows) => rows.Aggregate(ServerHistoryReaderTests.MsdbRowsWithLsns(), (set, row) => set.Row(row));

    /// <summary>What each import said, by server.</summary>
    private readonly Dictionary<string, IReadOnlyList<string>> _notes = [];

    private async Task ImportAsync(TdsScript script)
    {
        await using var server = TdsServerDouble.Start(script);
        var history = new SqliteImportedHistory(ImportFile, Clock);
        await history.InitializeAsync(CancellationToken.None);
        var read = await new ServerHistoryReader(new SqlConnectionFactory(TdsClient.Settings(server)))
            .ReadAsync(new ServerHistoryRequest(Night.AddDays(-7), [], null), (name, operations) => history.ImportAsync(name, operations, CancellationToken.None), CancellationToken.None);
        _notes[read.ServerName] = read.Notes;
    }

    /// <summary>
    /// sql-a (primary) takes the full at 00:00; sql-b (secondary) the log backups every 15 minutes to 05:15, which continue
    /// the full's chain on their LSNs; sql-c (secondary) a COPY_ONLY full at 03:00, all it may take there. sql-a also holds
    /// Sales_copy, restored from Sales under another name (same family_guid, its own database_guid, in no group). sql-d
    /// is a standalone instance with a database named Sales whose last backup is two days old.
    /// </summary>
    private async Task ImportFleetAsync()
    {
        await ImportAsync(Replica("sql-a", "aaaaaaaa-0000-4000-8000-000000000001", Msdb(
            Row(1, "Sales", "aaaaaaaa-0000-4000-8000-000000000001", "D", false, Night, 600, 40 * GiB, 1000, 2000, 1500, @"X:\b\Sales_full.bak"),
            Row(2, "Sales_copy", "cccccccc-0000-4000-8000-000000000006", "D", false, Night.AddDays(-3), 600, 40 * GiB, 500, 600, 550, @"X:\b\Sales_copy.bak")),
            inGroup: true, copyGuid: "cccccccc-0000-4000-8000-000000000006"));
        var logs = Enumerable.Range(1, 21)
            .Select(i => Row(100 + i, "Sales", "bbbbbbbb-0000-4000-8000-000000000001", "L", false, Night.AddMinutes(15 * i), 20, GiB / 8,
                i == 1 ? 900 : 2000 + (i - 1) * 100, 2000 + i * 100, 2000 + i * 100, $@"Y:\b\Sales_{i}.trn"))
            .ToArray();
        await ImportAsync(Replica("sql-b", "bbbbbbbb-0000-4000-8000-000000000001", Msdb(logs), inGroup: true));
        await ImportAsync(Replica("sql-c", "cccccccc-0000-4000-8000-000000000001", Msdb(
            Row(1, "Sales", "cccccccc-0000-4000-8000-000000000001", "D", true, Night.AddHours(3), 600, 40 * GiB, 3100, 3300, 3200, @"Z:\b\Sales_copy_only.bak")),
            inGroup: true));
        await ImportAsync(Replica("sql-d", "dddddddd-0000-4000-8000-000000000001", Msdb(
            Row(1, "Sales", "dddddddd-0000-4000-8000-000000000001", "D", false, Night.AddDays(-2), 600, 10 * GiB, 70000, 71000, 70500, @"D:\b\Sales.bak")),
            inGroup: false));
    }

    private async Task<CliRun> RunAsync(params string[] args)
    {
        var output = new StringWriter();
        var error = new StringWriter();
        var exit = await Program.RunAsync(args, CliRun.Captured(output, error) with { Time = Clock });
        return new CliRun(exit, output.ToString(), error.ToString());
    }

    private async Task<string> SettingsAsync()
    {
        var path = Path.Combine(_folder, "appsettings.json");
        await File.WriteAllTextAsync(path, """{ "BackupXe": { "Targets": { "RpoMinutes": 60 } } }""");
        return path;
    }

    [Fact]
    public async Task A_three_replica_group_with_fulls_on_the_primary_and_logs_on_a_secondary_is_one_database_in_target()
    {
        await ImportFleetAsync();

        var run = await RunAsync("fleet", "--history", ImportFile, "--settings", await SettingsAsync(), "--format", "json");

        Assert.True(run.ExitCode == 0, run.Error);
        using var page = JsonDocument.Parse(run.Output);
        var databases = page.RootElement.GetProperty("databases").EnumerateArray().ToList();
        var group = Assert.Single(databases, d => d.GetProperty("groupDatabaseId").GetString() == Group);
        Assert.Equal("Sales", group.GetProperty("database").GetString());
        Assert.Equal(["sql-a", "sql-b", "sql-c"], group.GetProperty("replicas").EnumerateArray().Select(r => r.GetString()));
        // The newest backup on any replica: sql-b's log of 05:15 (+20 s), 14 min 40 s before 05:30, within the hour.
        Assert.Equal("within", group.GetProperty("rpo").GetProperty("state").GetString());
        Assert.Equal(880, group.GetProperty("rpo").GetProperty("seconds").GetDouble());
        Assert.Equal("sql-b", group.GetProperty("lastLogOn").GetString());
        Assert.Equal("sql-c", group.GetProperty("lastFullOn").GetString());
        Assert.Equal("FULL", group.GetProperty("recoveryModel").GetString());
        // The logs taken on sql-b continue the full taken on sql-a: one chain across the replicas, on their LSNs.
        Assert.True(group.GetProperty("chain").GetProperty("state").GetString() == "whole", group.GetProperty("chain").GetProperty("evidence").GetString());
        // Each replica's import said which of its databases are in a group; the standalone instance's said none
        Assert.Contains(_notes["sql-b"], n => n.StartsWith("1 database(s) in an availability group ([Sales])", StringComparison.Ordinal));
        Assert.DoesNotContain(_notes["sql-d"], n => n.Contains("availability group", StringComparison.Ordinal));
    }

    [Fact]
    public async Task The_same_name_on_a_standalone_instance_and_a_copy_with_the_same_family_guid_stay_separate()
    {
        await ImportFleetAsync();

        var run = await RunAsync("fleet", "--history", ImportFile, "--settings", await SettingsAsync(), "--format", "json");

        Assert.True(run.ExitCode == 0, run.Error);
        using var page = JsonDocument.Parse(run.Output);
        var databases = page.RootElement.GetProperty("databases").EnumerateArray().ToList();
        Assert.Equal(3, databases.Count);
        var standalone = Assert.Single(databases, d => d.GetProperty("instance").GetString() == "sql-d");
        Assert.Equal("Sales", standalone.GetProperty("database").GetString());
        Assert.Equal(JsonValueKind.Null, standalone.GetProperty("groupDatabaseId").ValueKind);
        Assert.Equal("outside", standalone.GetProperty("rpo").GetProperty("state").GetString());
        var copy = Assert.Single(databases, d => d.GetProperty("database").GetString() == "Sales_copy");
        Assert.Equal(["sql-a"], copy.GetProperty("replicas").EnumerateArray().Select(r => r.GetString()));
        Assert.Equal(JsonValueKind.Null, copy.GetProperty("groupDatabaseId").ValueKind);
    }

    [Fact]
    public async Task The_console_page_says_which_replica_took_each_backup()
    {
        await ImportFleetAsync();

        var run = await RunAsync("fleet", "--history", ImportFile, "--settings", await SettingsAsync());

        Assert.True(run.ExitCode == 0, run.Error);
        var line = Assert.Single(run.Output.Split('\n'), l => l.StartsWith("sql-a, sql-b, sql-c", StringComparison.Ordinal));
        Assert.Contains("2026-11-20 03:10 @sql-c", line, StringComparison.Ordinal);
        Assert.Contains("2026-11-20 05:15 @sql-b", line, StringComparison.Ordinal);
    }

    [Fact]
    public async Task History_chain_without_a_server_reads_the_group_chain_from_the_file()
    {
        await ImportFleetAsync();

        var run = await RunAsync("history", "chain", "--history", ImportFile, "--instance", "sql-b", "--since", "2026-11-01", "--format", "json");

        Assert.True(run.ExitCode == 0, run.Error);
        using var report = JsonDocument.Parse(run.Output);
        var chain = Assert.Single(report.RootElement.GetProperty("restoreChains").EnumerateArray());
        Assert.Equal("Sales", chain.GetProperty("database").GetString());
        Assert.True(chain.GetProperty("whole").GetBoolean(), run.Output);
        Assert.Contains(chain.GetProperty("notes").EnumerateArray(), n => n.GetString()!.Contains("sql-a, sql-b, sql-c", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Restore_estimate_without_a_server_plans_the_group_chain_from_the_file_and_says_what_it_lacks()
    {
        await ImportFleetAsync();

        var run = await RunAsync("history", "restore-estimate", "--history", ImportFile, "--instance", "sql-a", "--since", "2026-11-01", "--format", "json");

        Assert.True(run.ExitCode == 0, run.Error);
        using var report = JsonDocument.Parse(run.Output);
        var estimates = report.RootElement.GetProperty("restoreEstimates").EnumerateArray().ToList();
        var sales = Assert.Single(estimates, e => e.GetProperty("database").GetString() == "Sales");
        // The plan: sql-a's full (not the COPY_ONLY one of sql-c) and the 21 log backups sql-b took after it
        Assert.Equal(21, sales.GetProperty("chain").GetProperty("logs").GetArrayLength());
        Assert.Contains(sales.GetProperty("notes").EnumerateArray(), n => n.GetString()!.StartsWith("from the history alone", StringComparison.Ordinal));
    }

    [Fact]
    public async Task History_chain_without_a_server_on_a_history_of_several_instances_asks_for_one()
    {
        await ImportFleetAsync();

        var run = await RunAsync("history", "chain", "--history", ImportFile);

        Assert.Equal(1, run.ExitCode);
        Assert.Contains("holds 4 instances (sql-a, sql-b, sql-c, sql-d): name one with --instance", run.Error, StringComparison.Ordinal);
    }
}
