using BackupXe.Tests.Cli;
using BackupXe.Tests.Support;
using Microsoft.Data.Sqlite;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// A DBA who may only read the daemon's history lists it. A history is in WAL mode, and SQLite reading one wants to
/// create its shared-memory file beside it; where it cannot (a folder the reader may not write), the first read
/// failed with "attempt to write a readonly database". Tests run as root, who may write anywhere, so the file SQLite
/// wants is made impossible to create instead: its name is a link into a folder that does not exist.
/// </summary>
public sealed class ReadOnlyHistoryTests : IDisposable
{
    private readonly string _folder = Path.Combine(Path.GetTempPath(), "backupxe-tests", Guid.NewGuid().ToString("N"));

    public ReadOnlyHistoryTests() => Directory.CreateDirectory(_folder);

    [Fact]
    public async Task A_history_whose_shared_memory_file_cannot_be_created_is_listed_and_left_unchanged()
    {
        // Given a history of one imported backup, closed cleanly (no write-ahead log pending)
        var history = Path.Combine(_folder, "history.db");
        var output = new OlaJobOutput().Command(new DateTime(2024, 6, 1, 1, 0, 0), TimeSpan.FromSeconds(5),
            "BACKUP DATABASE [Sales] TO DISK = N'X:\\Sales.bak'", pages: 1000, engineSeconds: 4).WriteTo(_folder, "ola.txt");
        var import = await CliRun.RunAsync("history", "import", "--path", history, output);
        Assert.True(import.ExitCode == 0, import.Error);
        SqliteConnection.ClearAllPools();
        foreach (var leftover in new[] { "-wal", "-shm" }.Select(suffix => history + suffix).Where(File.Exists))
        {
            File.Delete(leftover);
        }

        File.CreateSymbolicLink(history + "-shm", Path.Combine(_folder, "no-such-folder", "shm"));
        var before = await File.ReadAllBytesAsync(history);

        // When
        var run = await CliRun.RunAsync("history", "--path", history, "--format", "json");

        // Then
        Assert.True(run.ExitCode == 0, $"exit {run.ExitCode}\n{run.Error}");
        Assert.Contains("\"Sales\"", run.Output);
        Assert.Equal(before, await File.ReadAllBytesAsync(history));
    }

    [Fact]
    public async Task Tune_runs_of_a_history_whose_shared_memory_file_cannot_be_created_are_listed_and_it_is_left_unchanged()
    {
        // Given a history holding one tune (migration 2 applied), closed cleanly
        var history = Path.Combine(_folder, "history.db");
        await new BackupXe.History.SqliteHistoryStore(history, TimeProvider.System).SaveTuneAsync(BackupXe.Tests.History.TuneHistoryTests.Tune(), CancellationToken.None);
        SqliteConnection.ClearAllPools();
        foreach (var leftover in new[] { "-wal", "-shm" }.Select(suffix => history + suffix).Where(File.Exists))
        {
            File.Delete(leftover);
        }

        File.CreateSymbolicLink(history + "-shm", Path.Combine(_folder, "no-such-folder", "shm"));
        var before = await File.ReadAllBytesAsync(history);

        // When
        var run = await CliRun.RunAsync("history", "tunes", "--path", history, "--format", "json");

        // Then
        Assert.True(run.ExitCode == 0, $"exit {run.ExitCode}\n{run.Error}");
        Assert.Contains("\"bestMBps\": 850", run.Output);
        Assert.Equal(before, await File.ReadAllBytesAsync(history));
    }

    public void Dispose()
    {
        SqliteConnection.ClearAllPools();
        Directory.Delete(_folder, recursive: true);
    }
}
