using BackupXe.Core.Events;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.History;
using BackupXe.Tests.Support;
using Microsoft.Data.Sqlite;
using BackupXe.Tests.Worker;
using Xunit;
using static BackupXe.Tests.Worker.Operations;

namespace BackupXe.Tests.History;

public sealed class SqliteHistoryStoreTests : IDisposable
{
    private readonly TempDirectory _directory = new();
    private readonly FakeClock _time = new();

    public void Dispose() => _directory.Dispose();

    private async Task<SqliteHistoryStore> OpenAsync(string file = "history.db")
    {
        var store = new SqliteHistoryStore(_directory.File(file), _time);
        await store.InitializeAsync(CancellationToken.None);
        return store;
    }

    [Fact]
    public async Task A_restarted_daemon_storing_the_same_operations_again_duplicates_nothing()
    {
        var nightly = Nightly("Sales", Monday, 110, 120, 118).ToList();
        var firstRun = await OpenAsync();
        foreach (var report in nightly)
        {
            Assert.Equal(HistoryWrite.Added, await firstRun.SaveAsync("prod", report, CancellationToken.None));
        }

        // The restart: a new store on the same file, re-reading the same source from the beginning.
        var secondRun = await OpenAsync();
        var writes = new List<HistoryWrite>();
        foreach (var report in nightly)
        {
            writes.Add(await secondRun.SaveAsync("prod", report, CancellationToken.None));
        }

        Assert.All(writes, write => Assert.Equal(HistoryWrite.AlreadyStored, write));
        Assert.Equal(3, (await secondRun.QueryAsync(new HistoryQuery(), CancellationToken.None)).Count);
    }

    [Fact]
    public async Task An_operation_without_database_or_session_id_is_still_stored_once()
    {
        // SQLite counts NULLs as distinct in a unique index; the key must not let these through twice.
        var store = await OpenAsync();
        var anonymous = Backup(database: null, Monday, 90, sessionId: null);

        Assert.Equal(HistoryWrite.Added, await store.SaveAsync("prod", anonymous, CancellationToken.None));
        Assert.Equal(HistoryWrite.AlreadyStored, await store.SaveAsync("prod", anonymous, CancellationToken.None));
    }

    [Fact]
    public async Task Operations_differing_in_session_instance_or_kind_are_separate()
    {
        var store = await OpenAsync();

        Assert.Equal(HistoryWrite.Added, await store.SaveAsync("prod", Backup("Sales", Monday, 90, sessionId: 57), CancellationToken.None));
        Assert.Equal(HistoryWrite.Added, await store.SaveAsync("prod", Backup("Sales", Monday, 90, sessionId: 58), CancellationToken.None));
        Assert.Equal(HistoryWrite.Added, await store.SaveAsync("test", Backup("Sales", Monday, 90, sessionId: 57), CancellationToken.None));
        Assert.Equal(HistoryWrite.Added, await store.SaveAsync("prod", Backup("Sales", Monday, 90, sessionId: 57, kind: OperationKind.Restore), CancellationToken.None));
    }

    [Fact]
    public async Task An_operation_without_a_start_time_is_not_stored()
    {
        var store = await OpenAsync();

        var write = await store.SaveAsync("prod", Backup("Sales", Monday, 90) with { Start = null }, CancellationToken.None);

        Assert.Equal(HistoryWrite.NoIdentity, write);
        Assert.Empty(await store.QueryAsync(new HistoryQuery(), CancellationToken.None));
    }

    [Fact]
    public async Task The_full_report_comes_back_as_it_was_stored()
    {
        var store = await OpenAsync();
        var report = Backup("Sales", Monday, 41.5);
        await store.SaveAsync("prod", report, CancellationToken.None);

        var stored = Assert.Single(await store.QueryAsync(new HistoryQuery(Instance: "prod"), CancellationToken.None));

        Assert.Equal("prod", stored.Instance);
        Assert.Equal(ReportJson.Serialize(report), ReportJson.Serialize(stored.Report));
    }

    [Fact]
    public async Task The_history_query_filters_and_lists_newest_first()
    {
        var store = await OpenAsync();
        foreach (var report in Nightly("Sales", Monday, 100, 101, 102).Concat(Nightly("HR", Monday, 50)))
        {
            await store.SaveAsync("prod", report, CancellationToken.None);
        }

        await store.SaveAsync("prod", Backup("Sales", Monday, 80, kind: OperationKind.Restore), CancellationToken.None);
        await store.SaveAsync("test", Backup("Sales", Monday, 70), CancellationToken.None);

        var sales = await store.QueryAsync(new HistoryQuery("prod", "Sales", OperationKind.Backup, Limit: 2), CancellationToken.None);

        Assert.Equal([102.0, 101.0], sales.Select(stored => stored.Report.ThroughputMBps!.Value));
        Assert.Equal(6, (await store.QueryAsync(new HistoryQuery(), CancellationToken.None)).Count);
        Assert.Single(await store.QueryAsync(new HistoryQuery(Kind: OperationKind.Restore), CancellationToken.None));
    }

    [Fact]
    public async Task The_file_is_in_write_ahead_log_mode_with_the_documented_columns()
    {
        await OpenAsync();

        await using var connection = new SqliteConnection($"Data Source={_directory.File("history.db")};Pooling=False");
        await connection.OpenAsync();
        await using var command = connection.CreateCommand();
        command.CommandText = "PRAGMA journal_mode;";
        Assert.Equal("wal", (string?)await command.ExecuteScalarAsync());

        command.CommandText = "SELECT group_concat(name, ',') FROM pragma_table_info('operations');";
        Assert.Equal(
            "id,instance_name,database_name,kind,scope,start_time,end_time,session_id,status,duration_seconds,throughput_mbps,bottleneck,confidence,report_json,recorded_at",
            (string?)await command.ExecuteScalarAsync());
    }

    [Fact]
    public async Task An_unusable_path_names_the_setting()
    {
        File.WriteAllText(_directory.File("not-a-directory"), "x");
        var store = new SqliteHistoryStore(Path.Combine(_directory.File("not-a-directory"), "history.db"), _time);

        var error = await Assert.ThrowsAsync<HistoryStoreException>(() => store.InitializeAsync(CancellationToken.None));

        Assert.Contains("BackupXe:History:Path", error.Message);
    }
}
