using System.Text.Json;
using BackupXe.History;
using BackupXe.Tests.Cli.Rendering;
using BackupXe.Tests.History;
using BackupXe.Tests.Support;
using BackupXe.Tests.Worker;
using Microsoft.Data.Sqlite;
using Xunit;

namespace BackupXe.Tests.Cli.Commands;

/// <summary><c>history tunes</c> on a history holding a tune with restore trials and one from before they were stored.</summary>
public sealed class HistoryTunesCommandTests : IDisposable
{
    private static readonly DateTime Tuned = new(2024, 4, 25, 14, 0, 0, DateTimeKind.Utc);
    private readonly TempDirectory _directory = new();

    public void Dispose()
    {
        SqliteConnection.ClearAllPools();
        _directory.Dispose();
    }

    private async Task<string> HistoryAsync()
    {
        var path = _directory.File("history.db");
        var store = new SqliteHistoryStore(path, new FakeClock());
        await store.SaveTuneAsync(TuneHistoryTests.Tune(at: Tuned), CancellationToken.None);
        await store.SaveTuneAsync(TuneHistoryTests.WithRestore(Tuned.AddDays(1)), CancellationToken.None);
        return path;
    }

    [Fact]
    public async Task The_restore_trials_are_listed_under_their_tune_each_with_its_rate_limit_and_zeroing()
    {
        var path = await HistoryAsync();

        var run = await CliRun.RunAsync("history", "tunes", "--path", path);

        Assert.True(run.ExitCode == 0, run.Error);
        await Snapshot.MatchAsync("history-tunes-restore.console.txt", run.Output);
    }

    [Fact]
    public async Task The_json_carries_the_restore_trials_and_null_for_a_tune_without_them()
    {
        var path = await HistoryAsync();

        var run = await CliRun.RunAsync("history", "tunes", "--path", path, "--format", "json");

        Assert.True(run.ExitCode == 0, run.Error);
        using var document = JsonDocument.Parse(run.Output);
        var restore = document.RootElement[0].GetProperty("restore");
        Assert.Equal(157.9, restore.GetProperty("bestMBps").GetDouble());
        Assert.Equal(4, restore.GetProperty("trials").GetArrayLength());
        Assert.Equal("backup-read", restore.GetProperty("trials")[2].GetProperty("limit").GetString());
        Assert.Equal(JsonValueKind.Null, document.RootElement[1].GetProperty("restore").ValueKind);
    }
}
