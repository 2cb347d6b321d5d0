using System.Data;
using BackupXe.Core.Events;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live.EventFile;
using BackupXe.SqlServer.Msdb;
using BackupXe.SqlServer.Requirements;
using BackupXe.SqlServer.Sessions;
using BackupXe.Sources.XeXml;
using BackupXe.Tests.Support;
using Microsoft.Data.SqlClient;
using Xunit;

namespace BackupXe.Tests.SqlServer;

/// <summary>
/// What docs/server-conformance.md says a server does, checked on a real SQL Server: one check per finding that a
/// server can show (the rest are named in docs/development.md). Skipped, visibly, unless BACKUPXE_TEST_SQL is set; the
/// backup checks also need BACKUPXE_TEST_BACKUP_DIR. Sessions are named BackupXe_IntegrationTest_* and dropped again.
/// </summary>
public sealed partial class ConformanceIntegrationTests
{
    private static readonly CancellationToken None = CancellationToken.None;

    [Fact]
    public async Task The_permissions_BackupXe_checks_are_the_servers_own_names_and_agree_with_HAS_PERMS_BY_NAME_on_a_real_server()
    {
        // Given the server's own list of server permissions and the login's facts as BackupXe reads them
        var factory = SqlServerIntegrationTests.Factory();
        var facts = await new SessionClient(factory, new CaptureSessionSettings()).ReadServerFactsAsync(None);
        await using var connection = await factory.OpenAsync(None);
        var builtIn = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        await using (var command = factory.Command(connection, "SELECT permission_name FROM sys.fn_builtin_permissions(N'SERVER');"))
        await using (var reader = await command.ExecuteReaderAsync(None))
        {
            while (await reader.ReadAsync(None))
            {
                builtIn.Add(reader.GetString(0));
            }
        }

        // Then every name BackupXe compares with exists there (the 2022 split ones from 2022 on), and a login the
        // server says may ALTER ANY EVENT SESSION and VIEW SERVER STATE gets no permission problem from BackupXe
        List<string> names = [ServerRequirements.AlterAnyEventSession, ServerRequirements.ViewServerState];
        if (ServerRequirements.HasGranularPermissions(facts))
        {
            names.AddRange([ServerRequirements.CreateAnyEventSession, ServerRequirements.DropAnyEventSession, ServerRequirements.AlterAnyEventSessionEnable,
                ServerRequirements.AlterAnyEventSessionDisable, ServerRequirements.ViewServerPerformanceState]);
        }

        Assert.All(names, name => Assert.Contains(name, builtIn));
        await using var held = factory.Command(connection,
            "SELECT HAS_PERMS_BY_NAME(NULL, NULL, N'ALTER ANY EVENT SESSION') & HAS_PERMS_BY_NAME(NULL, NULL, N'VIEW SERVER STATE');");
        if (Convert.ToInt32(await held.ExecuteScalarAsync(None), System.Globalization.CultureInfo.InvariantCulture) == 1)
        {
            Assert.DoesNotContain(ServerRequirements.Check(facts), p => p.Kind == RequirementKind.MissingPermission);
            Assert.Empty(ServerRequirements.CheckArming(facts));
        }
    }

    [Fact]
    public async Task The_event_stream_function_returns_int_and_image_columns_on_a_real_server()
    {
        // Described without running it (the function streams until cancelled); the reader takes image and varbinary alike.
        var factory = SqlServerIntegrationTests.Factory();
        await using var connection = await factory.OpenAsync(None);
        await using var command = factory.Command(connection, "EXEC sys.sp_describe_first_result_set @tsql = @text;");
        command.Parameters.Add(new SqlParameter("@text", SqlDbType.NVarChar, -1)
        {
            Value = BackupXe.SqlServer.Live.EventStream.SqlEventStreamReader.Query.Replace("@session", "N'BackupXe_IntegrationTest'", StringComparison.Ordinal),
        });
        var columns = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        await using (var reader = await command.ExecuteReaderAsync(None))
        {
            while (await reader.ReadAsync(None))
            {
                columns[reader.GetString(reader.GetOrdinal("name"))] = reader.GetString(reader.GetOrdinal("system_type_name"));
            }
        }

        Assert.Equal("int", columns["type"]);
        Assert.Equal("image", columns["data"]);
    }

    [Fact]
    public async Task The_in_memory_recovery_wait_the_session_filters_on_is_in_the_servers_wait_map_on_a_real_server()
    {
        // The session lists XTP_RECOVERY and WAIT_XTP_RECOVERY; a name a build lacks matches nothing, so at least one
        // must be there, or in-memory restores would never be captured.
        var factory = SqlServerIntegrationTests.Factory();
        await using var connection = await factory.OpenAsync(None);
        await using var command = factory.Command(connection,
            "SELECT COUNT(*) FROM sys.dm_xe_map_values WHERE name = N'wait_types' AND map_value IN (N'XTP_RECOVERY', N'WAIT_XTP_RECOVERY');");

        Assert.True(Convert.ToInt32(await command.ExecuteScalarAsync(None), System.Globalization.CultureInfo.InvariantCulture) > 0,
            "neither XTP_RECOVERY nor WAIT_XTP_RECOVERY is a wait_types map value on this server");
    }

    [Fact]
    public async Task The_read_functions_errors_are_the_numbers_BackupXe_handles_on_a_real_server()
    {
        // Given a running test session with an event file
        var factory = SqlServerIntegrationTests.Factory();
        var client = new SessionClient(factory, new CaptureSessionSettings("BackupXe_IntegrationTest_Errors", "BackupXe_IntegrationTest_Errors.xel", StartWithServer: false));
        var installed = await client.InstallAsync(None);
        Skipped.Unless(installed.Problems.Count == 0, "the test login or server cannot host the session: " + string.Join(" ", installed.Problems.Select(p => p.Message)),
            "grant the login what docs/permissions.md lists for session install, or point BACKUPXE_TEST_SQL at a server that allows it");
        try
        {
            var file = installed.After!.CurrentFile!;
            var classifier = new SqlFailureClassifier();

            // 25722: an offset that is no event's start in an existing file (BackupXe's own read query)
            var badOffset = await Assert.ThrowsAsync<SqlException>(async () =>
                await new SqlEventFileReader(factory, SqlEventFileReader.PatternFor(file)).ReadAsync(new EventFilePosition(file, 1), 10, None).ToListAsync());
            Assert.Equal(SqlErrorNumbers.EventFileOffsetInvalid, badOffset.Number);
            Assert.Equal(LiveFailureKind.Fatal, classifier.Classify(badOffset));

            // 25718: a file that is not there, given as the position to resume after
            var gone = file[..^4] + "_gone.xel";
            var missing = await Assert.ThrowsAsync<SqlException>(async () =>
                await new SqlEventFileReader(factory, SqlEventFileReader.PatternFor(file)).ReadAsync(new EventFilePosition(gone, 0), 10, None).ToListAsync());
            Assert.Equal(SqlErrorNumbers.EventFileNameInvalid, missing.Number);

            // 25719: a file name without an offset, which BackupXe never sends
            await using var connection = await factory.OpenAsync(None);
            await using var unpaired = factory.Command(connection, "SELECT TOP (1) file_name FROM sys.fn_xe_file_target_read_file(@path, NULL, @file, NULL);");
            unpaired.Parameters.Add(new SqlParameter("@path", SqlDbType.NVarChar, 260) { Value = SqlEventFileReader.PatternFor(file) });
            unpaired.Parameters.Add(new SqlParameter("@file", SqlDbType.NVarChar, 260) { Value = file });
            var pairing = await Assert.ThrowsAsync<SqlException>(() => unpaired.ExecuteScalarAsync(None));
            Assert.Equal(SqlErrorNumbers.EventFileInitialArgumentsUnpaired, pairing.Number);
        }
        finally
        {
            await client.UninstallAsync(None);
        }
    }

    [Fact]
    public async Task A_capture_windows_session_is_created_started_and_stopped_with_startup_state_off_on_a_real_server()
    {
        // Given no session of the test's name, and an arming that may create it
        var factory = SqlServerIntegrationTests.Factory();
        var settings = new CaptureSessionSettings("BackupXe_IntegrationTest_Arm", "BackupXe_IntegrationTest_Arm.xel", StartWithServer: false);
        var client = new SessionClient(factory, settings);
        if ((await client.StatusAsync(None)).Exists)
        {
            await client.UninstallAsync(None);
        }

        var arming = new SessionArming(factory, settings, createWhenMissing: true);
        try
        {
            // When it is armed, disarmed, armed again and disarmed again
            var created = await arming.ArmAsync(None);
            Skipped.Unless(created.Outcome != ArmingOutcome.Refused, "the test login cannot arm the session: " + string.Join(" ", created.Problems.Select(p => p.Message)),
                "grant the login what docs/permissions.md lists for capture windows");
            Assert.Equal(ArmingOutcome.Created, created.Outcome);
            Assert.True(await arming.DisarmAsync(None));
            var stopped = await client.StatusAsync(None);
            var started = await arming.ArmAsync(None);
            var running = await client.StatusAsync(None);
            Assert.True(await arming.DisarmAsync(None));

            // Then the server shows it created with STARTUP_STATE OFF, stopped, then started by the START statement
            Assert.Equal((true, false, false), (stopped.Exists, stopped.Running, stopped.StartsWithServer == true));
            Assert.Equal(ArmingOutcome.Started, started.Outcome);
            Assert.True(running.Running);
            Assert.False((await client.StatusAsync(None)).Running);
        }
        finally
        {
            await client.UninstallAsync(None);
        }
    }

    [Fact]
    public async Task A_backup_run_from_another_database_is_read_back_under_its_own_with_the_database_name_action_present_on_a_real_server()
    {
        // Given a session that carries the sqlserver.database_name action (a DBA's own session may), and a connection
        // whose current database is not the one backed up
        var server = LiveServerIntegrationTests.TestServer.FromEnvironment();
        var factory = SqlServerIntegrationTests.Factory();
        const string session = "BackupXe_IntegrationTest_Action";
        await using var connection = await factory.OpenAsync(None);
        await using (var current = factory.Command(connection, "SELECT DB_NAME();"))
        {
            Skipped.Unless(!string.Equals((string?)await current.ExecuteScalarAsync(None), server.Database, StringComparison.OrdinalIgnoreCase),
                "the connection's database is the one backed up, so the action and the field would agree",
                "set BACKUPXE_TEST_DATABASE to a database other than the one BACKUPXE_TEST_SQL connects to");
        }

        await ExecuteAsync(factory, connection, $"""
            IF EXISTS (SELECT 1 FROM sys.server_event_sessions WHERE name = N'{session}') DROP EVENT SESSION [{session}] ON SERVER;
            CREATE EVENT SESSION [{session}] ON SERVER
                ADD EVENT sqlserver.backup_restore_progress_trace (ACTION (sqlserver.database_name, sqlserver.session_id))
                ADD TARGET package0.event_file (SET filename = N'{session}.xel')
                WITH (MAX_DISPATCH_LATENCY = 1 SECONDS, STARTUP_STATE = OFF);
            ALTER EVENT SESSION [{session}] ON SERVER STATE = START;
            """);
        try
        {
            // When a COPY_ONLY backup runs on that connection, the session is stopped (flushing it) and its file read back
            await using (var backup = factory.Command(connection, "BACKUP DATABASE @database TO DISK = @path WITH COPY_ONLY;"))
            {
                backup.Parameters.Add(new SqlParameter("@database", SqlDbType.NVarChar, 128) { Value = server.Database });
                backup.Parameters.Add(new SqlParameter("@path", SqlDbType.NVarChar, 260) { Value = server.BackupPath("action") });
                backup.CommandTimeout = 600;
                await backup.ExecuteNonQueryAsync(None);
            }

            await ExecuteAsync(factory, connection, $"ALTER EVENT SESSION [{session}] ON SERVER STATE = STOP;");
            var rows = await new SqlEventFileReader(factory, session + "*.xel").ReadAsync(null, 100_000, None).ToListAsync();
            var parser = new XeEventDataReader();
            var status = new SourceStatus();
            var events = rows.Select(row => parser.Read(row.EventData, status, row.Position.ToString())).OfType<ProgressTraceEvent>().ToList();

            // Then the action is there with the connection's database, and every event is still the backed-up database's
            Assert.NotEmpty(events);
            Assert.Contains(rows, row => row.EventData.Contains("<action name=\"database_name\"", StringComparison.Ordinal));
            Assert.All(events, e => Assert.Equal(server.Database, e.DatabaseName, ignoreCase: true));
        }
        finally
        {
            await ExecuteAsync(factory, connection, $"IF EXISTS (SELECT 1 FROM sys.server_event_sessions WHERE name = N'{session}') DROP EVENT SESSION [{session}] ON SERVER;");
        }
    }

    [Fact]
    public async Task An_unencrypted_backup_is_read_from_msdb_as_not_encrypted_on_a_real_server()
    {
        // Given a COPY_ONLY backup without ENCRYPTION, just taken
        var server = LiveServerIntegrationTests.TestServer.FromEnvironment();
        await server.BackupAsync(server.BackupPath("encryption"));
        var factory = SqlServerIntegrationTests.Factory();

        // When msdb's history of that database is imported, and its key_algorithm read as the server wrote it
        var history = await new ServerHistoryReader(factory).ReadAsync(new ServerHistoryRequest(DateTime.Now.AddDays(-1), [server.Database], null), None);
        await using var connection = await factory.OpenAsync(None);
        await using var raw = factory.Command(connection,
            """
            IF COL_LENGTH(N'msdb.dbo.backupset', N'key_algorithm') IS NOT NULL
                EXEC sys.sp_executesql N'SELECT TOP (1) key_algorithm FROM msdb.dbo.backupset WHERE database_name = @d ORDER BY backup_set_id DESC;', N'@d nvarchar(128)', @d = @d;
            ELSE SELECT NULL;
            """);
        raw.Parameters.Add(new SqlParameter("@d", SqlDbType.NVarChar, 128) { Value = server.Database });

        // Then the newest operation is not called encrypted, whatever the server wrote (NULL, or NO_Encryption from 2014 on)
        var written = await raw.ExecuteScalarAsync(None);
        Assert.True(written is DBNull or null || string.Equals((string)written, MsdbBackupHistory.NoEncryption, StringComparison.OrdinalIgnoreCase),
            $"key_algorithm of an unencrypted backup is '{written}'");
        var newest = history.Operations.Where(o => o.Kind == OperationKind.Backup).MaxBy(o => o.Start);
        Assert.NotNull(newest);
        Assert.NotEqual(true, newest.Options.Encryption);
    }

    private static async Task ExecuteAsync(SqlConnectionFactory factory, SqlConnection connection, string text)
    {
        await using var command = factory.Command(connection, text);
        await command.ExecuteNonQueryAsync(None);
    }
}
