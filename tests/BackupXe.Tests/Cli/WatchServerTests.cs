using System.CommandLine;
using System.Diagnostics;
using System.Text;
using BackupXe.Cli;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Live.EventStream;
using BackupXe.Tests.Sources.Xel;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using BackupXe.Tests.Worker;
using Xunit;
using BackupXe.Testing.Xel;

namespace BackupXe.Tests.Cli;

/// <summary>
/// <c>watch --server</c> end to end: the CLI's own parser and action, Microsoft.Data.SqlClient 6.1.8, and the TDS
/// double serving the capture session's status and event_file rows built from the sample capture. Not SQL Server.
/// </summary>
public class WatchServerTests
{
    public WatchServerTests() => Environment.SetEnvironmentVariable(TdsClient.PasswordVariable, TdsClient.Password);

    [Fact]
    public async Task Events_from_the_sessions_event_file_show_progress_and_the_diagnosis_then_ctrl_c_ends_with_exit_0()
    {
        // Given a running session whose event file holds the sample buffer-starved backup, cut off twice mid-result
        var rows = ScriptedEventFile.BufferStarvedBackup();
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true };
        await using var server = TdsServerDouble.Start(sql.Script.Serve(ScriptedEventFile.Of(rows, 37, 40), new Queue<int>([120, 333])));

        // When watch runs until the diagnosis is on stdout, then is cancelled as Ctrl-C does
        var run = await WatchAsync(server, output => output.Contains("Verdict", StringComparison.Ordinal), "--no-color");

        // Then the diagnosis came while the watch was still running (the server stayed quiet after the backup ended,
        // so only the watch's clock could release it), and Ctrl-C ended it cleanly
        Assert.True(run.ReachedBeforeCtrlC);
        Assert.Equal(0, run.ExitCode);
        Assert.Contains(Lines(run.Output), l => l.Contains("copy-data", StringComparison.Ordinal) && l.Contains("MB/s", StringComparison.Ordinal));
        Assert.Contains("buffer-starved (high confidence)", run.Output);
        Order.Before(run.Output, "MB/s", "Verdict");
        Assert.Equal(@"C:\MSSQL\Log\BackupXe_0_*.xel", server.Requests.First(r => r.Text.Contains("fn_xe_file", StringComparison.Ordinal)).Parameters["@path"]);
        // Two drops, each reported on stderr, none on stdout; the diagnosis appears once (no event read twice)
        Assert.Equal(2, Lines(run.Error).Count(l => l.Contains("disconnected (transient)", StringComparison.Ordinal)));
        Assert.Equal(1, CountOf(run.Output, "Verdict"));
        Assert.DoesNotContain(server.Requests, r => r.Text.Contains("CREATE EVENT SESSION", StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_live_report_names_the_server_it_was_read_from_so_its_remedies_fit_it()
    {
        // Given a SQL Server 2016 before SP1 (13.00.2000 in its login response) whose session holds the sample backup
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true, MajorVersion = 13 };
        await using var server = TdsServerDouble.Start(sql.Script.Serve(ScriptedEventFile.Of(ScriptedEventFile.BufferStarvedBackup(), 37, 40)));
        server.MajorVersion = 13;

        // When watch writes its report as JSON
        var run = await WatchAsync(server, output => output.Contains("\"verdict\"", StringComparison.Ordinal), "--format", "json");

        // Then the report carries the connected server's version, and where it came from
        Assert.True(run.ReachedBeforeCtrlC, run.Error);
        using var report = System.Text.Json.JsonDocument.Parse(Lines(run.Output).First(l => l.Contains("\"verdict\"", StringComparison.Ordinal)));
        var version = report.RootElement.GetProperty("server");
        Assert.Equal(13, version.GetProperty("major").GetInt32());
        Assert.Equal("13.0.2000", version.GetProperty("build").GetString());
        Assert.Equal("SQL Server 2016", version.GetProperty("product").GetString());
        Assert.Equal("the connected server's login response", version.GetProperty("evidence").GetString());
    }

    [Fact]
    public async Task Start_session_creates_the_session_for_the_watch_only_and_drops_it_after_ctrl_c()
    {
        // Given no session on the server, and a login that may create, start, stop and drop one
        var sql = new ScriptedSqlServer();
        await using var server = TdsServerDouble.Start(sql.Script.Serve(ScriptedEventFile.Of(ScriptedEventFile.BufferStarvedBackup(), 37, 40)));

        // When watch --start-session runs until the diagnosis, then Ctrl-C
        var run = await WatchAsync(server, output => output.Contains("Verdict", StringComparison.Ordinal), "--no-color", "--start-session");

        // Then the session was created (not to start with the server) before the first read, dropped after, and both were said
        Assert.True(run.ReachedBeforeCtrlC, run.Error);
        Assert.Equal(0, run.ExitCode);
        Assert.Contains("buffer-starved (high confidence)", run.Output);
        var requests = server.Requests.ToList();
        var create = requests.FindIndex(r => r.Text.Contains("CREATE EVENT SESSION", StringComparison.Ordinal));
        var firstRead = requests.FindIndex(r => r.Text.Contains("fn_xe_file_target_read_file", StringComparison.Ordinal));
        var drop = requests.FindLastIndex(r => r.Text.Contains("DROP EVENT SESSION", StringComparison.Ordinal) && !r.Text.Contains("CREATE EVENT SESSION", StringComparison.Ordinal));
        Assert.True(create >= 0 && firstRead > create && drop > firstRead, $"create {create}, first read {firstRead}, drop {drop}");
        Assert.Contains("DECLARE @StartWithServer bit = 0;", requests[create].Text, StringComparison.Ordinal);
        Assert.False(sql.SessionExists);
        Assert.Contains(Lines(run.Error), l => l.Contains("created and started for this watch (STARTUP_STATE OFF)", StringComparison.Ordinal));
        Assert.Contains(Lines(run.Error), l => l.Contains("stopped and dropped", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Start_session_with_a_login_that_could_not_drop_it_creates_nothing_and_names_the_grant()
    {
        // Given SQL Server 2022 and a login that may create and start a session, but neither stop nor drop one
        var sql = new ScriptedSqlServer { MajorVersion = 16 };
        sql.Permissions.Clear();
        sql.Permissions.AddRange(["CREATE ANY EVENT SESSION", "ALTER ANY EVENT SESSION ENABLE", "VIEW SERVER PERFORMANCE STATE", "CONNECT SQL"]);
        await using var server = TdsServerDouble.Start(sql.Script.Serve(ScriptedEventFile.Of(ScriptedEventFile.BufferStarvedBackup(), 37, 40)));

        // When
        var run = await WatchAsync(server, _ => false, "--start-session");

        // Then no DDL reached the server, and the missing GRANTs are named
        Assert.Equal(1, run.ExitCode);
        Assert.DoesNotContain(server.Requests, r => r.Text.Contains("CREATE EVENT SESSION", StringComparison.Ordinal));
        Assert.DoesNotContain(server.Requests, r => r.Text.Contains("fn_xe_file_target_read_file", StringComparison.Ordinal));
        Assert.Contains("nothing was created", run.Error, StringComparison.Ordinal);
        Assert.Contains("GRANT DROP ANY EVENT SESSION", run.Error, StringComparison.Ordinal);
        Assert.Contains("GRANT ALTER ANY EVENT SESSION DISABLE", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Start_session_reads_a_session_already_running_and_leaves_it_alone()
    {
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true };
        await using var server = TdsServerDouble.Start(sql.Script.Serve(ScriptedEventFile.Of(ScriptedEventFile.BufferStarvedBackup(), 37, 40)));

        var run = await WatchAsync(server, output => output.Contains("Verdict", StringComparison.Ordinal), "--no-color", "--start-session");

        Assert.Equal(0, run.ExitCode);
        Assert.Contains("already running: read, and left as it is", run.Error, StringComparison.Ordinal);
        Assert.DoesNotContain(server.Requests, r => r.Text.Contains("CREATE EVENT SESSION", StringComparison.Ordinal) || r.Text.Contains("DROP EVENT SESSION", StringComparison.Ordinal));
        Assert.True(sql.SessionExists);
    }

    [Fact]
    public async Task On_a_managed_instance_a_physical_database_name_is_shown_as_the_logical_one()
    {
        // Given events whose database_name is the database's physical name, a GUID, as Managed Instance may send it
        const string physical = "8f0c1ebd-3a5e-4c1b-9d2f-6a7b8c9d0e1f";
        var rows = ScriptedEventFile.BufferStarvedBackup().Select(r => r.Replace("<![CDATA[SalesDB]]>", $"<![CDATA[{physical}]]>", StringComparison.Ordinal)).ToList();
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true, MajorVersion = 12, EngineEdition = 8 };
        var script = sql.Script.Serve(ScriptedEventFile.Of(rows, 37, 40))
            .On("WHERE physical_database_name = @physical_name", r => TdsResponse.Of(new TdsResultSet(TdsColumn.NVarChar("name", 128))
                .Row(Equals(r.Parameters["@physical_name"], physical) ? "SalesDB" : null)));
        await using var server = TdsServerDouble.Start(script);

        // When
        var run = await WatchAsync(server, output => output.Contains("Verdict", StringComparison.Ordinal), "--no-color");

        // Then the backup is SalesDB's, looked up once, and the GUID is not shown
        Assert.True(run.ReachedBeforeCtrlC, run.Error);
        Assert.Contains("[SalesDB]", run.Output, StringComparison.Ordinal);
        Assert.DoesNotContain(physical, run.Output, StringComparison.OrdinalIgnoreCase);
        Assert.Single(server.Requests, r => r.Text.Contains("physical_database_name", StringComparison.Ordinal));
    }

    [Fact]
    public async Task The_database_filter_hides_operations_of_other_databases()
    {
        // Given the sample backup served live
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true };
        await using var server = TdsServerDouble.Start(sql.Script.Serve(ScriptedEventFile.Of(ScriptedEventFile.BufferStarvedBackup(), 37, 40)));
        var requestsWhenAllRead = 0;

        // When watching another database until the tail has polled past the end of the file
        var run = await WatchAsync(server, _ => (requestsWhenAllRead = server.Requests.Count(r => r.Text.Contains("fn_xe_file", StringComparison.Ordinal))) >= 6, "--database", "NoSuchDb");

        // Then nothing of the sample's database is shown, and the exit is clean
        Assert.Equal(0, run.ExitCode);
        Assert.True(requestsWhenAllRead >= 6);
        Assert.DoesNotContain("Verdict", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_missing_session_is_one_line_naming_it_and_exit_1()
    {
        // Given
        await using var server = TdsServerDouble.Start(new ScriptedSqlServer().Script);

        // When
        var run = await WatchAsync(server, _ => false, "--session-name", "Nightly");

        // Then
        Assert.Equal(1, run.ExitCode);
        var line = Assert.Single(Lines(run.Error));
        Assert.Contains("Nightly is not on the server", line, StringComparison.Ordinal);
        Assert.Contains("sessions/backupxe-session.sql", line, StringComparison.Ordinal);
        Assert.Empty(run.Output);
    }

    [Fact]
    public async Task A_refused_login_is_one_line_without_the_password()
    {
        // Given the login's password was changed on the server
        await using var server = TdsServerDouble.Start(new ScriptedSqlServer { SessionExists = true, SessionRunning = true }.Script);
        server.Credentials = (TdsClient.User, "another password");

        // When
        var run = await WatchAsync(server, _ => false);

        // Then
        Assert.Equal(1, run.ExitCode);
        var line = Assert.Single(Lines(run.Error));
        Assert.Contains($"Login failed for user '{TdsClient.User}'", line, StringComparison.Ordinal);
        Assert.Contains("(fatal)", line, StringComparison.Ordinal);
        Assert.Empty(run.Output);
    }

    [Fact]
    public async Task A_dead_address_gives_one_line_and_exit_1_within_the_connect_timeout()
    {
        // Given nothing listens on port 1
        var watch = Stopwatch.StartNew();

        // When
        var run = await CliRun.RunAsync("watch", "--server", "127.0.0.1,1", "--user", "sa", "--password-env", TdsClient.PasswordVariable, "--connect-timeout", "2");

        // Then
        Assert.Equal(1, run.ExitCode);
        var line = Assert.Single(Lines(run.Error));
        // The same wording as check and session: one line for a dead address, whichever verb meets it.
        Assert.StartsWith("backupxe: cannot reach 127.0.0.1,1: nothing listens on 127.0.0.1 port 1", line, StringComparison.Ordinal);
        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(10), $"took {watch.Elapsed}");
        AssertNoSecrets(run);
    }

    [Fact]
    public async Task A_backup_running_before_watch_shows_at_once_from_the_dmv_then_its_events_take_over_without_a_duplicate_or_a_false_verdict()
    {
        // Given the sample backup already 40% through when the watch starts: the DMV shows it, and the event file
        // holds only what the session wrote from there on (its start and buffer configuration were before the watch)
        var rows = ScriptedEventFile.BufferStarvedBackup();
        var fromForty = rows.Select((row, i) => (row, i)).First(r => r.row.Contains("40 percent (", StringComparison.Ordinal)).i;
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true };
        var started = new DateTime(2024, 5, 1, 1, 30, 0, 120, DateTimeKind.Utc);
        sql.RunningRequests.Add(new ScriptedRequest(61, "BACKUP DATABASE", "SalesDB", 40.2f, 7_300, started, "BACKUPBUFFER", 3, "BACKUPIO"));
        await using var server = TdsServerDouble.Start(sql.Script.Serve(ScriptedEventFile.Of([.. rows.Skip(fromForty)], 37, 40)));

        // When
        var run = await WatchAsync(server, output => output.Contains("Verdict", StringComparison.Ordinal), "--no-color");

        // Then the first line is the DMV's, before any event
        Assert.True(run.ReachedBeforeCtrlC);
        var lines = Lines(run.Output);
        Assert.Equal(
            "01:30:08.000  BACKUP DATABASE [SalesDB], session 61  from sys.dm_exec_requests   40% [########............]  ETA 7.3 s  elapsed 7.88 s  waiting BACKUPBUFFER 3 ms  started before watch",
            lines[0]);
        Assert.Equal(1, CountOf(run.Output, "from sys.dm_exec_requests"));
        // Its events then carry on the same line of progress, timed from the real start and saying what was missed
        var progress = lines.Skip(1).TakeWhile(l => l.StartsWith("01:30:", StringComparison.Ordinal)).ToList();
        Assert.True(progress.Count >= 6, run.Output);
        Assert.Contains(" 50% [##########..........]  853.3 MB/s  ETA 1.2 s (", progress[1], StringComparison.Ordinal);
        Assert.Contains(")  elapsed 6.31 s  top wait BACKUPBUFFER", progress[1], StringComparison.Ordinal);
        Assert.All(progress, l => Assert.Contains("started before watch at 01:30:00.120 (sys.dm_exec_requests); phases before 01:30:", l, StringComparison.Ordinal));
        // One operation, one diagnosis, introduced by the note; no verdict pretends to know the whole backup
        Assert.Equal(1, CountOf(run.Output, "Verdict"));
        var note = lines.FindIndex(l => l.StartsWith("BACKUP DATABASE [SalesDB], session 61: started before watch at 01:30:00.120", StringComparison.Ordinal));
        Assert.True(note >= 0 && note < lines.FindIndex(l => l.Contains("Verdict", StringComparison.Ordinal)), run.Output);
        Assert.EndsWith("phases before 01:30:05.225 not captured; the diagnosis below covers only what came after", lines[note], StringComparison.Ordinal);
        Assert.DoesNotContain("(high confidence)", run.Output, StringComparison.Ordinal);
        Assert.Empty(Lines(run.Error));
    }

    [Fact]
    public async Task Without_view_server_state_one_line_says_running_backups_are_not_shown_and_the_watch_goes_on()
    {
        // Given a login without VIEW SERVER STATE, with the sample backup in the event file
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true };
        sql.Permissions.Remove("VIEW SERVER STATE");
        await using var server = TdsServerDouble.Start(sql.Script.Serve(ScriptedEventFile.Of(ScriptedEventFile.BufferStarvedBackup(), 37, 40)));

        // When
        var run = await WatchAsync(server, output => output.Contains("Verdict", StringComparison.Ordinal), "--no-color");

        // Then
        Assert.True(run.ReachedBeforeCtrlC);
        Assert.Equal(0, run.ExitCode);
        var line = Assert.Single(Lines(run.Error));
        Assert.Contains("backups already running are not shown", line, StringComparison.Ordinal);
        Assert.Contains($"GRANT VIEW SERVER STATE TO [{TdsClient.User}];", line, StringComparison.Ordinal);
        Assert.DoesNotContain(server.Requests, r => r.Text.Contains("dm_exec_requests", StringComparison.Ordinal));
        Assert.Contains("buffer-starved (high confidence)", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Polling_the_dmv_moves_the_percent_without_events_and_an_ended_request_gets_no_diagnosis()
    {
        // Given a restore running and a session whose event file is empty (its events go elsewhere, say)
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true };
        var started = new DateTime(2024, 5, 1, 1, 20, 0, DateTimeKind.Utc);
        sql.RunningRequests.Add(new ScriptedRequest(72, "RESTORE DATABASE", "Archive", 10f, 600_000, started, "BACKUPIO", 40, null));
        await using var server = TdsServerDouble.Start(sql.Script.Serve(ScriptedEventFile.Of([], 37, 40)));
        var stage = 0;

        // When the server's view moves on after the first poll, and the restore leaves it once that was shown
        var run = await WatchAsync(
            server,
            output =>
            {
                var reads = server.Requests.Count(r => r.Text.Contains("dm_exec_requests", StringComparison.Ordinal));
                lock (sql.RunningRequests)
                {
                    if (stage == 0 && reads >= 2)
                    {
                        stage = 1;
                        sql.RunningRequests[0] = sql.RunningRequests[0] with { PercentComplete = 55f, EstimatedCompletionMs = 300_000 };
                    }
                    else if (stage == 1 && output.Contains(" 55% ", StringComparison.Ordinal))
                    {
                        stage = 2;
                        sql.RunningRequests.Clear();
                    }
                }

                return output.Contains("no longer in sys.dm_exec_requests", StringComparison.Ordinal);
            },
            "--no-color",
            "--poll-requests",
            "0.05");

        // Then: one line per tenth moved, then one line saying it ended with no diagnosis
        Assert.True(run.ReachedBeforeCtrlC, run.Output);
        var lines = Lines(run.Output);
        Assert.Equal(3, lines.Count);
        Assert.Contains(" 10% [##..................]  ETA 10 min 00 s", lines[0], StringComparison.Ordinal);
        Assert.Contains(" 55% [###########.........]  ETA 5 min 00 s", lines[1], StringComparison.Ordinal);
        Assert.Contains("RESTORE DATABASE [Archive], session 72  no longer in sys.dm_exec_requests", lines[2], StringComparison.Ordinal);
        Assert.Contains("no diagnosis", lines[2], StringComparison.Ordinal);
        Assert.DoesNotContain("Verdict", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task The_stream_transport_shows_progress_and_the_diagnosis_from_log_buffers_and_reads_no_event_file()
    {
        // Given a running session whose live stream sends the BUILT buffer-starved backup as .xel log buffers
        var stream = new ScriptedEventStream();
        await using var server = TdsServerDouble.Start(stream.Serve(new ScriptedSqlServer { SessionExists = true, SessionRunning = true }.Script));
        var built = XelStreamRows.Of(BuiltBackupCatalogue.Create(), BuiltBackupScenario.BufferStarved());
        var feed = stream.Feed(0);
        feed.TryWrite(XelStreamRows.Row(EventStreamRowTypes.Header, built.Header));
        feed.TryWrite(XelStreamRows.Row(EventStreamRowTypes.Metadata, built.Metadata));
        foreach (var (bytes, _) in built.EventBuffers)
        {
            feed.TryWrite(XelStreamRows.Row(EventStreamRowTypes.Events, bytes));
        }

        // When
        var run = await WatchAsync(server, output => output.Contains("Verdict", StringComparison.Ordinal), "--no-color", "--transport", "stream");

        // Then
        Assert.True(run.ReachedBeforeCtrlC, run.Output + run.Error);
        Assert.Equal(0, run.ExitCode);
        Assert.Contains(Lines(run.Output), l => l.Contains("copy-data", StringComparison.Ordinal) && l.Contains("MB/s", StringComparison.Ordinal));
        Assert.Contains("buffer-starved (high confidence)", run.Output, StringComparison.Ordinal);
        Assert.Equal(1, CountOf(run.Output, "Verdict"));
        Assert.DoesNotContain(server.Requests, r => r.Text.Contains("fn_xe_file_target_read_file", StringComparison.Ordinal));
        Assert.Empty(Lines(run.Error));
    }

    [Fact]
    public async Task Transport_needs_a_server_and_is_file_stream_or_ring_buffer()
    {
        var noServer = await CliRun.RunAsync("watch", "--replay", CliRun.Sample("buffer-starved-backup.xml"), "--transport", "stream");
        var other = await CliRun.RunAsync("watch", "--server", "127.0.0.1,1", "--transport", "histogram");

        Assert.Equal(1, noServer.ExitCode);
        Assert.Contains("--transport chooses how a server is read", noServer.Error, StringComparison.Ordinal);
        Assert.Equal(1, other.ExitCode);
        Assert.Contains("histogram", other.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Poll_requests_needs_a_server()
    {
        var run = await CliRun.RunAsync("watch", "--replay", CliRun.Sample("buffer-starved-backup.xml"), "--poll-requests", "5");

        Assert.Equal(1, run.ExitCode);
        Assert.Contains("--poll-requests reads a server's sys.dm_exec_requests", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Server_and_replay_together_are_refused()
    {
        var run = await CliRun.RunAsync("watch", "--server", "127.0.0.1,1", "--replay", CliRun.Sample("buffer-starved-backup.xml"));

        Assert.Equal(1, run.ExitCode);
        Assert.Contains("exclusive", run.Error, StringComparison.Ordinal);
    }

    /// <summary>The one watch test that changes the process's current directory: it runs alone, after the tests that run side by side.</summary>
    [Collection(ConsoleCollection.Name)]
    public sealed class FromTheCurrentDirectory
    {
        public FromTheCurrentDirectory() => Environment.SetEnvironmentVariable(TdsClient.PasswordVariable, TdsClient.Password);

        [Fact]
        public async Task History_alone_reads_the_daemons_default_file_and_the_regression_verdict_comes_live()
        {
            // Given: the generated history of SQL01 (ten usual nights of [SalesDB] at about 500 MB/s) in the daemon's default
            // file of the folder the watch runs from, and the server's session holding the sample buffer-starved backup
            using var folder = new TempDirectory();
            await AnalyzeHistoryTests.WriteHistoryAsync(Path.Combine(folder.Path, BackupXe.History.SqliteHistoryStore.DefaultPath));
            var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true };
            await using var server = TdsServerDouble.Start(sql.Script.Serve(ScriptedEventFile.Of(ScriptedEventFile.BufferStarvedBackup(), 37, 40)));
            var previous = Directory.GetCurrentDirectory();
            Directory.SetCurrentDirectory(folder.Path);
            WatchRun run;
            try
            {
                // When: watch --server with --history and no file, until the diagnosis is out
                run = await WatchAsync(server, output => output.Contains("Verdict", StringComparison.Ordinal) && output.Contains("Against its history", StringComparison.Ordinal), "--no-color", "--history");
            }
            finally
            {
                Directory.SetCurrentDirectory(previous);
            }

            // Then: the verdict against the default file's series came while the watch was running, and the early ETA from it
            Assert.True(run.ReachedBeforeCtrlC, run.Output + run.Error);
            Assert.Equal(0, run.ExitCode);
            Assert.Contains("3.0x slower than usual", run.Output, StringComparison.Ordinal);
            Assert.Contains("full backup of [SalesDB] to disk on SQL01", run.Output, StringComparison.Ordinal);
            Assert.Contains("from history: its size at the usual ", run.Output, StringComparison.Ordinal);
        }
    }

    /// <summary>
    /// Runs <c>watch</c> against <paramref name="server"/> and cancels it, as Ctrl-C does, once <paramref name="until"/>
    /// holds for stdout (or after 60 seconds, which fails the tests that expect output).
    /// </summary>
    private static async Task<WatchRun> WatchAsync(TdsServerDouble server, Func<string, bool> until, params string[] extra)
    {
        var output = new LockedWriter();
        var error = new LockedWriter();
        using var ctrlC = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        string[] args = ["watch", .. TdsClient.CliArguments(server), .. extra];
        var console = CliRun.Captured(output, error);
        var running = Program.BuildRoot(console).Parse(args).InvokeAsync(Program.Invocation(console), ctrlC.Token);
        var reached = false;
        while (!running.IsCompleted && !(reached = until(output.Text)))
        {
            await Task.Delay(20);
        }

        var reachedInTime = reached && !ctrlC.IsCancellationRequested;
        await ctrlC.CancelAsync();
        var exit = await running;
        var run = new CliRun(exit, output.Text, string.Join('\n', Lines(error.Text).Where(l => !l.Contains("warning: encryption is off", StringComparison.Ordinal))));
        AssertNoSecrets(run);
        return new WatchRun(run.ExitCode, run.Output, run.Error, reachedInTime);
    }

    private sealed record WatchRun(int ExitCode, string Output, string Error, bool ReachedBeforeCtrlC);

    private static void AssertNoSecrets(CliRun run)
    {
        foreach (var text in new[] { run.Output, run.Error })
        {
            Assert.DoesNotContain(TdsClient.Password, text, StringComparison.Ordinal);
            Assert.DoesNotContain("Password=", text, StringComparison.OrdinalIgnoreCase);
            Assert.DoesNotContain("Data Source=", text, StringComparison.OrdinalIgnoreCase);
        }
    }

    private static int CountOf(string text, string part) => text.Split(part).Length - 1;

    private static List<string> Lines(string text) => [.. text.Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(l => l.TrimEnd('\r'))];

    /// <summary>A console writer the test can read while the command writes to it from another thread.</summary>
    private sealed class LockedWriter : TextWriter
    {
        private readonly StringBuilder _text = new();

        public override Encoding Encoding => Encoding.UTF8;

        public string Text
        {
            get
            {
                lock (_text)
                {
                    return _text.ToString();
                }
            }
        }

        public override void Write(char value)
        {
            lock (_text)
            {
                _text.Append(value);
            }
        }

        public override void Write(string? value)
        {
            lock (_text)
            {
                _text.Append(value);
            }
        }

        public override void Write(char[] buffer, int index, int count)
        {
            lock (_text)
            {
                _text.Append(buffer, index, count);
            }
        }
    }
}
