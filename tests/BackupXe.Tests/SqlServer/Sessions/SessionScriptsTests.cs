using System.Text.RegularExpressions;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Preflight;
using BackupXe.SqlServer.Requirements;
using BackupXe.SqlServer.Sessions;
using Xunit;
using BackupXe.Tests.Support;

namespace BackupXe.Tests.SqlServer.Sessions;

public sealed class SessionScriptsTests
{
    private static string RepositoryFile(string relative) => File.ReadAllText(Path.Combine(Repository.Root, relative));

    public sealed class TheEmbeddedScripts
    {
        [Theory]
        [InlineData(SessionScripts.InstallFile)]
        [InlineData(SessionScripts.DropFile)]
        [InlineData(SessionScripts.StatusFile)]
        [InlineData(SessionScripts.ServerFactsFile)]
        public void Are_the_files_in_the_sessions_folder(string file)
        {
            // Given the file a DBA opens in SSMS
            var onDisk = RepositoryFile(Path.Combine("sessions", file));

            // When BackupXe reads its embedded copy
            var embedded = file switch
            {
                SessionScripts.InstallFile => SessionScripts.Install,
                SessionScripts.DropFile => SessionScripts.Drop,
                SessionScripts.StatusFile => SessionScripts.Status,
                _ => SessionScripts.ServerFacts,
            };

            // Then they are one and the same text
            Assert.Equal(onDisk, embedded);
        }

        [Theory]
        [InlineData(SessionScripts.InstallFile)]
        [InlineData(SessionScripts.DropFile)]
        [InlineData(SessionScripts.StatusFile)]
        public void Run_on_SQL_Server_2016_without_STRING_AGG_or_GO(string file)
        {
            var script = Text(file);

            Assert.DoesNotContain("STRING_AGG(", script, StringComparison.OrdinalIgnoreCase);
            Assert.DoesNotMatch(new Regex(@"^\s*GO\s*$", RegexOptions.Multiline | RegexOptions.IgnoreCase), script);
        }

        private static string Text(string file) => file switch
        {
            SessionScripts.InstallFile => SessionScripts.Install,
            SessionScripts.DropFile => SessionScripts.Drop,
            _ => SessionScripts.Status,
        };
    }

    public sealed class TheInstallScript
    {
        private readonly string _script = SessionScripts.Install.ReplaceLineEndings("\n");

        [Fact]
        public void Declares_the_session_name_and_file_at_the_top()
        {
            Assert.Contains("DECLARE @SessionName sysname = N'BackupXe';", _script);
            Assert.Contains("DECLARE @FilePath nvarchar(260) = N'BackupXe.xel';", _script);
            Order.Before(_script, "DECLARE @SessionName", "SERVERPROPERTY");
        }

        [Fact]
        public void Refuses_servers_before_2016_and_points_at_the_errorlog_route()
        {
            Assert.Contains("SERVERPROPERTY('ProductMajorVersion')", _script);
            Assert.Contains("@MajorVersion < 13", _script);
            // Managed Instance (engine edition 8) reports Azure's version numbers, not SQL Server's
            Assert.Contains("IF @EngineEdition <> 8 AND (@MajorVersion IS NULL OR @MajorVersion < 13)", _script);
            var refusal = _script[_script.IndexOf("RAISERROR", StringComparison.Ordinal)..];
            refusal = refusal[..refusal.IndexOf("RETURN;", StringComparison.Ordinal)];
            Assert.Contains("3004, 3014, 3213, 3605", refusal);
            Assert.Contains("backupxe analyze ERRORLOG", refusal);
        }

        [Fact]
        public void Captures_the_progress_trace_with_the_session_id_action_and_not_the_sessions_current_database()
        {
            Assert.Contains("ADD EVENT sqlserver.backup_restore_progress_trace(", _script);
            Assert.Contains("ACTION(sqlserver.session_id))", _script);
            Assert.DoesNotContain("sqlserver.database_name", _script);
        }

        [Fact]
        public void Captures_both_wait_events_at_opcode_End_with_the_session_id()
        {
            foreach (var waitEvent in new[] { "sqlos.wait_info(", "sqlos.wait_info_external(" })
            {
                var start = _script.IndexOf("ADD EVENT " + waitEvent, StringComparison.Ordinal);
                Assert.True(start >= 0, waitEvent);
                var definition = _script[start..(start + 200)];
                Assert.Contains("ACTION(sqlserver.session_id)", definition);
                Assert.Contains("WHERE ([opcode] = (1) AND (", definition);
            }
        }

        [Fact]
        public void Builds_the_wait_type_predicate_from_map_keys_looked_up_on_the_server()
        {
            Assert.Contains("FROM sys.dm_xe_map_values AS mv", _script);
            Assert.Contains("WHERE mv.name = N'wait_types'", _script);
            Assert.Contains("AND mv.map_value IN (", _script);
            Assert.Contains("CONVERT(nvarchar(40), mv.map_key)", _script);
            Assert.Contains("FOR XML PATH('')", _script);
        }

        [Fact]
        public void Hard_codes_no_wait_type_key()
        {
            Assert.DoesNotMatch(new Regex(@"wait_type\]?\s*=\s*\(?\s*\d"), _script);
        }

        [Theory]
        [InlineData("BACKUPBUFFER")]
        [InlineData("BACKUPIO")]
        [InlineData("BACKUPTHREAD")]
        [InlineData("BACKUP")]
        [InlineData("ASYNC_IO_COMPLETION")]
        [InlineData("IO_COMPLETION")]
        [InlineData("PREEMPTIVE_OS_WRITEFILEGATHER")]
        [InlineData("PREEMPTIVE_OS_BACKUPREAD")]
        [InlineData("XTP_RECOVERY")]
        [InlineData("WAIT_XTP_RECOVERY")] // the name sys.dm_os_wait_types documents
        public void Looks_up_every_backup_wait_type(string waitType)
        {
            var lookup = _script[_script.IndexOf("FROM sys.dm_xe_map_values", StringComparison.Ordinal)..];
            lookup = lookup[..lookup.IndexOf(");", StringComparison.Ordinal)];

            Assert.Contains($"N'{waitType}'", lookup);
        }

        [Fact]
        public void Refuses_to_create_an_unfiltered_wait_session()
        {
            Order.Before(_script, "IF @WaitPredicate IS NULL", "EXEC sys.sp_executesql @Drop");
        }

        [Fact]
        public void Adds_the_throughput_event_only_under_the_name_this_server_has()
        {
            Assert.Contains("FROM sys.dm_xe_objects AS o", _script);
            Assert.Contains("N'databases_backup_restore_throughput', N'database_backup_restore_throughput'", _script);
            Assert.Contains("CASE WHEN @ThroughputEvent IS NULL THEN N'' ELSE", _script);
        }

        [Fact]
        public void Given_a_private_throughput_event_When_the_event_is_picked_Then_it_counts_as_absent()
        {
            // sys.dm_xe_objects: a private object cannot be named in CREATE EVENT SESSION
            var lookup = _script[_script.IndexOf("SELECT TOP (1) @ThroughputEvent", StringComparison.Ordinal)..];
            lookup = lookup[..lookup.IndexOf(';', StringComparison.Ordinal)];

            Assert.Contains("o.capabilities_desc NOT LIKE N'%private%'", lookup);
            Assert.Contains("o.capabilities_desc NOT LIKE N'%private%'", PreflightQueries.Events);
        }

        [Fact]
        public void Writes_an_event_file_with_size_and_rollover_limits()
        {
            Assert.Contains("ADD TARGET package0.event_file(SET filename = N'", _script);
            Assert.Contains("max_file_size = (", _script);
            Assert.Contains("max_rollover_files = (", _script);
        }

        [Theory]
        [InlineData("MAX_DISPATCH_LATENCY = 2 SECONDS")]
        [InlineData("EVENT_RETENTION_MODE = ALLOW_SINGLE_EVENT_LOSS")]
        [InlineData("N'    STARTUP_STATE = ' + CASE WHEN @StartWithServer = 1 THEN N'ON' ELSE N'OFF' END")]
        public void Sets_the_session_options_a_live_reader_needs(string option)
        {
            Assert.Contains(option, _script);
        }

        [Fact]
        public void Starts_with_the_server_unless_made_for_one_watch()
        {
            Assert.Contains("DECLARE @StartWithServer bit = 1;", SessionScripts.RenderInstall(new CaptureSessionSettings()));
            Assert.Contains("DECLARE @StartWithServer bit = 0;", SessionScripts.RenderInstall(new CaptureSessionSettings(StartWithServer: false)));
        }

        [Fact]
        public void Is_rerunnable_drop_if_exists_then_create_then_start_if_not_running()
        {
            var drop = _script.IndexOf("IF EXISTS (SELECT 1 FROM sys.server_event_sessions WHERE name = @SessionName)\n    EXEC sys.sp_executesql @Drop;", StringComparison.Ordinal);
            var create = _script.IndexOf("EXEC sys.sp_executesql @Create;", StringComparison.Ordinal);
            var start = _script.IndexOf("    IF NOT EXISTS (SELECT 1 FROM sys.dm_xe_sessions WHERE name = @SessionName)\n        EXEC sys.sp_executesql @Start;", StringComparison.Ordinal);

            Assert.True(drop > 0 && create > drop && start > create, $"drop {drop}, create {create}, start {start}");
            Assert.Contains("ON SERVER STATE = START;", _script);
        }

        [Fact]
        public void Builds_everything_before_dropping_the_old_session()
        {
            Order.Before(_script, "DECLARE @Create", "EXEC sys.sp_executesql @Drop");
        }

        [Fact]
        public void Quotes_the_session_name_in_every_statement_it_builds()
        {
            Assert.DoesNotMatch(new Regex(@"EVENT SESSION ' \+ @SessionName"), _script);
            Assert.Contains("N'CREATE EVENT SESSION ' + QUOTENAME(@SessionName)", _script);
        }
    }

    public sealed class TheDropScript
    {
        private readonly string _script = SessionScripts.Drop.ReplaceLineEndings("\n");

        [Fact]
        public void Stops_a_running_session_then_drops_it_only_if_it_exists()
        {
            var stop = _script.IndexOf("IF EXISTS (SELECT 1 FROM sys.dm_xe_sessions WHERE name = @SessionName)\n    EXEC sys.sp_executesql @Stop;", StringComparison.Ordinal);
            var drop = _script.IndexOf("IF EXISTS (SELECT 1 FROM sys.server_event_sessions WHERE name = @SessionName)\n    EXEC sys.sp_executesql @Drop;", StringComparison.Ordinal);

            Assert.True(stop > 0 && drop > stop, $"stop {stop}, drop {drop}");
            Assert.Contains("ON SERVER STATE = STOP;", _script);
            Assert.Contains("N'DROP EVENT SESSION ' + QUOTENAME(@SessionName)", _script);
        }
    }

    public sealed class TheStatusAndFactsQueries
    {
        [Theory]
        [InlineData("sys.server_event_sessions")]
        [InlineData("sys.dm_xe_sessions")]
        [InlineData("sys.dm_xe_session_targets")]
        [InlineData("dropped_event_count")]
        [InlineData("dropped_buffer_count")]
        [InlineData("f.name = N'filename'")]
        [InlineData("is_running")]
        [InlineData("is_defined")]
        public void Status_reads(string part) => Assert.Contains(part, SessionScripts.Status);

        [Theory]
        [InlineData("SERVERPROPERTY('ProductMajorVersion')")]
        [InlineData("SERVERPROPERTY('Edition')")]
        [InlineData("SERVERPROPERTY('EngineEdition')")]
        [InlineData("sys.fn_my_permissions(NULL, N'SERVER')")]
        public void Facts_query_reads(string part) => Assert.Contains(part, SessionScripts.ServerFacts);
    }

    public sealed class RenderInstall
    {
        [Fact]
        public void With_the_defaults_is_the_script_as_shipped()
        {
            Assert.Equal(SessionScripts.Install, SessionScripts.RenderInstall(new CaptureSessionSettings()));
        }

        [Fact]
        public void Substitutes_name_path_and_limits_and_nothing_else()
        {
            // Given
            var settings = new CaptureSessionSettings("Nightly_Backups", @"D:\XE\o'brien.xel", 256, 10);

            // When
            var script = SessionScripts.RenderInstall(settings);

            // Then
            Assert.Contains("DECLARE @SessionName sysname = N'Nightly_Backups';", script);
            Assert.Contains(@"DECLARE @FilePath nvarchar(260) = N'D:\XE\o''brien.xel';", script);
            Assert.Contains("DECLARE @MaxFileSizeMb int = 256;", script);
            Assert.Contains("DECLARE @MaxRolloverFiles int = 10;", script);
            Assert.Equal(
                SessionScripts.Install.Split('\n').Length,
                script.Split('\n').Length);
        }

        [Theory]
        [InlineData("Bad Name")]
        [InlineData("x]; DROP DATABASE Sales; --")]
        [InlineData("it's")]
        [InlineData("")]
        [InlineData("1st")]
        [InlineData("Sessão")]
        public void Rejects_a_session_name_that_is_not_an_identifier(string name)
        {
            var failure = Assert.Throws<ArgumentException>(
                () => SessionScripts.RenderInstall(new CaptureSessionSettings(SessionName: name)));

            Assert.Contains("SessionName", failure.Message);
        }

        [Fact]
        public void Rejects_a_name_longer_than_sysname()
        {
            Assert.Throws<ArgumentException>(
                () => SessionScripts.RenderInstall(new CaptureSessionSettings(SessionName: new string('a', 129))));
        }

        [Theory]
        [InlineData("backup.txt", "must end in .xel")]
        [InlineData("two\nlines.xel", "control character")]
        [InlineData("", "empty")]
        public void Rejects_a_file_path_it_cannot_use(string path, string expected)
        {
            var failure = Assert.Throws<ArgumentException>(
                () => SessionScripts.RenderInstall(new CaptureSessionSettings(FilePath: path)));

            Assert.Contains("FilePath", failure.Message);
            Assert.Contains(expected, failure.Message);
        }

        [Fact]
        public void Rejects_a_zero_file_size()
        {
            var failure = Assert.Throws<ArgumentException>(
                () => SessionScripts.RenderInstall(new CaptureSessionSettings(MaxFileSizeMb: 0)));

            Assert.Contains("MaxFileSizeMb", failure.Message);
        }
    }

    public sealed class RenderDropAndStatus
    {
        [Fact]
        public void Substitute_the_session_name()
        {
            Assert.Contains("DECLARE @SessionName sysname = N'Nightly';", SessionScripts.RenderDrop("Nightly"));
            Assert.Contains("DECLARE @SessionName sysname = N'Nightly';", SessionScripts.RenderStatus("Nightly"));
        }

        [Fact]
        public void Reject_a_session_name_that_is_no_sysname_or_holds_a_line_break()
        {
            Assert.Throws<ArgumentException>(() => SessionScripts.RenderDrop("a\r\nb"));
            Assert.Throws<ArgumentException>(() => SessionScripts.RenderStatus(" "));
            Assert.Throws<ArgumentException>(() => SessionScripts.RenderStatus(new string('x', 129)));
        }

        [Theory]
        [InlineData("Verbose backup trace", "N'Verbose backup trace'", "[Verbose backup trace]", "\"Verbose backup trace\"")]
        [InlineData("a'; SHUTDOWN --", "N'a''; SHUTDOWN --'", "[a'; SHUTDOWN --]", "\"a'; SHUTDOWN --\"")]
        [InlineData("x]; DROP LOGIN sa; --", "N'x]; DROP LOGIN sa; --'", "[x]]; DROP LOGIN sa; --]", "\"x]; DROP LOGIN sa; --\"")]
        [InlineData("say \"hi\" [now]", "N'say \"hi\" [now]'", "[say \"hi\" [now]]]", "\"say \\\"hi\\\" [now]\"")]
        public void Given_any_sysname_with_spaces_brackets_or_quotes_When_a_statement_names_the_session_Then_it_is_one_literal_and_one_quoted_name(
            string name, string literal, string quoted, string argument)
        {
            // The scripts take the name as one N'' literal and quote it on the server with QUOTENAME; what BackupXe prints
            // for a DBA quotes it the same way, and a printed command takes it as one argument
            Assert.Contains($"DECLARE @SessionName sysname = {literal};", SessionScripts.RenderDrop(name), StringComparison.Ordinal);
            Assert.Contains($"DECLARE @SessionName sysname = {literal};", SessionScripts.RenderStatus(name), StringComparison.Ordinal);
            Assert.Equal(quoted, SessionName.Quote(name));
            Assert.Equal(argument, SessionName.Argument(name));
            Assert.True(SessionName.IsValid(name));
            Assert.False(SessionName.IsCreatable(name));
            Assert.Throws<ArgumentException>(() => SessionScripts.RenderInstall(new CaptureSessionSettings(name)));
        }
    }
}
