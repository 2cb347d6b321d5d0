using BackupXe.Tests.Cli;
using BackupXe.Tests.Support;
using Microsoft.Data.Sqlite;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// The worker started as systemd starts it, with configurations and history files a hurried administrator
/// produces. Each fails at start-up with one message naming the setting and a non-zero exit code (2 fix the
/// configuration, 3 fix the history file; docs/deploy.md), never a stack trace, never a secret.
/// </summary>
public sealed class WorkerStartupTests : IDisposable
{
    private readonly string _folder = Path.Combine(Path.GetTempPath(), "backupxe-tests", Guid.NewGuid().ToString("N"));

    public WorkerStartupTests()
    {
        Directory.CreateDirectory(_folder);
        File.Copy(CliRun.Sample("log-zeroing-restore.log"), Path.Combine(_folder, "restore.log"));
    }

    public static TheoryData<string, string, int, string> BadConfigurations => new()
    {
        { "empty appsettings.json", "", 2, "the configuration cannot be read" },
        { "truncated appsettings.json", """{ "BackupXe": { "Instances": [ { "Name": "a", """, 2, "the configuration cannot be read" },
        { "retry delay of 1e300 s", Settings("\"RetryDelaySeconds\": 1e300"), 2, "BackupXe:RetryDelaySeconds must be greater than 0 and at most 86400" },
        { "replay speed of 1e-300", Settings("\"RetryDelaySeconds\": 30", replaySpeed: "1e-300"), 2, "BackupXe:Instances:0:ReplaySpeed must be 0" },
        { "missing replay file", Settings("\"RetryDelaySeconds\": 30", replayPath: "nowhere.xml"), 2, "BackupXe:Instances:0:ReplayPath 'nowhere.xml' cannot be replayed: file not found" },
        { "garbage replay file", Settings("\"RetryDelaySeconds\": 30", replayPath: "garbage.bin"), 2, "BackupXe:Instances:0:ReplayPath 'garbage.bin' cannot be replayed" },
        { "window of 1e9", Settings("\"Regression\": { \"WindowSize\": 1000000000 }"), 2, "BackupXe:Regression:WindowSize must be from 1 to 10000" },
        { "corrupt history", Settings("\"History\": { \"Path\": \"corrupt.db\" }"), 3, "corrupt.db" },
        { "foreign history", Settings("\"History\": { \"Path\": \"foreign.db\" }"), 3, "is another program's SQLite database" },
        { "history path is a folder", Settings("\"History\": { \"Path\": \"folder.db\" }"), 3, "folder.db" },
        { "replay path is a named pipe", Settings("\"RetryDelaySeconds\": 30", replayPath: "pipe.log"), 2, "BackupXe:Instances:0:ReplayPath 'pipe.log' cannot be replayed: it is empty, or not a regular file" },
        { "a capture window rule of 100,000 items", CaptureWindow(string.Join(',', Enumerable.Repeat("0", 100_000)) + " 3 * * *"), 2, "BackupXe:Instances:0:CaptureWindows:Windows:0:Start is 200007 characters long" },
        { "a capture window that never fires", CaptureWindow("0 0 30 2 *"), 2, "BackupXe:Instances:0:CaptureWindows:Windows:0:Start '0 0 30 2 *' never fires" },
        { "a sink that is not installed", Settings("\"RetryDelaySeconds\": 30").Replace("\"WriteTo\": [ { \"Name\": \"Console\" } ]", "\"Using\": [ \"Serilog.Sinks.Seq\" ], \"WriteTo\": [ { \"Name\": \"Seq\", \"Args\": { \"serverUrl\": \"http://localhost:5341\" } } ]", StringComparison.Ordinal), 2, "the Serilog section names a sink that is not installed with the worker" },
    };

    [Theory]
    [MemberData(nameof(BadConfigurations))]
    public async Task A_bad_start_up_is_one_message_and_a_non_zero_exit_code(string what, string settings, int exitCode, string expected)
    {
        // Given
        await File.WriteAllTextAsync(Path.Combine(_folder, "appsettings.json"), settings);
        // Seeded: bytes drawn afresh each run started with '<' one run in 256, which reads as XE XML, stops at its first
        // bad character with a located line and leaves the daemon running, as a damaged input should.
        var garbage = new byte[4096];
        new Random(17).NextBytes(garbage);
        await File.WriteAllBytesAsync(Path.Combine(_folder, "garbage.bin"), garbage);
        var page = new byte[8192];
        new Random(19).NextBytes(page);
        await File.WriteAllBytesAsync(Path.Combine(_folder, "corrupt.db"), [.. "SQLite format 3\0"u8, .. page]);
        Directory.CreateDirectory(Path.Combine(_folder, "folder.db"));
        MakeNamedPipe(Path.Combine(_folder, "pipe.log"));
        await CreateForeignDatabase(Path.Combine(_folder, "foreign.db"));
        var foreignBefore = await File.ReadAllBytesAsync(Path.Combine(_folder, "foreign.db"));

        // When
        var run = await ChildProcess.RunAsync(ChildProcess.Worker, _folder, TimeSpan.FromSeconds(60));

        // Then
        Assert.True(run.ExitCode == exitCode, $"{what}: exit {run.ExitCode}\n{run.Error}\n{run.Output}");
        Assert.Contains(expected, run.Error);
        Assert.False(run.ShowsStackTrace, $"{what}: {run.Error}{run.Output}");
        Assert.Equal(foreignBefore, await File.ReadAllBytesAsync(Path.Combine(_folder, "foreign.db")));
    }

    [Theory]
    [InlineData("http://backupxe:S3cretPassw0rd@collector:4317")]
    [InlineData("ftp://backupxe:S3cretPassw0rd@collector:4317")]
    public async Task An_otlp_endpoint_with_a_password_is_refused_without_echoing_it(string endpoint)
    {
        // Given
        await File.WriteAllTextAsync(Path.Combine(_folder, "appsettings.json"), Settings($"\"Metrics\": {{ \"OtlpEndpoint\": \"{endpoint}\" }}"));

        // When
        var run = await ChildProcess.RunAsync(ChildProcess.Worker, _folder, TimeSpan.FromSeconds(60));

        // Then
        Assert.Equal(2, run.ExitCode);
        Assert.Contains("BackupXe:Metrics:OtlpEndpoint", run.Error);
        Assert.DoesNotContain("S3cretPassw0rd", run.Error + run.Output);
    }

    [Fact]
    public async Task A_read_only_history_fails_at_start_up_not_on_every_operation()
    {
        if (OperatingSystem.IsWindows() || Environment.UserName == "root")
        {
            Skipped.Because("needs a Unix account other than root (root writes to read-only files, Windows has no such mode bits)", "run dotnet test on Linux or macOS as a user who is not root");
            return;
        }

        // Given a history file the service account may not write
        var history = Path.Combine(_folder, "readonly.db");
        await using (var connection = new SqliteConnection($"Data Source={history};Pooling=False"))
        {
            await connection.OpenAsync();
        }

        File.SetUnixFileMode(history, UnixFileMode.UserRead);
        await File.WriteAllTextAsync(Path.Combine(_folder, "appsettings.json"), Settings("\"History\": { \"Path\": \"readonly.db\" }"));

        // When
        var run = await ChildProcess.RunAsync(ChildProcess.Worker, _folder, TimeSpan.FromSeconds(60));

        // Then
        Assert.Equal(3, run.ExitCode);
        Assert.Contains("readonly.db", run.Error);
    }

    [Fact]
    public async Task A_log_file_that_cannot_be_written_is_said_on_standard_error_and_the_worker_goes_on()
    {
        // Given a file sink whose folder cannot be made (its parent is a file, which stops root too)
        await File.WriteAllTextAsync(Path.Combine(_folder, "appsettings.json"), Settings("\"RetryDelaySeconds\": 30").Replace(
            "\"WriteTo\": [ { \"Name\": \"Console\" } ]",
            "\"WriteTo\": [ { \"Name\": \"Console\" }, { \"Name\": \"File\", \"Args\": { \"path\": \"restore.log/logs/worker.log\" } } ]",
            StringComparison.Ordinal).Replace("\"MinimumLevel\": \"Warning\"", "\"MinimumLevel\": \"Information\"", StringComparison.Ordinal));

        // When
        using var worker = WorkerProcess.Start(_folder, new Dictionary<string, string>());
        var waited = System.Diagnostics.Stopwatch.StartNew();
        while (!worker.HasExited && waited.Elapsed < TimeSpan.FromSeconds(60)
            && !(worker.Output.Contains("worker.log", StringComparison.Ordinal) && worker.Output.Contains("stays up until stopped", StringComparison.Ordinal)))
        {
            await Task.Delay(100);
        }

        // Then the lost log is named, and the worker has not stopped for it
        Assert.Contains("worker.log", worker.Output);
        Assert.False(worker.HasExited, worker.Output);
        worker.Signal("TERM");
        await worker.WaitForExitAsync(TimeSpan.FromSeconds(30));
        Assert.Equal(0, worker.ExitCode);
    }

    public void Dispose()
    {
        SqliteConnection.ClearAllPools();
        Directory.Delete(_folder, recursive: true);
    }

    private static string Settings(string extra, string replayPath = "restore.log", string replaySpeed = "0") => $$"""
        {
          "Serilog": { "MinimumLevel": "Warning", "WriteTo": [ { "Name": "Console" } ] },
          "BackupXe": {
            "Instances": [ { "Name": "replay", "ReplayPath": "{{replayPath}}", "ReplaySpeed": {{replaySpeed}} } ],
            {{extra}}
          }
        }
        """;

    // A live instance allowed to arm its session: validation refuses the rule before any connection is made.
    private static string CaptureWindow(string rule) => $$"""
        {
          "Serilog": { "MinimumLevel": "Warning", "WriteTo": [ { "Name": "Console" } ] },
          "BackupXe": {
            "Instances": [ { "Name": "prod", "Server": "db01", "EnsureSession": true,
              "CaptureWindows": { "Windows": [ { "Start": "{{rule}}", "DurationMinutes": 60 } ] } } ]
          }
        }
        """;

    private static void MakeNamedPipe(string path)
    {
        if (OperatingSystem.IsWindows() || File.Exists(path))
        {
            return;
        }

        using var mkfifo = System.Diagnostics.Process.Start("mkfifo", [path]);
        mkfifo.WaitForExit();
    }

    private static async Task CreateForeignDatabase(string path)
    {
        if (File.Exists(path))
        {
            return;
        }

        await using var connection = new SqliteConnection($"Data Source={path};Pooling=False");
        await connection.OpenAsync();
        await using var command = connection.CreateCommand();
        command.CommandText = "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices (total) VALUES (9.5);";
        await command.ExecuteNonQueryAsync();
    }
}
