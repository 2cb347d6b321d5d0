using BackupXe.Core.Baselines;
using BackupXe.Core.History;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Msdb;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using Microsoft.Data.Sqlite;
using Xunit;

namespace BackupXe.Tests.SqlServer.Msdb;

/// <summary>
/// msdb and CommandLog through the real driver (Microsoft.Data.SqlClient) against the TDS double, with rows
/// built from the documented column types as the queries cast them. They test the queries' shape, the typed
/// parameters and the row mapping; they say nothing about a real SQL Server's answers.
/// </summary>
public sealed class ServerHistoryReaderTests : IDisposable
{
    private const long GiB = 1L << 30;
    private static readonly DateTime Night = new(2024, 5, 1, 1, 0, 0);
    private readonly string _folder = Directory.CreateTempSubdirectory("backupxe-server-history-").FullName;

    public ServerHistoryReaderTests() => Environment.SetEnvironmentVariable(TdsClient.PasswordVariable, TdsClient.Password);

    public void Dispose()
    {
        SqliteConnection.ClearAllPools();
        Directory.Delete(_folder, recursive: true);
    }

    internal static TdsResultSet MsdbRows() => new(
        TdsColumn.Int("backup_set_id"), TdsColumn.NVarChar("recorded_name", 128), TdsColumn.NVarChar("database_guid", 36),
        TdsColumn.NVarChar("backup_type", 1), TdsColumn.Bit("is_copy_only"), TdsColumn.Bit("is_snapshot"), TdsColumn.Bit("has_backup_checksums"),
        TdsColumn.DateTime("backup_start_date"), TdsColumn.DateTime("backup_finish_date"), TdsColumn.BigInt("backup_size"),
        TdsColumn.BigInt("compressed_backup_size"), TdsColumn.NVarChar("key_algorithm", 32), TdsColumn.NVarChar("compression_algorithm", 32),
        TdsColumn.Int("time_zone"), TdsColumn.NVarChar("physical_device_name", 260), TdsColumn.Int("device_type"), TdsColumn.Int("mirror"),
        TdsColumn.NVarChar("encryptor_type", 32), TdsColumn.Int("software_major_version"), TdsColumn.Int("software_minor_version"),
        TdsColumn.Int("software_build_version"));

    /// <summary>The LSN, recovery model and family_guid columns the query adds at the end (nvarchar(25) LSNs, recovery_model nvarchar(60), family_guid as nvarchar(36)).</summary>
    private static readonly TdsColumn[] IdentityColumns =
    [
        TdsColumn.NVarChar("first_lsn", 25), TdsColumn.NVarChar("last_lsn", 25), TdsColumn.NVarChar("database_backup_lsn", 25),
        TdsColumn.NVarChar("checkpoint_lsn", 25), TdsColumn.NVarChar("recovery_model", 60), TdsColumn.NVarChar("family_guid", 36),
    ];

    /// <summary>msdb's rows with the LSN, recovery model and family_guid columns, for a test that gives them.</summary>
    internal static TdsResultSet MsdbRowsWithLsns() => new([.. MsdbRows().Columns, .. IdentityColumns]);

    /// <summary>
    /// <paramref name="rows"/> in the query's whole shape: a test that does not give the LSN columns gets them NULL,
    /// what msdb cannot hold for a completed backup but what the reader must take as "not known".
    /// </summary>
    internal static TdsResultSet WithIdentityColumns(TdsResultSet rows)
    {
        if (rows.Columns.Count == MsdbRows().Columns.Count + IdentityColumns.Length)
        {
            return rows;
        }

        var whole = MsdbRowsWithLsns();
        foreach (var row in rows.Rows)
        {
            whole.Row([.. row, .. new object?[IdentityColumns.Length]]);
        }

        return whole;
    }

    internal static TdsResultSet CommandLogRows() => new(
        TdsColumn.Int("ID"), TdsColumn.NVarChar("DatabaseName", 128), TdsColumn.NVarChar("CommandType", 60), TdsColumn.NVarChar("Command", null),
        TdsColumn.DateTime2("StartTime"), TdsColumn.DateTime2("EndTime"), TdsColumn.Int("ErrorNumber"), TdsColumn.NVarChar("ErrorMessage", null));

    /// <summary>The GUID of the database named Sales today (database_id 5), which a backup recorded as Sales_2019 also carries.</summary>
    internal const string SalesGuid = "6f9619ff-8b86-d011-b42d-00c04fc964ff";

    /// <summary>sys.databases' online databases: (database_id, name, is_auto_close_on as int).</summary>
    internal static TdsResultSet Databases(params (int Id, string Name, bool AutoClose)[] databases) => databases.Aggregate(
        new TdsResultSet(TdsColumn.Int("database_id"), TdsColumn.NVarChar("name", 128), TdsColumn.Int("is_auto_close_on")),
        (set, d) => set.Row(d.Id, d.Name, d.AutoClose ? 1 : 0));

    internal static TdsScript Server(TdsResultSet columns, TdsResultSet msdb, TdsResultSet? commandLog, TdsResultSet? databases = null)
    {
        databases ??= Databases((1, "master", false), (4, "msdb", false), (5, "Sales", false), (7, "DBA", false));
        var found = new TdsResultSet(TdsColumn.NVarChar("name", 128), TdsColumn.Int("is_auto_close_on"), TdsColumn.Int("has_access"));
        foreach (var row in databases.Rows)
        {
            found.Row(row[1], row[2], (int)row[2]! == 1 ? null : 1);
        }

        var script = new TdsScript()
            .On("SERVERPROPERTY('ServerName')", TdsResponse.Of(new TdsResultSet(TdsColumn.NVarChar("server_name", 128)).Row("PROD01")))
            .On("COL_LENGTH(N'msdb.dbo.backupset'", TdsResponse.Of(columns))
            .On("FROM msdb.dbo.backupset AS bs", TdsResponse.Of(WithIdentityColumns(msdb)))
            .On(ScriptedSqlServer.GroupDatabasesFragment, ScriptedSqlServer.GroupDatabasesResponse())
            // A standalone server: the replica roles read after the import stop at HADR off.
            .On(ScriptedSqlServer.HadrFactsFragment, ScriptedSqlServer.HadrFactsResponse(0, 1))
            .On("msdb.dbo.restorehistory", _ => ScriptedSqlServer.RestoresResponse([]))
            .On("FROM sys.databases AS d\nWHERE d.state = 0;", TdsResponse.Of(databases))
            .On("FROM sys.database_recovery_status AS drs", r => TdsResponse.Of(new TdsResultSet(TdsColumn.NVarChar("database_guid", 36))
                .Row(Convert.ToInt32(r.Parameters["@database_id"], System.Globalization.CultureInfo.InvariantCulture) switch
                {
                    5 => SalesGuid,
                    var id => $"00000000-0000-0000-0000-{id:D12}",
                })))
            .On("CASE WHEN d.is_auto_close_on = 0 THEN HAS_DBACCESS(d.name)", TdsResponse.Of(found))
            .On("SELECT CASE WHEN OBJECT_ID(QUOTENAME(@database) + N'.dbo.CommandLog'", r => TdsResponse.Of(
                new TdsResultSet(TdsColumn.Int("has_command_log")).Row(commandLog is not null && Equals(r.Parameters["@database"], "DBA") ? 1 : null)));
        return commandLog is null ? script : script.On("FROM [DBA].dbo.CommandLog", TdsResponse.Of(commandLog));
    }

    internal static TdsResultSet Columns2022() =>
        new TdsResultSet(TdsColumn.Int("compressed_backup_size"), TdsColumn.Int("key_algorithm"), TdsColumn.Int("compression_algorithm"), TdsColumn.Int("encryptor_type")).Row(9, 64, 64, 64);

    [Fact]
    public async Task Reads_striped_copy_only_differential_log_url_renamed_and_pre_upgrade_compressed_size_rows()
    {
        // Given: backup sets as msdb holds them (one row per media family)
        var msdb = MsdbRows()
            .Row(1, "Sales", null, "D", false, false, true, Night, Night.AddSeconds(60), 20 * GiB, 6 * GiB, null, "MS_XPRESS", 8, @"X:\b\Sales_1.bak", 2, 0, null, 16, 0, 4135)
            .Row(1, "Sales", null, "D", false, false, true, Night, Night.AddSeconds(60), 20 * GiB, 6 * GiB, null, "MS_XPRESS", 8, @"Y:\b\Sales_2.bak", 2, 0, null, 16, 0, 4135)
            .Row(2, "Sales", null, "D", true, false, false, Night.AddHours(2), Night.AddHours(2).AddSeconds(90), 20 * GiB, 20 * GiB, "AES_256", null, 8, "https://acct.blob.core.windows.net/c/Sales.bak", 9, 0, "Certificate", null, null, null)
            .Row(3, "Sales", null, "I", false, false, true, Night.AddDays(1), Night.AddDays(1).AddSeconds(5), GiB, GiB / 4, null, "MS_XPRESS", 8, @"X:\b\Sales_DIFF.bak", 2, 0, null, null, null, null)
            .Row(4, "Sales", null, "L", false, false, true, Night.AddDays(1).AddMinutes(15), Night.AddDays(1).AddMinutes(15).AddSeconds(1), 64L << 20, null, null, null, 127, @"X:\b\Sales.trn", 2, 0, null, null, null, null)
            .Row(5, "Sales_2019", SalesGuid, "D", false, false, true, Night.AddDays(-30), Night.AddDays(-30).AddSeconds(55), 19 * GiB, 19 * GiB, null, null, 8, @"X:\b\old.bak", 102, 0, null, null, null, null);
        await using var server = TdsServerDouble.Start(Server(Columns2022(), msdb, commandLog: null));
        var reader = new ServerHistoryReader(new SqlConnectionFactory(TdsClient.Settings(server)));

        // When
        var history = await reader.ReadAsync(new ServerHistoryRequest(Night.AddDays(-60), ["Sales"], null), CancellationToken.None);

        // Then
        Assert.Equal("PROD01", history.ServerName);
        Assert.Equal(5, history.FromMsdb);
        var ops = history.Operations;
        Assert.Equal(2, ops[0].Devices.Count);
        Assert.True(ops[0].Options.Compression);
        Assert.Equal("MS_XPRESS", ops[0].Options.CompressionAlgorithm);
        Assert.Equal(20.0 / 6, ops[0].CompressionRatio!.Value, 3);
        Assert.Equal(TimeSpan.FromHours(2), ops[0].UtcOffset);
        Assert.True(ops[1].Options.CopyOnly);
        Assert.True(ops[1].Options.Encryption);
        Assert.Equal("AES_256", ops[1].Options.EncryptionAlgorithm);
        Assert.Equal("16.0.4135", ops[0].ServerBuild);
        Assert.Null(ops[1].ServerBuild);
        Assert.Equal("Certificate", ops[1].Options.Encryptor);
        Assert.Null(ops[0].Options.EncryptionAlgorithm);
        Assert.False(ops[1].Options.Compression);
        Assert.Equal(DeviceKind.Url, Assert.Single(ops[1].Devices).Kind);
        Assert.Equal(OperationScope.Differential, ops[2].Scope);
        Assert.Equal(OperationScope.Log, ops[3].Scope);
        // compressed_backup_size NULL: what an msdb upgrade leaves for an uncompressed backup (backupset page)
        Assert.Equal(64L << 20, ops[3].BytesWritten);
        Assert.False(ops[3].Options.Compression);
        Assert.Null(ops[3].UtcOffset);
        Assert.Equal("Sales", ops[4].Database);
        Assert.Equal(DeviceKind.Logical, Assert.Single(ops[4].Devices).Kind);
        var query = server.Requests.Single(r => r.Text.Contains("FROM msdb.dbo.backupset AS bs", StringComparison.Ordinal));
        Assert.Equal("Sales", query.Parameters["@d0"]);
        Assert.Equal(Night.AddDays(-60), query.Parameters["@since"]);
        // backup_start_date is datetime: a datetime2 parameter would convert the column instead of seeking on it
        Assert.Matches(@"@since datetime(,|$)", query.Declarations);
        Assert.Contains("CAST(bs.compression_algorithm AS nvarchar(32))", query.Text);
        Assert.Contains("CAST(bs.encryptor_type AS nvarchar(32)) AS encryptor_type", query.Text);
    }

    [Theory]
    [InlineData(207, "Invalid column name 'group_database_id'.", false)]
    [InlineData(229, "The SELECT permission was denied on the object 'databases', database 'mssqlsystemresource', schema 'sys'.", true)]
    public async Task A_server_without_group_database_id_is_imported_without_groups_and_a_refusal_is_a_note(int error, string message, bool noted)
    {
        // Given: msdb's one full backup with its LSNs; the group query refused (207: before 2012, no such column)
        var msdb = MsdbRowsWithLsns().Row(1, "Sales", SalesGuid, "D", false, false, true, Night, Night.AddSeconds(60), 20 * GiB, 6 * GiB, null, null, 8,
            @"X:\b\Sales.bak", 2, 0, null, 16, 0, 4135, "41000000016000037", "41000000017600001", "41000000000000001", "41000000016000037", "BULK-LOGGED",
            "1cc0a00a-1361-463f-b195-df7642a9754e");
        var script = Server(Columns2022(), msdb, commandLog: null).On(ScriptedSqlServer.GroupDatabasesFragment, new TdsResponse().Error(error, 16, message));
        await using var server = TdsServerDouble.Start(script);

        // When
        var history = await new ServerHistoryReader(new SqlConnectionFactory(TdsClient.Settings(server))).ReadAsync(new ServerHistoryRequest(Night.AddDays(-1), [], null), CancellationToken.None);

        // Then: the backup with its LSNs, its model in sys.databases' spelling, its ids, and no group
        var backup = Assert.Single(history.Operations);
        Assert.Equal(new BackupLsns(41000000016000037m, 41000000017600001m, 41000000000000001m, 41000000016000037m), backup.Lsns);
        Assert.Equal("BULK_LOGGED", backup.RecoveryModel);
        Assert.Equal(new DatabaseIdentity(Guid.Parse("1cc0a00a-1361-463f-b195-df7642a9754e"), Guid.Parse(SalesGuid), null), backup.Identity);
        Assert.Equal(noted, history.Notes.Any(n => n.StartsWith($"sys.databases.group_database_id not read (error {error}", StringComparison.Ordinal)));
    }

    [Fact]
    public async Task Given_msdb_rows_with_NO_Encryption_and_permanent_devices_When_imported_Then_they_are_unencrypted_logical_devices()
    {
        // Given: key_algorithm NO_Encryption (not encrypted) and device_type 105 and 102 (permanent devices, backupmediafamily)
        var msdb = MsdbRows()
            .Row(1, "Sales", null, "D", false, false, true, Night, Night.AddSeconds(60), 20 * GiB, 20 * GiB, "NO_Encryption", null, 8, "SalesTape", 105, 0, null, null, null, null)
            .Row(2, "Sales", null, "D", false, false, true, Night.AddDays(1), Night.AddDays(1).AddSeconds(60), 20 * GiB, 20 * GiB, "AES_256", null, 8, "SalesDisk", 102, 0, null, null, null, null);
        await using var server = TdsServerDouble.Start(Server(Columns2022(), msdb, commandLog: null));

        // When
        var history = await new ServerHistoryReader(new SqlConnectionFactory(TdsClient.Settings(server)))
            .ReadAsync(new ServerHistoryRequest(Night.AddDays(-1), [], null), CancellationToken.None);

        // Then
        Assert.False(history.Operations[0].Options.Encryption);
        Assert.Equal(DeviceKind.Logical, Assert.Single(history.Operations[0].Devices).Kind);
        Assert.True(history.Operations[1].Options.Encryption);
        Assert.Equal(DeviceKind.Logical, Assert.Single(history.Operations[1].Devices).Kind);
    }

    [Fact]
    public async Task Reads_is_snapshot_so_that_a_snapshot_full_backup_is_counted_apart_and_never_ranked()
    {
        // Given: a snapshot backup (is_snapshot 1, backupset page) whose 12 GB in 10 s would otherwise be the series' fastest
        // run, between two ordinary full backups of the same database
        var msdb = MsdbRows()
            .Row(1, "TPCC100", null, "D", false, false, true, Night, Night.AddSeconds(120), 12 * GiB, 12 * GiB, null, null, 8, @"X:\TPCC100_1.bak", 2, 0, null, null, null, null)
            .Row(2, "TPCC100", null, "D", false, true, false, Night.AddDays(1), Night.AddDays(1).AddSeconds(10), 12 * GiB, 12 * GiB, null, null, 8, @"X:\TPCC100.bkm", 2, 0, null, null, null, null)
            .Row(3, "TPCC100", null, "D", false, false, true, Night.AddDays(2), Night.AddDays(2).AddSeconds(118), 12 * GiB, 12 * GiB, null, null, 8, @"X:\TPCC100_3.bak", 2, 0, null, null, null, null);
        await using var server = TdsServerDouble.Start(Server(Columns2022(), msdb, commandLog: null));

        // When
        var history = await new ServerHistoryReader(new SqlConnectionFactory(TdsClient.Settings(server)))
            .ReadAsync(new ServerHistoryRequest(Night.AddDays(-1), [], null), CancellationToken.None);
        var series = Assert.Single(SeriesStatistics.Compute(history.Operations.Select(o => new InstanceOperation("PROD01", o))));

        // Then
        Assert.Equal([false, true, false], history.Operations.Select(o => o.Snapshot));
        Assert.Contains("bs.is_snapshot", server.Requests.Single(r => r.Text.Contains("FROM msdb.dbo.backupset AS bs", StringComparison.Ordinal)).Text);
        Assert.Equal((3, 1, 2), (series.Count, series.Snapshots, series.Ranked));
        Assert.Equal("snapshot", SeriesStatistics.Unranked(history.Operations[1]));
    }

    [Fact]
    public async Task A_backup_that_finishes_before_it_starts_is_a_note_and_imported_without_its_end()
    {
        // Given a sound full backup and one whose backup_finish_date is an hour before its backup_start_date
        var msdb = MsdbRows()
            .Row(1, "Sales", null, "D", false, false, true, Night, Night.AddSeconds(120), 12 * GiB, 12 * GiB, null, null, 8, @"X:\Sales_1.bak", 2, 0, null, null, null, null)
            .Row(2, "Sales", null, "D", false, false, true, Night.AddDays(1), Night.AddDays(1).AddHours(-1), 12 * GiB, 12 * GiB, null, null, 8, @"X:\Sales_2.bak", 2, 0, null, null, null, null);
        await using var server = TdsServerDouble.Start(Server(Columns2022(), msdb, commandLog: null));

        // When
        var history = await new ServerHistoryReader(new SqlConnectionFactory(TdsClient.Settings(server)))
            .ReadAsync(new ServerHistoryRequest(Night.AddDays(-1), [], null), CancellationToken.None);

        // Then
        Assert.Equal(new DateTime?[] { Night.AddSeconds(120), null }, history.Operations.Select(o => o.End));
        Assert.Contains("msdb backup set 2 of [Sales] finishes at 2024-05-02 00:00:00, before it starts at 2024-05-02 01:00:00: imported without its end", history.Notes);
    }

    [Fact]
    public async Task On_a_server_without_the_newer_columns_asks_for_nulls_and_counts_nothing_as_compressed()
    {
        var columns = new TdsResultSet(TdsColumn.Int("compressed_backup_size"), TdsColumn.Int("key_algorithm"), TdsColumn.Int("compression_algorithm"), TdsColumn.Int("encryptor_type")).Row(null, null, null, null);
        var msdb = MsdbRows().Row(1, "Sales", null, "D", false, false, false, Night, Night.AddSeconds(60), 20 * GiB, null, null, null, 4, @"X:\b\s.bak", 2, 0, null, null, null, null);
        await using var server = TdsServerDouble.Start(Server(columns, msdb, commandLog: null));

        var history = await new ServerHistoryReader(new SqlConnectionFactory(TdsClient.Settings(server)))
            .ReadAsync(new ServerHistoryRequest(Night.AddDays(-1), [], null), CancellationToken.None);

        var operation = Assert.Single(history.Operations);
        Assert.False(operation.Options.Compression);
        Assert.Equal(20 * GiB, operation.BytesWritten);
        Assert.Null(operation.Options.Encryption);
        var query = server.Requests.Single(r => r.Text.Contains("FROM msdb.dbo.backupset AS bs", StringComparison.Ordinal)).Text;
        Assert.Contains("CAST(NULL AS bigint) AS compressed_backup_size", query);
        Assert.Contains("CAST(NULL AS nvarchar(32)) AS encryptor_type", query);
        Assert.DoesNotContain("@d0", query);
        Assert.Contains("no dbo.CommandLog in any database", Assert.Single(history.Notes));
    }

    [Fact]
    public async Task Import_from_a_server_merges_msdb_and_commandlog_and_a_second_import_changes_nothing()
    {
        // Given: one full backup seen by msdb and by CommandLog (which starts 0.4 s earlier), and a failed log backup only CommandLog saw
        var msdb = MsdbRows()
            .Row(1, "Sales", null, "D", false, false, true, Night, Night.AddSeconds(60), 20 * GiB, 6 * GiB, null, null, 8, @"X:\b\Sales_1.bak", 2, 0, null, null, null, null)
            .Row(1, "Sales", null, "D", false, false, true, Night, Night.AddSeconds(60), 20 * GiB, 6 * GiB, null, null, 8, @"Y:\b\Sales_2.bak", 2, 0, null, null, null, null);
        var log = CommandLogRows()
            .Row(10, "Sales", "BACKUP_DATABASE", @"BACKUP DATABASE [Sales] TO DISK = N'X:\b\Sales_1.bak', DISK = N'Y:\b\Sales_2.bak' WITH CHECKSUM, COMPRESSION, BUFFERCOUNT = 50, MAXTRANSFERSIZE = 4194304",
                Night.AddMilliseconds(-400), Night.AddSeconds(60.3), 0, null)
            .Row(11, "Sales", "BACKUP_LOG", @"BACKUP LOG [Sales] TO DISK = N'X:\b\Sales.trn' WITH CHECKSUM", Night.AddMinutes(15), Night.AddMinutes(15).AddSeconds(2), 3201, "Cannot open backup device")
            .Row(12, "Sales", "BACKUP_LOG", @"BACKUP LOG [Sales] TO DISK = N'X:\b\Sales2.trn'", Night.AddMinutes(30), Night.AddMinutes(30), null, null);
        await using var server = TdsServerDouble.Start(Server(Columns2022(), msdb, log));
        var db = Path.Combine(_folder, "history.db");

        // When
        var first = await CliRun.RunAsync(["history", "import", "--path", db, .. TdsClient.CliArguments(server), "--since", "3650d"]);
        var second = await CliRun.RunAsync(["history", "import", "--path", db, .. TdsClient.CliArguments(server), "--since", "3650d"]);
        var json = await CliRun.RunAsync("history", "--path", db, "--format", "json");

        // Then
        Assert.True(first.ExitCode == 0, first.Error);
        Assert.Contains("1 backups from msdb, 2 from [DBA].dbo.CommandLog: 2 added, 1 merged with known ones, 0 already there", first.Output);
        Assert.Contains("0 added, 0 merged with known ones, 3 already there", second.Output);
        var compact = string.Concat(json.Output.Where(c => !char.IsWhiteSpace(c)));
        Assert.Contains("\"sources\":[\"msdb\",\"command-log\"]", compact);
        Assert.Contains("\"bufferCount\":50", compact);
        Assert.DoesNotContain(TdsClient.Password, first.Output + first.Error);
        var commandLog = server.Requests.Last(r => r.Text.Contains("dbo.CommandLog\nWHERE", StringComparison.Ordinal));
        Assert.StartsWith("SELECT ID, DatabaseName", commandLog.Text);
    }

    [Fact]
    public async Task A_job_output_file_and_msdb_give_one_row_per_backup()
    {
        // Given: the job output file of a backup msdb also recorded (same server name, same device)
        var file = new OlaJobOutput("PROD01")
            .Command(Night, TimeSpan.FromSeconds(60), @"BACKUP DATABASE [Sales] TO DISK = N'X:\b\Sales_1.bak' WITH CHECKSUM, COMPRESSION, BUFFERCOUNT = 50", pages: 2_621_440, engineSeconds: 59.3)
            .WriteTo(_folder, "job.txt");
        var msdb = MsdbRows()
            .Row(1, "Sales", null, "D", false, false, true, Night, Night.AddSeconds(60), 20 * GiB, 6 * GiB, null, null, 8, @"X:\b\Sales_1.bak", 2, 0, null, null, null, null);
        await using var server = TdsServerDouble.Start(Server(Columns2022(), msdb, commandLog: null));
        var db = Path.Combine(_folder, "history.db");

        // When
        var fromFile = await CliRun.RunAsync("history", "import", "--path", db, file);
        var fromServer = await CliRun.RunAsync(["history", "import", "--path", db, .. TdsClient.CliArguments(server), "--since", "3650d"]);
        var csv = await CliRun.RunAsync("history", "--path", db, "--format", "csv");

        // Then
        Assert.Contains("1 added", fromFile.Output);
        Assert.Contains("0 added, 1 merged with known ones", fromServer.Output);
        var row = csv.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries)[1];
        Assert.StartsWith("PROD01,Sales,backup,database,1,0,1,", row);
        Assert.Contains("msdb ola-output", row);
    }

    [Fact]
    public async Task Databases_with_AUTO_CLOSE_are_never_opened_and_the_import_says_so()
    {
        // Given: Archive has AUTO_CLOSE on (reading its row of sys.database_recovery_status would start it)
        var msdb = MsdbRows()
            .Row(1, "Sales_2019", SalesGuid, "D", false, false, true, Night, Night.AddSeconds(60), 20 * GiB, 6 * GiB, null, null, 8, @"X:\b\Sales.bak", 2, 0, null, null, null, null)
            .Row(2, "Archive", "00000000-0000-0000-0000-000000000009", "D", false, false, true, Night, Night.AddSeconds(60), GiB, GiB, null, null, 8, @"X:\b\Archive.bak", 2, 0, null, null, null, null);
        var databases = Databases((1, "master", false), (5, "Sales", false), (9, "Archive", true));
        await using var server = TdsServerDouble.Start(Server(Columns2022(), msdb, commandLog: null, databases));

        // When
        var history = await new ServerHistoryReader(new SqlConnectionFactory(TdsClient.Settings(server)))
            .ReadAsync(new ServerHistoryRequest(Night.AddDays(-1), [], null), CancellationToken.None);

        // Then: no statement names Archive's database_id or its name (no GUID read, no HAS_DBACCESS, no OBJECT_ID),
        // Sales is still found under its current name, and both notes name Archive
        Assert.DoesNotContain(server.Requests, r => Equals(r.Parameters.GetValueOrDefault("@database_id"), 9));
        Assert.DoesNotContain(server.Requests, r => Equals(r.Parameters.GetValueOrDefault("@database"), "Archive"));
        Assert.DoesNotContain(server.Requests, r => r.Text.Contains("JOIN sys.database_recovery_status", StringComparison.Ordinal));
        Assert.Equal(["Sales", "Archive"], history.Operations.Select(o => o.Database));
        Assert.Contains(history.Notes, n => n.Contains("AUTO_CLOSE", StringComparison.Ordinal) && n.Contains("[Archive]", StringComparison.Ordinal) && n.Contains("renamed", StringComparison.Ordinal));
        Assert.Contains(history.Notes, n => n.Contains("AUTO_CLOSE", StringComparison.Ordinal) && n.Contains("CommandLog", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Rows_of_third_party_backup_software_in_a_commandlog_are_counted_in_a_note_and_not_imported()
    {
        // Given: DatabaseBackup run with @BackupSoftware = 'LITESPEED' and 'SQLBACKUP' beside a native backup
        var msdb = MsdbRows();
        var log = CommandLogRows()
            .Row(10, "Sales", "BACKUP_DATABASE", @"BACKUP DATABASE [Sales] TO DISK = N'X:\b\Sales_1.bak'", Night, Night.AddSeconds(60), 0, null)
            .Row(11, "Sales", "xp_backup_database", @"DECLARE @ReturnCode int EXECUTE @ReturnCode = [master].dbo.[xp_backup_database] @database = N'Sales', @filename = N'X:\b\Sales_2.bak'", Night.AddHours(1), Night.AddHours(1).AddSeconds(30), 0, null)
            .Row(12, "Ops", "xp_backup_log", @"EXECUTE [master].dbo.[xp_backup_log] @database = N'Ops', @filename = N'X:\b\Ops.trn'", Night.AddHours(2), Night.AddHours(2).AddSeconds(3), 0, null)
            .Row(13, "Ops", "sqlbackup", @"EXECUTE [master].dbo.[sqlbackup] '-SQL ""BACKUP DATABASE [Ops] TO DISK = ''X:\b\Ops.sqb''""'", Night.AddHours(3), Night.AddHours(3).AddSeconds(9), 0, null);
        await using var server = TdsServerDouble.Start(Server(Columns2022(), msdb, log));

        // When
        var history = await new ServerHistoryReader(new SqlConnectionFactory(TdsClient.Settings(server)))
            .ReadAsync(new ServerHistoryRequest(Night.AddDays(-1), [], null), CancellationToken.None);

        // Then the native backup is imported, and the three others are a note naming their software's commands
        Assert.Equal([("DBA", 1)], history.CommandLogs);
        Assert.Contains(history.Notes, n => n == "[DBA].dbo.CommandLog: 3 backup rows of third-party backup software (@BackupSoftware: sqlbackup 1, "
            + "xp_backup_database 1, xp_backup_log 1) counted, not imported: their commands are that software's own, whose options BackupXe does not read");
        Assert.Contains(server.Requests, r => r.Text.Contains("N'xp_backup_database'", StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_commandlog_this_replica_cannot_read_is_a_note_and_the_rest_is_imported()
    {
        // Given: DBA has a CommandLog; AGDB is a non-readable availability-group secondary (error 976 on any read)
        var msdb = MsdbRows().Row(1, "Sales", null, "D", false, false, true, Night, Night.AddSeconds(60), 20 * GiB, 6 * GiB, null, null, 8, @"X:\b\Sales_1.bak", 2, 0, null, null, null, null);
        var log = CommandLogRows().Row(10, "Sales", "BACKUP_DATABASE", @"BACKUP DATABASE [Sales] TO DISK = N'X:\b\Sales_1.bak'", Night.AddMilliseconds(-400), Night.AddSeconds(60.3), 0, null);
        const string notReadable = "The target database, 'AGDB', is participating in an availability group and is currently not accessible for queries.";
        var script = Server(Columns2022(), msdb, log, Databases((1, "master", false), (7, "DBA", false), (8, "AGDB", false), (10, "AGDB2", false)))
            .On(r => Equals(r.Parameters.GetValueOrDefault("@database"), "AGDB"), _ => new TdsResponse().Error(976, 14, notReadable))
            .On(r => Equals(r.Parameters.GetValueOrDefault("@database"), "AGDB2"), _ => TdsResponse.Of(new TdsResultSet(TdsColumn.Int("has_command_log")).Row(1)))
            .On("FROM [AGDB2].dbo.CommandLog", _ => new TdsResponse().Error(976, 14, notReadable.Replace("AGDB", "AGDB2", StringComparison.Ordinal)));
        await using var server = TdsServerDouble.Start(script);

        // When
        var history = await new ServerHistoryReader(new SqlConnectionFactory(TdsClient.Settings(server)))
            .ReadAsync(new ServerHistoryRequest(Night.AddDays(-1), [], null), CancellationToken.None);

        // Then
        Assert.Equal(2, history.Operations.Count);
        Assert.Equal([("DBA", 1)], history.CommandLogs);
        Assert.Contains(history.Notes, n => n.StartsWith("[AGDB].dbo.CommandLog not read (error 976", StringComparison.Ordinal));
        Assert.Contains(history.Notes, n => n.StartsWith("[AGDB2].dbo.CommandLog not read (error 976", StringComparison.Ordinal));
    }

    [Fact]
    public void Quotes_a_commandlog_database_name_as_quotename_does()
    {
        Assert.StartsWith("SELECT ID, DatabaseName, CommandType, Command, StartTime, EndTime, ErrorNumber, ErrorMessage\nFROM [DBA]]; DROP TABLE x; --].dbo.CommandLog", CommandLogHistory.Query("DBA]; DROP TABLE x; --", 0));
    }
}
