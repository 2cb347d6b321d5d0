using BackupXe.History;
using BackupXe.Tests.SqlServer.Msdb;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using Microsoft.Data.Sqlite;
using Xunit;

namespace BackupXe.Tests.Cli.Commands;

public sealed class HistoryImportCommandTests : IDisposable
{
    private readonly string _folder = Directory.CreateTempSubdirectory("backupxe-history-import-").FullName;

    // The double's login password, set here and not left to whichever test class happened to run first.
    public HistoryImportCommandTests() => Environment.SetEnvironmentVariable(TdsClient.PasswordVariable, TdsClient.Password);

    public void Dispose()
    {
        SqliteConnection.ClearAllPools();
        Directory.Delete(_folder, recursive: true);
    }

    /// <summary>Ten nights at 40 s for 10 GB, then three at 100 s: the job output files of two weeks.</summary>
    private string JobOutput()
    {
        var output = new OlaJobOutput();
        for (var day = 0; day < 13; day++)
        {
            var seconds = day < 10 ? 40.0 : 100.0;
            var buffers = day < 10 ? "BUFFERCOUNT = 50, MAXTRANSFERSIZE = 4194304" : "BUFFERCOUNT = 7";
            output.Command(
                new DateTime(2024, 5, 1 + day, 1, 0, 0), TimeSpan.FromSeconds(Math.Ceiling(seconds)),
                $"BACKUP DATABASE [Sales] TO DISK = N'X:\\b\\Sales_{day}.bak' WITH CHECKSUM, COMPRESSION, {buffers}",
                pages: 1_310_720, engineSeconds: seconds - 0.25);
        }

        output.Command(new DateTime(2024, 5, 14, 1, 0, 0), TimeSpan.FromSeconds(2), "BACKUP LOG [Sales] TO DISK = N'X:\\b\\Sales.trn'", outcome: "Failed", error: "Cannot open backup device.");
        return output.WriteTo(_folder, "DatabaseBackup_USER_DATABASES_FULL.txt");
    }

    private static readonly Guid Group = Guid.Parse("6f3a2c41-1d8e-4b7a-9c55-0e2d4f6a8b10");

    /// <summary>A replica of AG1 (which prefers secondaries) where Sales is in the group and this replica is the primary.</summary>
    private static TdsScript Replica(int viewAnyDefinition) => ServerHistoryReaderTests.Server(
            ServerHistoryReaderTests.Columns2022(),
            ServerHistoryReaderTests.MsdbRows().Row(1, "Sales", null, "D", false, false, true, new DateTime(2026, 11, 20, 1, 0, 0), new DateTime(2026, 11, 20, 1, 1, 0),
                20L << 30, 6L << 30, null, null, 8, @"X:\b\Sales_1.bak", 2, 0, null, null, null, null),
            commandLog: null)
        .On(ScriptedSqlServer.HadrFactsFragment, ScriptedSqlServer.HadrFactsResponse(1, 1, viewAnyDefinition))
        .On(ScriptedSqlServer.ReplicaRolesFragment, ScriptedSqlServer.ReplicaRolesResponse(
            new ScriptedReplicaRole("Sales", Group.ToString(), "AG1", "SECONDARY", 50, "PRIMARY", Preferred: false)));

    [Fact]
    public async Task Import_from_a_server_keeps_its_replica_roles_as_the_daemons_import_does()
    {
        // Given a replica whose Sales is in a group that prefers secondaries, this replica being the primary
        await using var server = TdsServerDouble.Start(Replica(viewAnyDefinition: 1));
        var db = Path.Combine(_folder, "history.db");

        // When
        var run = await CliRun.RunAsync(["history", "import", "--path", db, .. TdsClient.CliArguments(server), "--since", "3650d"]);

        // Then the roles are kept under the instance's name, for fleet, and said
        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Contains("  availability group roles kept: Sales PRIMARY, not the preferred backup replica", run.Output, StringComparison.Ordinal);
        var role = Assert.Single(await new SqliteReplicaRoles(db, TimeProvider.System).ReadAsync(CancellationToken.None));
        Assert.Equal(("PROD01", "Sales", Group, "PRIMARY", "SECONDARY", 50, false), (role.Instance, role.Database, role.GroupDatabaseId, role.Role, role.BackupPreference, role.BackupPriority, role.Preferred));
    }

    [Fact]
    public async Task Import_from_a_server_without_view_any_definition_says_so_and_never_reads_the_views_that_would_hide_the_group()
    {
        // Given a login without VIEW ANY DEFINITION: the catalog views would show no group rather than refuse
        await using var server = TdsServerDouble.Start(Replica(viewAnyDefinition: 0));
        var db = Path.Combine(_folder, "history.db");

        // When
        var run = await CliRun.RunAsync(["history", "import", "--path", db, .. TdsClient.CliArguments(server), "--since", "3650d"]);

        // Then the import stands, a note names the permission, and no role is kept
        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Contains("  note: ", run.Output, StringComparison.Ordinal);
        Assert.Contains("need VIEW ANY DEFINITION", run.Output, StringComparison.Ordinal);
        Assert.DoesNotContain(server.Requests, r => r.Text.Contains(ScriptedSqlServer.ReplicaRolesFragment, StringComparison.Ordinal));
        Assert.Empty(await new SqliteReplicaRoles(db, TimeProvider.System).ReadAsync(CancellationToken.None));
    }

    [Fact]
    public async Task A_restore_only_msdbs_restorehistory_holds_is_kept_once_and_fleet_counts_the_database_restored()
    {
        // Given a server whose msdb holds Sales's full backup and, in restorehistory, a full database restore from it
        var night = new DateTime(2026, 11, 20, 1, 0, 0);
        ScriptedBackupSet full = new("Sales", "D", false, "41000000016000037", "41000000017600001", "41000000000000001", "41000000016000037", "FULL", night, night.AddMinutes(1));
        var script = ServerHistoryReaderTests.Server(
                ServerHistoryReaderTests.Columns2022(),
                ServerHistoryReaderTests.MsdbRows().Row(1, "Sales", null, "D", false, false, true, night, night.AddMinutes(1), 20L << 30, 6L << 30, null, null, 8, @"X:\b\Sales_1.bak", 2, 0, null, null, null, null),
                commandLog: null)
            .On("msdb.dbo.restorehistory", _ => ScriptedSqlServer.RestoresResponse([new ScriptedRestore("Sales", night.AddHours(8).AddMinutes(30), false, full)]));
        await using var server = TdsServerDouble.Start(script);
        var db = Path.Combine(_folder, "history.db");

        // When it is imported twice, and the fleet page read from the file
        var first = await CliRun.RunAsync(["history", "import", "--path", db, .. TdsClient.CliArguments(server), "--since", "3650d"]);
        var second = await CliRun.RunAsync(["history", "import", "--path", db, .. TdsClient.CliArguments(server), "--since", "3650d"]);
        var fleet = await CliRun.RunAsync("fleet", "--history", db, "--format", "json");

        // Then the restore is kept once, and Sales is restored on its evidence, which says what restorehistory cannot tell
        Assert.True(first.ExitCode == 0, first.Error);
        Assert.Contains("  1 full database restores from msdb's restorehistory", first.Output, StringComparison.Ordinal);
        Assert.True(second.ExitCode == 0, second.Error);
        var kept = Assert.Single(await new SqliteMsdbRestores(db, TimeProvider.System).ReadAsync(CancellationToken.None));
        Assert.Equal(("PROD01", "Sales", night.AddHours(8).AddMinutes(30), 41000000017600001m), (kept.Instance, kept.Restore.Database, kept.Restore.RestoredAt, kept.Restore.Source.LastLsn));
        Assert.True(fleet.ExitCode == 0, fleet.Error);
        using var json = System.Text.Json.JsonDocument.Parse(fleet.Output);
        var restored = json.RootElement.GetProperty("databases")[0].GetProperty("restored");
        Assert.True(restored.GetProperty("ever").GetBoolean());
        Assert.StartsWith("last restored 2026-11-20 09:30 (server time; msdb restorehistory: a full database restore from the full backup of Sales that finished 2026-11-20 01:01;",
            restored.GetProperty("evidence").GetString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_login_that_cannot_read_restorehistory_gets_a_note_and_the_import_stands()
    {
        var script = Replica(viewAnyDefinition: 1)
            .On("msdb.dbo.restorehistory", _ => new TdsResponse().Error(229, 14, "The SELECT permission was denied on the object 'restorehistory', database 'msdb', schema 'dbo'."));
        await using var server = TdsServerDouble.Start(script);
        var db = Path.Combine(_folder, "history.db");

        var run = await CliRun.RunAsync(["history", "import", "--path", db, .. TdsClient.CliArguments(server), "--since", "3650d"]);

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Contains("1 backups from msdb", run.Output, StringComparison.Ordinal);
        Assert.Contains("  note: msdb.dbo.restorehistory not read (The SELECT permission was denied on the object 'restorehistory'", run.Output, StringComparison.Ordinal);
        Assert.Empty(await new SqliteMsdbRestores(db, TimeProvider.System).ReadAsync(CancellationToken.None));
    }

    [Fact]
    public async Task Import_then_history_gives_statistics_a_slowdown_with_its_date_and_settings_vs_speed()
    {
        // Given
        var db = Path.Combine(_folder, "history.db");
        var file = JobOutput();

        // When
        var import = await CliRun.RunAsync("history", "import", "--path", db, file);
        var again = await CliRun.RunAsync("history", "import", "--path", db, file);
        var history = await CliRun.RunAsync("history", "--path", db);

        // Then
        Assert.True(import.ExitCode == 0, import.Error);
        Assert.Contains("14 operations: 14 added", import.Output);
        Assert.Contains("14 operations: 0 added, 0 merged with known ones, 14 already there", again.Output);
        Assert.True(history.ExitCode == 0, history.Error);
        Assert.Contains("[Sales] on PROD01, full backups", history.Output);
        Assert.Contains("slower since 2024-05-11 01:00:00.000: the last 3 runs", history.Output);
        Assert.Contains("settings vs speed (fastest first): COMPRESSION, BUFFERCOUNT 50, MAXTRANSFERSIZE 4 MB, 1 stripe", history.Output);
        Assert.Contains("[Sales] on PROD01, log backups", history.Output);
        Assert.Contains("1 failed", history.Output);
    }

    [Fact]
    public async Task History_writes_markdown_csv_and_json_statistics()
    {
        var db = Path.Combine(_folder, "history.db");
        await CliRun.RunAsync("history", "import", "--path", db, JobOutput());

        var markdown = await CliRun.RunAsync("history", "--path", db, "--format", "markdown");
        var csv = await CliRun.RunAsync("history", "--path", db, "--format", "csv");
        var json = await CliRun.RunAsync("history", "--path", db, "--format", "json");

        Assert.Contains("| [Sales] on PROD01, full backups | 13 | 0 | 13 |", markdown.Output);
        var lines = csv.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.StartsWith("instance,database,kind,scope,runs", lines[0]);
        Assert.StartsWith("PROD01,Sales,backup,database,13,0,13,", lines[1]);
        Assert.Contains("2024-05-11T01:00:00.000", lines[1]);
        Assert.Contains("\"series\"", json.Output);
        Assert.Contains("\"regression\"", json.Output);
    }

    [Fact]
    public async Task Import_reports_an_unrecognised_file_with_its_path_and_still_imports_the_others()
    {
        var db = Path.Combine(_folder, "history.db");
        var junk = Path.Combine(_folder, "notes.txt");
        await File.WriteAllTextAsync(junk, "nothing to see\n");

        var run = await CliRun.RunAsync("history", "import", "--path", db, junk, JobOutput());

        Assert.Equal(2, run.ExitCode);
        Assert.Contains($"backupxe: {junk}: offset 0: not a recognised format", run.Error);
        Assert.Contains("14 added", run.Output);
    }

    [Fact]
    public async Task Import_takes_the_operations_of_a_real_errorlog_through_the_analysis_path()
    {
        var db = Path.Combine(_folder, "history.db");
        var errorlog = Path.Combine(AppContext.BaseDirectory, "Fixtures", "errorlog", "tf3014-backup-sql2014.log");

        var withoutInstance = await CliRun.RunAsync("history", "import", "--path", db, errorlog);
        var run = await CliRun.RunAsync("history", "import", "--path", db, "--instance", "SQL2014", errorlog);
        var again = await CliRun.RunAsync("history", "import", "--path", db, "--instance", "SQL2014", errorlog);

        Assert.Contains("does not name its server", withoutInstance.Error);
        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Matches(@"\(errorlog, SQL2014\): [1-9]\d* operations: [1-9]\d* added", run.Output);
        Assert.Contains(" 0 added, 0 merged with known ones", again.Output);
    }

    [Fact]
    public async Task History_leaves_a_damaged_row_out_of_the_statistics_and_says_so()
    {
        var db = Path.Combine(_folder, "history.db");
        await CliRun.RunAsync("history", "import", "--path", db, JobOutput());
        await using (var connection = new SqliteConnection($"Data Source={db};Pooling=False"))
        {
            await connection.OpenAsync();
            await using var command = connection.CreateCommand();
            command.CommandText = "UPDATE operations SET history_json = '[' WHERE kind = 'backup' AND scope = 'log'";
            await command.ExecuteNonQueryAsync();
        }

        var run = await CliRun.RunAsync("history", "--path", db, "--format", "csv");

        Assert.Contains($"backupxe: {db}: 1 history rows could not be read and are left out of the statistics", run.Error);
        Assert.Contains("PROD01,Sales,backup,database,13,", run.Output);
        Assert.DoesNotContain(",log,", run.Output);
    }
}
