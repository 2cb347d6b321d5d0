using System.Diagnostics;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Support;
using Microsoft.Data.Sqlite;
using Xunit;

namespace BackupXe.Tests.Worker;

/// <summary>
/// The real worker process stopped as a person (Ctrl-C, SIGINT) or a service manager (<c>systemctl stop</c>, SIGTERM)
/// stops it: exit code 0, no stack trace, and every diagnosis it logged is in the history it leaves behind.
/// </summary>
public sealed class WorkerStopTests : IDisposable
{
    private readonly string _folder = Directory.CreateTempSubdirectory("backupxe-stop-").FullName;

    public void Dispose()
    {
        SqliteConnection.ClearAllPools();
        Directory.Delete(_folder, recursive: true);
    }

    [Theory]
    [InlineData("INT")]
    [InlineData("TERM")]
    public async Task A_signalled_worker_stops_with_exit_code_0_and_keeps_its_history(string signal)
    {
        // Given a worker that has replayed both samples and is idling, as a daemon does between backups
        File.Copy(CliRun.Sample("buffer-starved-backup.xml"), Path.Combine(_folder, "backup.xml"));
        File.Copy(CliRun.Sample("log-zeroing-restore.log"), Path.Combine(_folder, "restore.log"));
        await File.WriteAllTextAsync(Path.Combine(_folder, "appsettings.json"), """
            {
              "Serilog": { "MinimumLevel": "Information", "WriteTo": [ { "Name": "Console" } ] },
              "BackupXe": {
                "Instances": [
                  { "Name": "backup", "ReplayPath": "backup.xml", "ReplaySpeed": 0 },
                  { "Name": "restore", "ReplayPath": "restore.log", "ReplaySpeed": 0 }
                ]
              }
            }
            """);
        using var worker = WorkerProcess.Start(_folder, new Dictionary<string, string>());
        await WaitUntilAsync(() => worker.Output.Contains("stays up until stopped", StringComparison.Ordinal) || worker.HasExited, TimeSpan.FromSeconds(60));
        Assert.False(worker.HasExited, worker.Output);

        // When
        worker.Signal(signal);
        await worker.WaitForExitAsync(TimeSpan.FromSeconds(30));

        // Then
        Assert.True(worker.ExitCode == 0, $"SIG{signal}: exit {worker.ExitCode}\n{worker.Output}");
        Assert.DoesNotContain("   at ", worker.Output, StringComparison.Ordinal);
        Assert.DoesNotContain("Unhandled exception", worker.Output, StringComparison.Ordinal);
        Assert.Equal(["SalesArchive", "SalesDB"], await StoredHistory.DatabasesAsync(_folder));
    }

    private static async Task WaitUntilAsync(Func<bool> condition, TimeSpan timeout)
    {
        var clock = Stopwatch.StartNew();
        while (!condition())
        {
            if (clock.Elapsed > timeout)
            {
                throw new TimeoutException($"condition not met within {timeout.TotalSeconds} s");
            }

            await Task.Delay(20);
        }
    }
}
