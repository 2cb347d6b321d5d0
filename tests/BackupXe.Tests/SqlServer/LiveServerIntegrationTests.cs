using System.CommandLine;
using System.Data;
using System.Diagnostics;
using BackupXe.Cli;
using BackupXe.Core.Events;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Sessions;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Support;
using Microsoft.Data.SqlClient;
using Microsoft.Data.Sqlite;
using Xunit;

namespace BackupXe.Tests.SqlServer;

/// <summary>
/// <c>watch --server</c> and the daemon end to end against a real SQL Server: the capture session created by the explicit
/// switch (<c>session install</c>, the daemon's <c>EnsureSession</c>), one COPY_ONLY backup written to
/// BACKUPXE_TEST_BACKUP_DIR, its events read back live, the diagnosis asserted, the session dropped. Skipped, visibly,
/// unless BACKUPXE_TEST_SQL and BACKUPXE_TEST_BACKUP_DIR are set (docs/development.md, "Against a real SQL Server" says
/// what they write on the server).
/// </summary>
[Collection(ConsoleCollection.Name)]
public sealed class LiveServerIntegrationTests : IDisposable
{
    public const string BackupDirectoryVariable = "BACKUPXE_TEST_BACKUP_DIR";
    public const string DatabaseVariable = "BACKUPXE_TEST_DATABASE";
    private const string PasswordVariable = "BACKUPXE_TEST_SQL_PASSWORD";
    private const string SessionName = "BackupXe_IntegrationTest";
    private static readonly TimeSpan DiagnosisTimeout = TimeSpan.FromSeconds(120);

    private readonly string _folder = Directory.CreateTempSubdirectory("backupxe-it-").FullName;

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    [Fact]
    public async Task Watch_server_shows_the_diagnosis_of_a_copy_only_backup_on_a_real_server()
    {
        // Given a session created for this run with its own event file, so that no earlier run's events are read
        var server = TestServer.FromEnvironment();
        var file = $"{SessionName}_{Guid.NewGuid():N}"[..40] + ".xel";
        var install = await CliRun.RunAsync(["session", "install", .. server.CliArguments, "--session-name", SessionName, "--file-path", file]);
        Assert.True(install.ExitCode == 0, install.Error + install.Output);
        try
        {
            // When watch runs while one COPY_ONLY backup is taken, and is ended as Ctrl-C ends it once the verdict shows
            var (stdout, stderr) = (Console.Out, Console.Error);
            var inner = new StringWriter();
            var output = TextWriter.Synchronized(inner);
            Console.SetOut(output);
            Console.SetError(TextWriter.Synchronized(new StringWriter()));
            int exit;
            var shown = false;
            try
            {
                using var ctrlC = new CancellationTokenSource(DiagnosisTimeout + TimeSpan.FromSeconds(60));
                string[] args = ["watch", .. server.CliArguments, "--session-name", SessionName, "--database", server.Database, "--no-color"];
                var watching = Program.BuildRoot().Parse(args).InvokeAsync(new InvocationConfiguration { EnableDefaultExceptionHandler = false }, ctrlC.Token);
                await Task.Delay(TimeSpan.FromSeconds(3));
                await server.BackupAsync(server.BackupPath("watch"));
                var clock = Stopwatch.StartNew();
                while (!watching.IsCompleted && clock.Elapsed < DiagnosisTimeout && !(shown = Text(output, inner).Contains("Verdict", StringComparison.Ordinal)))
                {
                    await Task.Delay(200);
                }

                await ctrlC.CancelAsync();
                exit = await watching;
            }
            finally
            {
                Console.SetOut(stdout);
                Console.SetError(stderr);
            }

            // Then the backup's diagnosis was shown while watching, and Ctrl-C ended the watch cleanly
            var text = Text(output, inner);
            Assert.True(shown, $"no verdict within {DiagnosisTimeout.TotalSeconds} s:\n{text}");
            Assert.Contains(server.Database, text, StringComparison.Ordinal);
            Assert.Equal(0, exit);
        }
        finally
        {
            var uninstall = await CliRun.RunAsync(["session", "uninstall", .. server.CliArguments, "--session-name", SessionName]);
            Assert.True(uninstall.ExitCode == 0, uninstall.Error + uninstall.Output);
        }
    }

    [Fact]
    public async Task The_daemon_records_a_copy_only_backup_on_a_real_server_with_its_diagnosis()
    {
        // Given the built worker with one live instance that creates its session (EnsureSession, the explicit switch)
        var server = TestServer.FromEnvironment();
        var session = new SessionClient(SqlServerIntegrationTests.Factory(), new CaptureSessionSettings(SessionName));
        using var worker = WorkerProcess.Start(_folder, new Dictionary<string, string>
        {
            ["BackupXe__Instances__0__Name"] = "integration",
            ["BackupXe__Instances__0__ConnectionString"] = server.ConnectionString,
            ["BackupXe__Instances__0__EnsureSession"] = "true",
            ["BackupXe__Instances__0__SessionName"] = SessionName,
            ["BackupXe__RetryDelaySeconds"] = "5",
            ["Serilog__WriteTo__0__Name"] = "Console",
        });
        try
        {
            var clock = Stopwatch.StartNew();
            while (!(await session.StatusAsync(CancellationToken.None)).Running)
            {
                Assert.True(clock.Elapsed < TimeSpan.FromSeconds(60) && !worker.HasExited, $"the worker did not start the session:\n{worker.Output}");
                await Task.Delay(500);
            }

            // When one COPY_ONLY backup is taken
            var startedUtc = await server.BackupAsync(server.BackupPath("daemon"));

            // Then the history gets it, completed and diagnosed, without waiting for another backup
            OperationReport? stored = null;
            clock.Restart();
            while ((stored = await StoredAsync(server.Database, startedUtc)) is null)
            {
                Assert.True(clock.Elapsed < DiagnosisTimeout && !worker.HasExited, $"no backup of {server.Database} since {startedUtc:O} in the history:\n{worker.Output}");
                await Task.Delay(500);
            }

            Assert.Equal(OperationKind.Backup, stored.Kind);
            Assert.Equal(OperationStatus.Completed, stored.Status);
            Assert.Equal(server.Database, stored.Database);
            Assert.True(stored.BytesProcessed > 0, "no bytes processed");
            Assert.NotNull(stored.Verdict);
            Assert.DoesNotContain(server.Password ?? "\0", worker.Output, StringComparison.Ordinal);
        }
        finally
        {
            worker.Kill();
            await session.UninstallAsync(CancellationToken.None);
        }
    }

    private static string Text(TextWriter synchronized, StringWriter inner)
    {
        // TextWriter.Synchronized locks on the wrapper: holding it gives a consistent copy.
        lock (synchronized)
        {
            return inner.ToString();
        }
    }

    /// <summary>
    /// The operation in the worker's SQLite history on <paramref name="database"/> that started after <paramref name="startedUtc"/>
    /// (the server's clock; XE timestamps are UTC). The default session file may hold earlier runs' backups too.
    /// </summary>
    private async Task<OperationReport?> StoredAsync(string database, DateTime startedUtc)
    {
        var path = Path.Combine(_folder, "backupxe-history.db");
        if (!File.Exists(path))
        {
            return null;
        }

        await using var connection = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = path, Mode = SqliteOpenMode.ReadOnly, Pooling = false }.ToString());
        await connection.OpenAsync();
        await using var command = connection.CreateCommand();
        command.CommandText = "SELECT report_json FROM operations;";
        try
        {
            await using var reader = await command.ExecuteReaderAsync();
            while (await reader.ReadAsync())
            {
                var report = ReportJson.Deserialize<OperationReport>(reader.GetString(0));
                if (report.Database == database && report.Start >= startedUtc)
                {
                    return report;
                }
            }
        }
        catch (SqliteException exception) when (exception.SqliteErrorCode == 1)
        {
            // No operations table yet.
        }

        return null;
    }

    /// <summary>The server, backup folder and database the environment names; skips the test when they are not set.</summary>
    internal sealed record TestServer(string ConnectionString, SqlConnectionStringBuilder Builder, string BackupDirectory, string Database)
    {
        public string? Password => Builder.IntegratedSecurity ? null : Builder.Password;

        /// <summary>The CLI's connection options for this server; the password goes through --password-env.</summary>
        public string[] CliArguments
        {
            get
            {
                var args = new List<string> { "--server", Builder.DataSource };
                if (!Builder.IntegratedSecurity && !string.IsNullOrEmpty(Builder.UserID))
                {
                    Environment.SetEnvironmentVariable(PasswordVariable, Builder.Password);
                    args.AddRange(["--user", Builder.UserID, "--password-env", PasswordVariable]);
                }

                if (Builder.ShouldSerialize("Encrypt") && !Builder.Encrypt)
                {
                    args.Add("--no-encryption");
                }
                else if (Builder.TrustServerCertificate)
                {
                    args.Add("--trust-server-certificate");
                }

                return [.. args];
            }
        }

        public static TestServer FromEnvironment()
        {
            var connectionString = Environment.GetEnvironmentVariable(SqlServerIntegrationTests.Variable);
            if (string.IsNullOrWhiteSpace(connectionString))
            {
                Skipped.Because($"{SqlServerIntegrationTests.Variable} is not set: no SQL Server to test against", $"set {SqlServerIntegrationTests.Variable} to a SqlClient connection string (docs/development.md, Against a real SQL Server)");
            }

            var directory = Environment.GetEnvironmentVariable(BackupDirectoryVariable);
            if (string.IsNullOrWhiteSpace(directory))
            {
                Skipped.Because($"{BackupDirectoryVariable} is not set: no folder on the server to write the test's COPY_ONLY backup to", $"set {BackupDirectoryVariable} to a folder the server's service account may write (docs/development.md)");
            }

            var database = Environment.GetEnvironmentVariable(DatabaseVariable);
            return new TestServer(connectionString, new SqlConnectionStringBuilder(connectionString), directory.TrimEnd('/', '\\'),
                string.IsNullOrWhiteSpace(database) ? "model" : database);
        }

        /// <summary>A new file in the backup folder, in the server's own path style (the folder's separator).</summary>
        public string BackupPath(string use)
        {
            var separator = BackupDirectory.Contains('\\', StringComparison.Ordinal) ? '\\' : '/';
            return $"{BackupDirectory}{separator}BackupXe_IntegrationTest_{use}_{DateTime.UtcNow:yyyyMMddHHmmss}_{Guid.NewGuid():N}.bak";
        }

        /// <summary>
        /// BACKUP DATABASE ... WITH COPY_ONLY: it does not change the backup chain (no new differential base, log not
        /// truncated). Database and path are parameters, never spliced into the text. Returns the server's UTC clock
        /// just before the backup started.
        /// </summary>
        public async Task<DateTime> BackupAsync(string path)
        {
            var factory = SqlServerIntegrationTests.Factory();
            await using var connection = await factory.OpenAsync(CancellationToken.None);
            await using var clock = factory.Command(connection, "SELECT SYSUTCDATETIME();");
            var startedUtc = DateTime.SpecifyKind((DateTime)(await clock.ExecuteScalarAsync())!, DateTimeKind.Utc);
            await using var command = factory.Command(connection, "BACKUP DATABASE @database TO DISK = @path WITH COPY_ONLY;");
            command.Parameters.Add(new SqlParameter("@database", SqlDbType.NVarChar, 128) { Value = Database });
            command.Parameters.Add(new SqlParameter("@path", SqlDbType.NVarChar, 260) { Value = path });
            command.CommandTimeout = 600;
            await command.ExecuteNonQueryAsync();
            return startedUtc;
        }
    }
}
