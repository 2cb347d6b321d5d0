using System.CommandLine;
using System.Diagnostics;
using System.Text;
using BackupXe.Cli;
using BackupXe.Tests.Support;
using BackupXe.Tests.Support.Tds;
using Xunit;

namespace BackupXe.Tests.Cli;

/// <summary>
/// <c>watch --server</c> end to end: the CLI's own parser and action, Microsoft.Data.SqlClient 2.1.4, and the TDS
/// double serving the capture session's status and event_file rows built from the sample capture. Not SQL Server.
/// </summary>
[Collection(ConsoleCollection.Name)]
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
        Assert.True(run.Output.IndexOf("MB/s", StringComparison.Ordinal) < run.Output.IndexOf("Verdict", StringComparison.Ordinal));
        Assert.Equal(@"C:\MSSQL\Log\BackupXe*.xel", server.Requests.First(r => r.Text.Contains("fn_xe_file", StringComparison.Ordinal)).Parameters["@path"]);
        // Two drops, each reported on stderr, none on stdout; the diagnosis appears once (no event read twice)
        Assert.Equal(2, Lines(run.Error).Count(l => l.Contains("disconnected (transient)", StringComparison.Ordinal)));
        Assert.Equal(1, CountOf(run.Output, "Verdict"));
        Assert.DoesNotContain(server.Requests, r => r.Text.Contains("CREATE EVENT SESSION", StringComparison.Ordinal));
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
        Assert.StartsWith("backupxe: 127.0.0.1,1/BackupXe: ", line, StringComparison.Ordinal);
        Assert.Contains("(transient)", line, StringComparison.Ordinal);
        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(10), $"took {watch.Elapsed}");
        AssertNoSecrets(run);
    }

    [Fact]
    public async Task Server_and_replay_together_are_refused()
    {
        var run = await CliRun.RunAsync("watch", "--server", "127.0.0.1,1", "--replay", CliRun.Sample("buffer-starved-backup.xml"));

        Assert.Equal(1, run.ExitCode);
        Assert.Contains("exclusive", run.Error, StringComparison.Ordinal);
    }

    /// <summary>
    /// Runs <c>watch</c> against <paramref name="server"/> and cancels it, as Ctrl-C does, once <paramref name="until"/>
    /// holds for stdout (or after 60 seconds, which fails the tests that expect output).
    /// </summary>
    private static async Task<WatchRun> WatchAsync(TdsServerDouble server, Func<string, bool> until, params string[] extra)
    {
        var (stdout, stderr) = (Console.Out, Console.Error);
        var output = new LockedWriter();
        var error = new LockedWriter();
        Console.SetOut(output);
        Console.SetError(error);
        using var ctrlC = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        try
        {
            string[] args = ["watch", .. TdsClient.CliArguments(server), .. extra];
            var running = Program.BuildRoot().Parse(args).InvokeAsync(new InvocationConfiguration { EnableDefaultExceptionHandler = false }, ctrlC.Token);
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
        finally
        {
            Console.SetOut(stdout);
            Console.SetError(stderr);
        }
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
