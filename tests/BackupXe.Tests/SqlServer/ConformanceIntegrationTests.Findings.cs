using System.Data;
using System.Globalization;
using BackupXe.Core.Events;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Live.RingBuffer;
using BackupXe.SqlServer.Msdb;
using BackupXe.SqlServer.Preflight;
using BackupXe.SqlServer.Requests;
using BackupXe.SqlServer.Requirements;
using BackupXe.SqlServer.Sessions;
using BackupXe.Sources.XeXml;
using BackupXe.Tests.Support;
using Microsoft.Data.SqlClient;
using Xunit;

namespace BackupXe.Tests.SqlServer;

/// <summary>
/// The real-server checks of the audit's findings on platforms (Managed Instance, the ring_buffer route), the requests
/// view, private XE objects, the history import's side effects and the session's cost (docs/server-conformance.md,
/// "Real-server checks of the audit's findings"). A check that only applies to one platform is skipped, naming it,
/// on any other. Scratch objects are named BackupXe_IntegrationTest_*_&lt;unique&gt; and dropped in finally.
/// </summary>
public sealed partial class ConformanceIntegrationTests
{
    /// <summary>sys.fn_xe_file_target_read_file's page: a local path on Managed Instance gives Msg 40538.</summary>
    private const int ManagedInstanceNeedsHttpsPath = 40538;

    /// <summary>Database engine errors 0-999: a database of a non-readable availability-group secondary.</summary>
    private const int NotAccessibleOnThisReplica = 976;

    private const string GrantSessionRights = "grant the login what docs/permissions.md lists for session install, or point BACKUPXE_TEST_SQL at a server that allows it";

    [Fact]
    public async Task On_managed_instance_a_local_event_file_is_refused_with_40538_and_the_platform_is_named_by_its_engine_edition_on_a_real_server()
    {
        // Given a server that says by its engine edition that it is Azure SQL Managed Instance
        var factory = SqlServerIntegrationTests.Factory();
        var facts = await ManagedInstanceFactsAsync(factory);

        // Then BackupXe names it by its engine edition, whatever Azure's version number, and refuses a local file before any DDL
        Assert.Equal("Azure SQL Managed Instance", ProductNames.For(facts.ProductMajorVersion, facts.EngineEdition));
        Assert.DoesNotContain(ServerRequirements.Check(facts), p => p.Kind == RequirementKind.VersionTooOld);
        Assert.Contains(ServerRequirements.Check(facts, eventFilePath: "BackupXe.xel"), p => p.Kind == RequirementKind.UnsupportedPlatform);

        // And the server itself refuses a local path to the read function with the page's error 40538
        await using var connection = await factory.OpenAsync(None);
        await using (var local = factory.Command(connection, "SELECT TOP (1) file_name FROM sys.fn_xe_file_target_read_file(N'BackupXe*.xel', NULL, NULL, NULL);"))
        {
            var refused = await Assert.ThrowsAsync<SqlException>(() => local.ExecuteScalarAsync(None));
            Assert.Equal(ManagedInstanceNeedsHttpsPath, refused.Number);
        }
    }

    [Fact]
    public async Task On_managed_instance_a_database_named_by_its_physical_name_reads_as_its_logical_name_on_a_real_server()
    {
        // Given a Managed Instance user database and its physical name, the name its backup events may carry
        var factory = SqlServerIntegrationTests.Factory();
        await ManagedInstanceFactsAsync(factory);
        await using var connection = await factory.OpenAsync(None);
        string? name = null;
        string? physical = null;
        await using (var names = factory.Command(connection,
            "SELECT TOP (1) name, physical_database_name FROM sys.databases WHERE database_id > 4 AND state = 0 ORDER BY database_id;"))
        await using (var reader = await names.ExecuteReaderAsync(None))
        {
            if (await reader.ReadAsync(None))
            {
                name = reader.GetString(0);
                physical = reader.IsDBNull(1) ? null : reader.GetString(1);
            }
        }

        Skipped.Unless(name is not null, "the instance has no online user database whose physical name could be looked up",
            "create a database on the instance (any size) and run the test again");
        Skipped.Unless(Guid.TryParse(physical, out _), $"physical_database_name of [{name}] is '{physical}', not a GUID: Microsoft's Managed Instance known-issues page says the GUIDs are to be replaced by the real names, so there is nothing to map here",
            "run it on an instance whose sys.databases.physical_database_name holds GUIDs");

        // When BackupXe's lookup is given an event that names it by that GUID, then the event carries its logical name
        var named = await new PhysicalDatabaseNames(factory).LogicalAsync(
            new ProgressTraceEvent(DateTime.UtcNow, null, OperationKind.Backup, physical, "BACKUP DATABASE started"), None);
        Assert.Equal(name, Assert.IsType<ProgressTraceEvent>(named).DatabaseName);
    }

    [Fact]
    public async Task A_ring_buffer_target_is_read_as_a_RingBufferTarget_document_with_counts_and_a_copy_only_backups_events_on_a_real_server()
    {
        // Given a running session with a ring_buffer target, as Microsoft's Managed Instance backup-monitoring page sets one up
        var server = LiveServerIntegrationTests.TestServer.FromEnvironment();
        var factory = SqlServerIntegrationTests.Factory();
        await RequireSessionRightsAsync(factory);
        var session = ScratchName("Ring");
        await using var connection = await factory.OpenAsync(None);
        await ExecuteAsync(factory, connection, $"""
            CREATE EVENT SESSION [{session}] ON SERVER
                ADD EVENT sqlserver.backup_restore_progress_trace (ACTION (sqlserver.session_id))
                ADD TARGET package0.ring_buffer
                WITH (MAX_DISPATCH_LATENCY = 1 SECONDS, STARTUP_STATE = OFF);
            ALTER EVENT SESSION [{session}] ON SERVER STATE = START;
            """);
        try
        {
            // When a COPY_ONLY backup runs and the target is read the way the ring_buffer transport reads it
            await server.BackupAsync(server.BackupPath("ring"));
            RingBufferRead? first = null;
            for (var attempt = 0; attempt < 20 && first is not { TotalEventsProcessed: > 0 }; attempt++)
            {
                await Task.Delay(TimeSpan.FromSeconds(0.5));
                first = await ReadRingBufferAsync(factory, session, previousTotal: null);
            }

            var again = await ReadRingBufferAsync(factory, session, first?.TotalEventsProcessed);

            // Then the document has the documented counts, the backup's events are read from it under its own database,
            // and a second read with nothing new brings nothing and reports nothing lost
            Assert.NotNull(first);
            Assert.True(first.TotalEventsProcessed > 0, "the ring_buffer target processed no event of the backup within 10 s");
            Assert.NotEmpty(first.NewEvents);
            Assert.All(first.NewEvents, e => Assert.Equal(server.Database, Assert.IsAssignableFrom<ProgressTraceEvent>(e).DatabaseName, ignoreCase: true));
            Assert.NotNull(again);
            Assert.False(again.Restarted);
            Assert.True(again.TotalEventsProcessed >= first.TotalEventsProcessed);
            Assert.Equal(0, again.Lost);
        }
        finally
        {
            await DropSessionAsync(factory, connection, session);
        }
    }

    [Fact]
    public async Task A_session_named_with_spaces_brackets_and_quotes_is_read_over_ring_buffer_and_dropped_on_a_real_server()
    {
        // Given a running ring_buffer session whose name is any sysname, as Microsoft's "Verbose backup trace" is, with a
        // bracket and a quote too; created with the one quoting of BackupXe (SessionName.Quote, as QUOTENAME writes it)
        var server = LiveServerIntegrationTests.TestServer.FromEnvironment();
        var factory = SqlServerIntegrationTests.Factory();
        await RequireSessionRightsAsync(factory);
        var name = string.Create(CultureInfo.InvariantCulture, $"BackupXe IntegrationTest [Verbose] 'trace' {Guid.NewGuid():N}");
        await using var connection = await factory.OpenAsync(None);
        await ExecuteAsync(factory, connection, $"""
            CREATE EVENT SESSION {SessionName.Quote(name)} ON SERVER
                ADD EVENT sqlserver.backup_restore_progress_trace (ACTION (sqlserver.session_id))
                ADD TARGET package0.ring_buffer
                WITH (MAX_DISPATCH_LATENCY = 1 SECONDS, STARTUP_STATE = OFF);
            ALTER EVENT SESSION {SessionName.Quote(name)} ON SERVER STATE = START;
            """);
        var client = new SessionClient(factory, new CaptureSessionSettings(name));
        try
        {
            // When a COPY_ONLY backup runs and the session is read as watch --transport ring_buffer reads it
            await server.BackupAsync(server.BackupPath("ringname"));
            var source = LiveSources.Open(new LiveSourceSettings(factory, new CaptureSessionSettings(name)) { Transport = LiveTransport.RingBuffer });
            using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(30));
            var status = new SourceStatus();
            TraceEvent? first = null;
            try
            {
                await foreach (var traceEvent in source.ReadEventsAsync(status, stop.Token))
                {
                    first = traceEvent;
                    break;
                }
            }
            catch (OperationCanceledException) when (stop.IsCancellationRequested)
            {
                // Nothing within 30 s: asserted below.
            }

            // Then the status query found it running, and its events came under the database backed up
            Assert.True((await client.StatusAsync(None)).Running, "the status query did not find the session by its name");
            Assert.Empty(status.Problems);
            Assert.Equal(server.Database, Assert.IsAssignableFrom<ProgressTraceEvent>(first).DatabaseName, ignoreCase: true);
        }
        finally
        {
            // And it is dropped through the drop script, which names it only through QUOTENAME
            await client.UninstallAsync(None);
            Assert.False((await client.StatusAsync(None)).Exists);
        }
    }

    [Fact]
    public async Task The_running_requests_query_returns_the_documented_types_its_reader_takes_on_a_real_server()
    {
        // Described, not run: the reader takes session_id as smallint, percent_complete as real, estimated_completion_time
        // as bigint, start_time as datetime and wait_time as int (GetInt16, GetFloat, GetInt64, GetDateTime, GetInt32)
        var factory = SqlServerIntegrationTests.Factory();
        var columns = await DescribeAsync(factory, RunningRequestReader.Query);

        Assert.Equal("smallint", columns["session_id"]);
        Assert.Equal("nvarchar(32)", columns["command"]);
        Assert.Equal("nvarchar(128)", columns["database_name"]);
        Assert.Equal("real", columns["percent_complete"]);
        Assert.Equal("bigint", columns["estimated_completion_time"]);
        Assert.Equal("datetime", columns["start_time_utc"]);
        Assert.Equal("datetime", columns["server_utc"]);
        Assert.Equal("int", columns["wait_time"]);
        Assert.Equal("nvarchar(4000)", columns["statement_text"]);
        Assert.Equal("nvarchar(60)", columns["wait_type"]);
        Assert.Equal("nvarchar(60)", columns["last_wait_type"]);
    }

    [Fact]
    public async Task A_backup_run_from_another_database_shows_in_the_requests_view_running_in_its_own_and_named_by_its_statement_with_its_start_in_utc_on_a_real_server()
    {
        // Given a login that sees every session's requests, and a connection whose database is not the one backed up
        var server = LiveServerIntegrationTests.TestServer.FromEnvironment();
        var factory = SqlServerIntegrationTests.Factory();
        var facts = await new SessionClient(factory, new CaptureSessionSettings()).ReadServerFactsAsync(None);
        Skipped.Unless(RunningRequestReader.SeesAllSessions(facts), "the test login sees only its own session's requests",
            "grant the login VIEW SERVER STATE (SQL Server 2022: VIEW SERVER PERFORMANCE STATE)");
        await using var connection = await factory.OpenAsync(None);
        var current = (string)(await ScalarAsync(factory, connection, "SELECT DB_NAME();"))!;
        Skipped.Unless(!string.Equals(current, server.Database, StringComparison.OrdinalIgnoreCase),
            "the connection's database is the one backed up, so the request's database and the backup's would agree",
            "set BACKUPXE_TEST_DATABASE to a database other than the one BACKUPXE_TEST_SQL connects to");
        var spid = Convert.ToInt32(await ScalarAsync(factory, connection, "SELECT @@SPID;"), CultureInfo.InvariantCulture);
        var before = ServerUtc(await ScalarAsync(factory, connection, "SELECT SYSUTCDATETIME();"));

        // When a COPY_ONLY backup runs on it while BackupXe's reader polls sys.dm_exec_requests
        var reader = new RunningRequestReader(factory);
        var backup = BackupOnAsync(factory, connection, server);
        var seen = await WhileRunningAsync(backup, async () =>
        {
            var snapshot = await reader.ReadVisibleAsync(None);
            Assert.Null(snapshot.Limitation);
            return snapshot.Requests.FirstOrDefault(r => r.SessionId == spid);
        });
        await backup;
        var after = ServerUtc(await ScalarAsync(factory, connection, "SELECT SYSUTCDATETIME();"));
        Skipped.Unless(seen is not null, $"the backup of [{server.Database}] ended before sys.dm_exec_requests showed it",
            "set BACKUPXE_TEST_DATABASE to a larger database, one whose backup takes a few seconds");

        // Then it is a BACKUP DATABASE, started between the two server clock reads once moved to UTC by the one-read
        // offset; database_id names the database the request runs in (the connection's), as the page defines it, and the
        // statement's text (sys.dm_exec_sql_text, parsed) names the database backed up
        Assert.StartsWith("BACKUP DATABASE", seen.Command, StringComparison.OrdinalIgnoreCase);
        Assert.InRange(seen.StartUtc, before.AddSeconds(-1), after.AddSeconds(1));
        Assert.True(string.Equals(current, seen.RunsIn, StringComparison.OrdinalIgnoreCase),
            $"sys.dm_exec_requests named [{seen.RunsIn}] for a BACKUP of [{server.Database}] run from [{current}]: the page says database_id is the database "
            + "the request executes against, which docs/server-conformance.md and the TDS double take to be the connection's");
        Assert.True(string.Equals(server.Database, seen.Database, StringComparison.OrdinalIgnoreCase),
            $"the running statement's text named [{seen.Database}] for a BACKUP of [{server.Database}]: sys.dm_exec_sql_text or its offsets are not read as the pages say");
    }

    [Fact]
    public async Task A_restore_verifyonly_shows_as_a_RESTORE_command_that_the_reader_leaves_out_on_a_real_server()
    {
        // Given a fresh COPY_ONLY backup file and a login that sees every session's requests
        var server = LiveServerIntegrationTests.TestServer.FromEnvironment();
        var factory = SqlServerIntegrationTests.Factory();
        var facts = await new SessionClient(factory, new CaptureSessionSettings()).ReadServerFactsAsync(None);
        Skipped.Unless(RunningRequestReader.SeesAllSessions(facts), "the test login sees only its own session's requests",
            "grant the login VIEW SERVER STATE (SQL Server 2022: VIEW SERVER PERFORMANCE STATE)");
        var path = server.BackupPath("verify");
        await server.BackupAsync(path);
        await using var connection = await factory.OpenAsync(None);
        await using var watcher = await factory.OpenAsync(None);
        var spid = Convert.ToInt32(await ScalarAsync(factory, connection, "SELECT @@SPID;"), CultureInfo.InvariantCulture);

        // When RESTORE VERIFYONLY reads it (media only: nothing is restored) while the view is polled for that session
        var verify = Task.Run(async () =>
        {
            await using var command = factory.Command(connection, "RESTORE VERIFYONLY FROM DISK = @path;");
            command.Parameters.Add(new SqlParameter("@path", SqlDbType.NVarChar, 260) { Value = path });
            command.CommandTimeout = 600;
            await command.ExecuteNonQueryAsync(None);
        });
        var seen = await WhileRunningAsync(verify, async () =>
        {
            await using var command = factory.Command(watcher, "SELECT command FROM sys.dm_exec_requests WHERE session_id = @spid;");
            command.Parameters.Add(new SqlParameter("@spid", SqlDbType.Int) { Value = spid });
            return await command.ExecuteScalarAsync(None) as string;
        });
        await verify;
        Skipped.Unless(seen is not null, "RESTORE VERIFYONLY ended before sys.dm_exec_requests showed it",
            "set BACKUPXE_TEST_DATABASE to a larger database, one whose backup takes a few seconds to read");

        // Then its command starts with RESTORE, as the page's list of commands suggests, and BackupXe does not take it for a restore
        Assert.StartsWith("RESTORE", seen.Trim(), StringComparison.OrdinalIgnoreCase);
        Assert.False(RunningRequestReader.IsBackupOrRestore(seen), $"'{seen}' would be shown as a restore");
    }

    [Fact]
    public async Task The_session_names_only_events_this_build_allows_in_CREATE_EVENT_SESSION_and_the_throughput_event_when_the_build_has_one_on_a_real_server()
    {
        // Given BackupXe's session installed under a scratch name, and the capture events check finds on this build
        var factory = SqlServerIntegrationTests.Factory();
        var session = ScratchName("Private");
        var client = new SessionClient(factory, new CaptureSessionSettings(session, session + ".xel", StartWithServer: false));
        var installed = await client.InstallAsync(None);
        Skipped.Unless(installed.Problems.Count == 0, "the test login or server cannot host the session: " + string.Join(" ", installed.Problems.Select(p => p.Message)), GrantSessionRights);
        try
        {
            await using var connection = await factory.OpenAsync(None);
            var available = new List<string>();
            await using (var command = factory.Command(connection, PreflightQueries.Events))
            await using (var reader = await command.ExecuteReaderAsync(None))
            {
                while (await reader.ReadAsync(None))
                {
                    available.Add(reader.GetString(0));
                }
            }

            // When the session's events are joined to sys.dm_xe_objects
            var events = new Dictionary<string, string?>(StringComparer.OrdinalIgnoreCase);
            await using (var command = factory.Command(connection, """
                SELECT e.package + N'.' + e.name, o.capabilities_desc
                FROM sys.server_event_sessions AS s
                JOIN sys.server_event_session_events AS e ON e.event_session_id = s.event_session_id
                JOIN sys.dm_xe_packages AS p ON p.name = e.package
                JOIN sys.dm_xe_objects AS o ON o.package_guid = p.guid AND o.name = e.name AND o.object_type = N'event'
                WHERE s.name = @session;
                """))
            {
                command.Parameters.Add(new SqlParameter("@session", SqlDbType.NVarChar, 128) { Value = session });
                await using var reader = await command.ExecuteReaderAsync(None);
                while (await reader.ReadAsync(None))
                {
                    events[reader.GetString(0)] = reader.IsDBNull(1) ? null : reader.GetString(1);
                }
            }

            // Then none is private, and the throughput event is there exactly when check finds a usable one
            Assert.Contains("sqlserver.backup_restore_progress_trace", events.Keys);
            Assert.All(events, e => Assert.False(e.Value?.Contains("private", StringComparison.OrdinalIgnoreCase) == true, $"{e.Key} is private: {e.Value}"));
            var throughput = available.Where(name => name.Contains("throughput", StringComparison.Ordinal)).ToList();
            Assert.Equal(throughput.Count > 0, events.Keys.Any(name => name.Contains("throughput", StringComparison.Ordinal)));
        }
        finally
        {
            await client.UninstallAsync(None);
        }
    }

    [Fact]
    public async Task A_private_event_is_refused_by_CREATE_EVENT_SESSION_on_a_real_server()
    {
        // Given an event this build lists as private in sys.dm_xe_objects
        var factory = SqlServerIntegrationTests.Factory();
        await RequireSessionRightsAsync(factory);
        await using var connection = await factory.OpenAsync(None);
        string? package = null;
        string? name = null;
        await using (var command = factory.Command(connection, """
            SELECT TOP (1) p.name, o.name
            FROM sys.dm_xe_objects AS o
            JOIN sys.dm_xe_packages AS p ON p.guid = o.package_guid
            WHERE o.object_type = N'event' AND o.capabilities_desc LIKE N'%private%'
            ORDER BY p.name, o.name;
            """))
        await using (var reader = await command.ExecuteReaderAsync(None))
        {
            if (await reader.ReadAsync(None))
            {
                (package, name) = (reader.GetString(0), reader.GetString(1));
            }
        }

        Skipped.Unless(name is not null, "this build lists no private event in sys.dm_xe_objects", "run it on a build whose sys.dm_xe_objects has an event whose capabilities_desc says private");

        // When a session naming it is created
        var session = ScratchName("PrivateRefused");
        try
        {
            var refused = await Record.ExceptionAsync(() => ExecuteAsync(factory, connection,
                $"CREATE EVENT SESSION [{session}] ON SERVER ADD EVENT {Bracket(package!)}.{Bracket(name)} ADD TARGET package0.ring_buffer WITH (STARTUP_STATE = OFF);"));

            // Then the server refuses it, as the page says of private objects, and no session is left
            Assert.True(refused is SqlException, $"CREATE EVENT SESSION accepted the private event {package}.{name}");
            Assert.Null(await ScalarAsync(factory, connection, $"SELECT 1 FROM sys.server_event_sessions WHERE name = N'{session}';"));
        }
        finally
        {
            await DropSessionAsync(factory, connection, session);
        }
    }

    [Fact]
    public async Task The_history_import_sends_and_reads_the_documented_types_and_completes_on_a_real_server()
    {
        // Given the server's own catalog of the columns the import compares with and reads
        var factory = SqlServerIntegrationTests.Factory();
        await using var connection = await factory.OpenAsync(None);

        // Then @since, sent as datetime, has backup_start_date's type, and the AUTO_CLOSE flag and the GUID have the page's types
        Assert.Equal("datetime", (string?)await ScalarAsync(factory, connection,
            "SELECT TYPE_NAME(system_type_id) FROM msdb.sys.columns WHERE object_id = OBJECT_ID(N'msdb.dbo.backupset') AND name = N'backup_start_date';"));
        Assert.Equal("bit", (string?)await ScalarAsync(factory, connection,
            "SELECT TYPE_NAME(system_type_id) FROM sys.all_columns WHERE object_id = OBJECT_ID(N'sys.databases') AND name = N'is_auto_close_on';"));
        Assert.Equal("uniqueidentifier", (string?)await ScalarAsync(factory, connection,
            "SELECT TYPE_NAME(system_type_id) FROM sys.all_columns WHERE object_id = OBJECT_ID(N'sys.database_recovery_status') AND name = N'database_guid';"));

        // And the import of a day of msdb and CommandLog history runs through on this server
        var history = await new ServerHistoryReader(factory).ReadAsync(new ServerHistoryRequest(DateTime.Now.AddDays(-1), [], null), None);
        Assert.False(string.IsNullOrEmpty(history.ServerName));
    }

    [Fact]
    public async Task An_auto_close_database_is_named_by_the_history_import_and_not_looked_into_on_a_real_server()
    {
        // Given a scratch database with AUTO_CLOSE on (created only when the login may create databases)
        var factory = SqlServerIntegrationTests.Factory();
        await using var connection = await factory.OpenAsync(None);
        var mayCreate = Convert.ToInt32(await ScalarAsync(factory, connection,
            "SELECT HAS_PERMS_BY_NAME(NULL, NULL, N'CREATE ANY DATABASE') | HAS_PERMS_BY_NAME(N'master', N'DATABASE', N'CREATE DATABASE');"), CultureInfo.InvariantCulture);
        Skipped.Unless(mayCreate == 1, "the test login may not create a database", "grant it CREATE ANY DATABASE (or dbcreator) on a test server");
        var database = ScratchName("AutoClose");
        await ExecuteAsync(factory, connection, $"CREATE DATABASE [{database}]; ALTER DATABASE [{database}] SET AUTO_CLOSE ON;");
        try
        {
            var others = Convert.ToInt32(await ScalarAsync(factory, connection,
                "SELECT COUNT(*) FROM sys.databases WHERE is_auto_close_on = 1 AND state = 0;"), CultureInfo.InvariantCulture);

            // When the history is imported
            var history = await new ServerHistoryReader(factory).ReadAsync(new ServerHistoryRequest(DateTime.Now.AddDays(-1), [], null), None);

            // Then the server reports its AUTO_CLOSE as the import reads it, and both the GUID lookup and the CommandLog search
            // say they left it alone (the notes name five such databases, then "and N more")
            var notes = history.Notes.Where(n => n.Contains("AUTO_CLOSE", StringComparison.Ordinal)).ToList();
            Assert.Equal(2, notes.Count);
            Assert.All(notes, note => Assert.True(note.Contains($"[{database}]", StringComparison.Ordinal) || (others > 5 && note.Contains(" more", StringComparison.Ordinal)), note));
        }
        finally
        {
            await ExecuteAsync(factory, connection, $"IF DB_ID(N'{database}') IS NOT NULL DROP DATABASE [{database}];");
        }
    }

    [Fact]
    public async Task A_database_of_a_non_readable_availability_group_secondary_fails_alone_in_the_history_import_on_a_real_server()
    {
        // Given a database this replica holds as a secondary whose role allows no connections (read only: nothing is changed)
        var factory = SqlServerIntegrationTests.Factory();
        await using var connection = await factory.OpenAsync(None);
        var database = await ScalarAsync(factory, connection, """
            IF CONVERT(int, SERVERPROPERTY('IsHadrEnabled')) = 1
                SELECT TOP (1) d.name
                FROM sys.databases AS d
                JOIN sys.dm_hadr_availability_replica_states AS rs ON rs.replica_id = d.replica_id AND rs.is_local = 1 AND rs.role = 2
                JOIN sys.availability_replicas AS ar ON ar.replica_id = d.replica_id
                WHERE ar.secondary_role_allow_connections = 0
                ORDER BY d.name;
            """) as string;
        Skipped.Unless(database is not null, "the server is not the secondary replica of an availability group whose secondary role allows no connections",
            "point BACKUPXE_TEST_SQL at such a secondary replica (SECONDARY_ROLE (ALLOW_CONNECTIONS = NO))");

        // When the database is queried, and the import is told to read its CommandLog
        var direct = await Record.ExceptionAsync(() => ScalarAsync(factory, connection, $"SELECT COUNT(*) FROM {CommandLogHistory.QuoteName(database)}.sys.objects;"));
        var history = await new ServerHistoryReader(factory).ReadAsync(new ServerHistoryRequest(DateTime.Now.AddDays(-1), [], database), None);

        // Then the server raises 976 for it, and the import goes on with a note naming it instead of failing
        Assert.Equal(NotAccessibleOnThisReplica, Assert.IsType<SqlException>(direct).Number);
        Assert.Contains(history.Notes, n => n.Contains(CommandLogHistory.QuoteName(database), StringComparison.Ordinal));
    }

    [Fact]
    public async Task The_installed_session_keeps_the_documented_bounds_on_its_cost_on_a_real_server()
    {
        // Given BackupXe's session installed as `session install` does (STARTUP_STATE ON), under a scratch name
        var factory = SqlServerIntegrationTests.Factory();
        var session = ScratchName("Cost");
        var permanent = new SessionClient(factory, new CaptureSessionSettings(session, session + ".xel"));
        var installed = await permanent.InstallAsync(None);
        Skipped.Unless(installed.Problems.Count == 0, "the test login or server cannot host the session: " + string.Join(" ", installed.Problems.Select(p => p.Message)), GrantSessionRights);
        try
        {
            // When the server's catalog of it is read, then that of the same session as a watch creates it (STARTUP_STATE OFF)
            await using var connection = await factory.OpenAsync(None);
            var options = await SessionOptionsAsync(factory, connection, session);
            var fields = await FileTargetFieldsAsync(factory, connection, session);
            var predicates = await EventPredicatesAsync(factory, connection, session);
            var reinstalled = await new SessionClient(factory, new CaptureSessionSettings(session, session + ".xel", StartWithServer: false)).InstallAsync(None);
            Assert.Empty(reinstalled.Problems);
            var forAWatch = await SessionOptionsAsync(factory, connection, session);

            // Then the buffers, loss mode, latency and file target are bounded as docs/performance.md counts them, the wait
            // events are filtered on wait types, and only `session install` starts it with the server
            Assert.Equal(("ALLOW_SINGLE_EVENT_LOSS", 2000, 4096, "NONE", true), options);
            Assert.Equal("64", fields["max_file_size"]);
            Assert.Equal("4", fields["max_rollover_files"]);
            Assert.Null(predicates["sqlserver.backup_restore_progress_trace"]);
            Assert.Contains("wait_type", predicates["sqlos.wait_info"], StringComparison.Ordinal);
            Assert.All(predicates.Where(p => p.Key.StartsWith("sqlos.wait_info", StringComparison.Ordinal)),
                p => Assert.Contains("wait_type", p.Value, StringComparison.Ordinal));
            Assert.False(forAWatch.StartsWithServer);
        }
        finally
        {
            await permanent.UninstallAsync(None);
        }
    }

    [Fact]
    public async Task A_freshly_installed_sessions_stored_wait_filter_is_read_and_matches_this_builds_keys_on_a_real_server()
    {
        // Given BackupXe's session just installed, so its keys are this build's
        var factory = SqlServerIntegrationTests.Factory();
        var session = ScratchName("Drift");
        var client = new SessionClient(factory, new CaptureSessionSettings(session, session + ".xel", StartWithServer: false));
        var installed = await client.InstallAsync(None);
        Skipped.Unless(installed.Problems.Count == 0, "the test login or server cannot host the session: " + string.Join(" ", installed.Problems.Select(p => p.Message)), GrantSessionRights);
        try
        {
            // When check's drift query compares it with the catalog
            var drift = await client.DriftAsync(None);

            // Then the server's stored predicate form is one BackupXe reads, and nothing has drifted
            Assert.Empty(drift.Drifts);
            Assert.Contains("wait_info", drift.Checked, StringComparison.Ordinal);
        }
        finally
        {
            await client.UninstallAsync(None);
        }
    }

    private static async Task<ServerFacts> ManagedInstanceFactsAsync(SqlConnectionFactory factory)
    {
        var facts = await new SessionClient(factory, new CaptureSessionSettings()).ReadServerFactsAsync(None);
        Skipped.Unless(facts.EngineEdition == ServerRequirements.ManagedInstanceEngineEdition,
            $"the server is not Azure SQL Managed Instance (SERVERPROPERTY('EngineEdition') is {facts.EngineEdition?.ToString(CultureInfo.InvariantCulture) ?? "NULL"}; Managed Instance is 8), and only Managed Instance requires https:// event files and names databases by a GUID",
            "point BACKUPXE_TEST_SQL at an Azure SQL Managed Instance");
        return facts;
    }

    /// <summary>A name no other run uses, so a test never touches a session or database it did not create.</summary>
    private static string ScratchName(string use) =>
        string.Create(CultureInfo.InvariantCulture, $"BackupXe_IntegrationTest_{use}_{Guid.NewGuid():N}");

    private static string Bracket(string name) => CommandLogHistory.QuoteName(name);

    private static async Task RequireSessionRightsAsync(SqlConnectionFactory factory)
    {
        var facts = await new SessionClient(factory, new CaptureSessionSettings()).ReadServerFactsAsync(None);
        var problems = ServerRequirements.Check(facts, replacesSession: true);
        Skipped.Unless(problems.Count == 0, "the test login or server cannot host a session: " + string.Join(" ", problems.Select(p => p.Message)), GrantSessionRights);
    }

    private static async Task DropSessionAsync(SqlConnectionFactory factory, SqlConnection connection, string session) =>
        await ExecuteAsync(factory, connection, $"IF EXISTS (SELECT 1 FROM sys.server_event_sessions WHERE name = N'{session}') DROP EVENT SESSION [{session}] ON SERVER;");

    private static async Task<object?> ScalarAsync(SqlConnectionFactory factory, SqlConnection connection, string text)
    {
        await using var command = factory.Command(connection, text);
        var value = await command.ExecuteScalarAsync(None);
        return value is DBNull ? null : value;
    }

    private static DateTime ServerUtc(object? value) => DateTime.SpecifyKind((DateTime)value!, DateTimeKind.Utc);

    /// <summary>Polls <paramref name="probe"/> until it sees something or <paramref name="running"/> ends.</summary>
    private static async Task<T?> WhileRunningAsync<T>(Task running, Func<Task<T?>> probe)
        where T : class
    {
        while (!running.IsCompleted)
        {
            if (await probe() is { } seen)
            {
                return seen;
            }
        }

        return null;
    }

    /// <summary>A COPY_ONLY backup of the test database on <paramref name="connection"/>, so its session and database are known.</summary>
    private static async Task BackupOnAsync(SqlConnectionFactory factory, SqlConnection connection, LiveServerIntegrationTests.TestServer server)
    {
        await Task.Yield();
        await using var backup = factory.Command(connection, "BACKUP DATABASE @database TO DISK = @path WITH COPY_ONLY;");
        backup.Parameters.Add(new SqlParameter("@database", SqlDbType.NVarChar, 128) { Value = server.Database });
        backup.Parameters.Add(new SqlParameter("@path", SqlDbType.NVarChar, 260) { Value = server.BackupPath("requests") });
        backup.CommandTimeout = 600;
        await backup.ExecuteNonQueryAsync(None);
    }

    private static async Task<Dictionary<string, string>> DescribeAsync(SqlConnectionFactory factory, string query)
    {
        await using var connection = await factory.OpenAsync(None);
        await using var command = factory.Command(connection, "EXEC sys.sp_describe_first_result_set @tsql = @text;");
        command.Parameters.Add(new SqlParameter("@text", SqlDbType.NVarChar, -1) { Value = query });
        var columns = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        await using var reader = await command.ExecuteReaderAsync(None);
        while (await reader.ReadAsync(None))
        {
            columns[reader.GetString(reader.GetOrdinal("name"))] = reader.GetString(reader.GetOrdinal("system_type_name"));
        }

        return columns;
    }

    private static async Task<RingBufferRead?> ReadRingBufferAsync(SqlConnectionFactory factory, string session, long? previousTotal)
    {
        await using var connection = await factory.OpenAsync(None);
        await using var command = factory.Command(connection, RingBufferConnections.Query);
        command.Parameters.Add(new SqlParameter("@session", SqlDbType.NVarChar, 128) { Value = session });
        await using var reader = await command.ExecuteReaderAsync(CommandBehavior.SequentialAccess, None);
        if (!await reader.ReadAsync(None) || await reader.IsDBNullAsync(0, None))
        {
            return null;
        }

        using var text = reader.GetTextReader(0);
        return RingBufferRead.Parse(text, previousTotal, new XeEventDataReader(), new SourceStatus(), session);
    }

    private static async Task<(string RetentionMode, int DispatchLatencyMs, int MaxMemoryKb, string PartitionMode, bool StartsWithServer)> SessionOptionsAsync(
        SqlConnectionFactory factory, SqlConnection connection, string session)
    {
        await using var command = factory.Command(connection, """
            SELECT event_retention_mode_desc, max_dispatch_latency, max_memory, memory_partition_mode_desc, startup_state
            FROM sys.server_event_sessions WHERE name = @session;
            """);
        command.Parameters.Add(new SqlParameter("@session", SqlDbType.NVarChar, 128) { Value = session });
        await using var reader = await command.ExecuteReaderAsync(None);
        Assert.True(await reader.ReadAsync(None), $"sys.server_event_sessions has no row for {session}");
        return (reader.GetString(0), reader.GetInt32(1), reader.GetInt32(2), reader.GetString(3), reader.GetBoolean(4));
    }

    private static async Task<Dictionary<string, string>> FileTargetFieldsAsync(SqlConnectionFactory factory, SqlConnection connection, string session)
    {
        await using var command = factory.Command(connection, """
            SELECT f.name, CONVERT(nvarchar(4000), f.value)
            FROM sys.server_event_sessions AS s
            JOIN sys.server_event_session_targets AS t ON t.event_session_id = s.event_session_id AND t.name = N'event_file'
            JOIN sys.server_event_session_fields AS f ON f.event_session_id = t.event_session_id AND f.object_id = t.target_id
            WHERE s.name = @session;
            """);
        command.Parameters.Add(new SqlParameter("@session", SqlDbType.NVarChar, 128) { Value = session });
        var fields = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        await using var reader = await command.ExecuteReaderAsync(None);
        while (await reader.ReadAsync(None))
        {
            fields[reader.GetString(0)] = reader.IsDBNull(1) ? string.Empty : reader.GetString(1);
        }

        return fields;
    }

    private static async Task<Dictionary<string, string?>> EventPredicatesAsync(SqlConnectionFactory factory, SqlConnection connection, string session)
    {
        await using var command = factory.Command(connection, """
            SELECT e.package + N'.' + e.name, e.predicate
            FROM sys.server_event_sessions AS s
            JOIN sys.server_event_session_events AS e ON e.event_session_id = s.event_session_id
            WHERE s.name = @session;
            """);
        command.Parameters.Add(new SqlParameter("@session", SqlDbType.NVarChar, 128) { Value = session });
        var predicates = new Dictionary<string, string?>(StringComparer.OrdinalIgnoreCase);
        await using var reader = await command.ExecuteReaderAsync(None);
        while (await reader.ReadAsync(None))
        {
            predicates[reader.GetString(0)] = reader.IsDBNull(1) ? null : reader.GetString(1);
        }

        return predicates;
    }
}
