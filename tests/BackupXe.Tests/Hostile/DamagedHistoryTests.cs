using BackupXe.Core.Reporting;
using BackupXe.History;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Support;
using Microsoft.Data.Sqlite;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// A history file whose first page is sound (so it opens, and start-up's checks pass) but whose page 2 was
/// overwritten, as a disk fault or a half-finished copy leaves it: the damage is found only when a statement
/// reaches it. The CLI says so in one line and the documented exit code; the daemon stops with exit code 3
/// instead of retrying for ever.
/// </summary>
public sealed class DamagedHistoryTests : IDisposable
{
    private readonly string _folder = Path.Combine(Path.GetTempPath(), "backupxe-tests", Guid.NewGuid().ToString("N"));

    public DamagedHistoryTests() => Directory.CreateDirectory(_folder);

    [Fact]
    public async Task Given_a_history_with_a_damaged_page_when_importing_then_one_located_line_exit_1_and_the_file_unchanged()
    {
        // Given
        var history = await DamagedHistoryAsync("c.db");
        var before = await File.ReadAllBytesAsync(history);
        var output = new OlaJobOutput().Command(new DateTime(2024, 6, 1, 1, 0, 0), TimeSpan.FromSeconds(5), "BACKUP DATABASE [Sales] TO DISK = N'X:\\Sales.bak'", pages: 1000, engineSeconds: 4)
            .WriteTo(_folder, "ola.txt");

        // When
        var run = await CliRun.RunAsync("history", "import", "--path", history, output);

        // Then
        Assert.True(run.ExitCode == 1, $"exit {run.ExitCode}\n{run.Error}\n{run.Output}");
        var line = Assert.Single(run.Error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith($"backupxe: {history}: file: ", line);
        Assert.Contains("malformed", line);
        Assert.DoesNotContain("   at ", run.Error);
        SqliteConnection.ClearAllPools();
        Assert.Equal(before, await File.ReadAllBytesAsync(history));
    }

    [Fact]
    public async Task Given_a_history_damaged_after_start_up_when_the_worker_stores_an_operation_then_it_stops_with_exit_code_3()
    {
        // Given a replay whose first operation is stored into the damaged page, and a retry delay that would
        // otherwise loop well inside the timeout
        await DamagedHistoryAsync("history.db");
        File.Copy(CliRun.Sample("log-zeroing-restore.log"), Path.Combine(_folder, "restore.log"));
        await File.WriteAllTextAsync(Path.Combine(_folder, "appsettings.json"), """
            {
              "Serilog": { "MinimumLevel": "Warning", "WriteTo": [ { "Name": "Console" } ] },
              "BackupXe": {
                "RetryDelaySeconds": 1,
                "History": { "Path": "history.db" },
                "Instances": [ { "Name": "replay", "ReplayPath": "restore.log", "ReplaySpeed": 0 } ]
              }
            }
            """);

        // When
        var run = await ChildProcess.RunAsync(ChildProcess.Worker, _folder, TimeSpan.FromSeconds(45));

        // Then
        Assert.True(run.ExitCode == 3, $"exit {run.ExitCode}\n{run.Error}\n{run.Output}");
        Assert.Contains("history.db", run.Error);
        Assert.Contains("malformed", run.Error);
        Assert.False(run.ShowsStackTrace, run.Error + run.Output);
    }

    public void Dispose()
    {
        SqliteConnection.ClearAllPools();
        Directory.Delete(_folder, recursive: true);
    }

    // Page 1 (the schema) is left intact; bytes 4096-4099 are the start of page 2, the first page of a table.
    private async Task<string> DamagedHistoryAsync(string name)
    {
        var path = Path.Combine(_folder, name);
        var store = new SqliteHistoryStore(path, TimeProvider.System);
        await store.InitializeAsync(CancellationToken.None);

        // Migrated as import migrates it, so that an import that stores nothing leaves every byte as it was.
        await new SqliteImportedHistory(path, TimeProvider.System).InitializeAsync(CancellationToken.None);
        for (var day = 1; day <= 30; day++)
        {
            var start = new DateTime(2024, 5, day, 1, 0, 0, DateTimeKind.Utc);
            await store.SaveAsync("prod01", new OperationReport
            {
                Kind = Core.Events.OperationKind.Backup, Database = $"Sales{day}", Start = start, End = start.AddMinutes(1),
                Status = OperationStatus.Completed, DurationSeconds = 60, ThroughputMBps = 100,
            }, CancellationToken.None);
        }

        SqliteConnection.ClearAllPools();
        await using (var file = new FileStream(path, FileMode.Open, FileAccess.Write))
        {
            file.Position = 4096;
            await file.WriteAsync(new byte[] { 0xde, 0xad, 0xbe, 0xef });
        }

        return path;
    }
}
