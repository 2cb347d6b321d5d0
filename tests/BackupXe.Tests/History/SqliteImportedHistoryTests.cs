using BackupXe.Core.History;
using BackupXe.Core.Reporting;
using BackupXe.History;
using Microsoft.Data.Sqlite;
using Xunit;
using static BackupXe.Tests.History.HistoryOperations;

namespace BackupXe.Tests.History;

public sealed class SqliteImportedHistoryTests : IDisposable
{
    private static readonly DateTime Night = new(2024, 5, 1, 1, 0, 0);
    private readonly string _path = Path.Combine(Path.GetTempPath(), $"backupxe-import-{Guid.NewGuid():N}.db");

    public void Dispose()
    {
        SqliteConnection.ClearAllPools();
        File.Delete(_path);
    }

    private async Task<List<string>> RowsAsync()
    {
        await using var connection = new SqliteConnection($"Data Source={_path};Pooling=False");
        await connection.OpenAsync();
        await using var command = connection.CreateCommand();
        command.CommandText = "SELECT instance_name || '|' || database_name || '|' || start_time || '|' || IFNULL(sources, '') || '|' || IFNULL(history_json, '') FROM operations ORDER BY id";
        var rows = new List<string>();
        await using var reader = await command.ExecuteReaderAsync();
        while (await reader.ReadAsync())
        {
            rows.Add(reader.GetString(0));
        }

        return rows;
    }

    [Fact]
    public async Task A_history_imported_twice_has_the_same_rows()
    {
        // Given
        var history = new SqliteImportedHistory(_path, TimeProvider.System);
        await history.InitializeAsync(CancellationToken.None);
        HistoryOperation[] records = [Msdb("Sales", Night, 60, 20 * GiB), Msdb("Sales", Night.AddDays(1), 61, 20 * GiB), Msdb("HR", Night, 10, GiB)];
        var first = await history.ImportAsync("PROD01", records, CancellationToken.None);
        var before = await RowsAsync();

        // When
        var second = await history.ImportAsync("PROD01", records, CancellationToken.None);

        // Then
        Assert.Equal(new HistoryImportResult(3, 0, 0), first);
        Assert.Equal(new HistoryImportResult(0, 0, 3), second);
        Assert.Equal(before, await RowsAsync());
    }

    [Fact]
    public async Task A_second_source_of_the_same_backups_merges_into_their_rows()
    {
        var history = new SqliteImportedHistory(_path, TimeProvider.System);
        await history.InitializeAsync(CancellationToken.None);
        await history.ImportAsync("PROD01", [Msdb("Sales", Night, 60, 20 * GiB)], CancellationToken.None);

        var result = await history.ImportAsync("PROD01", [CommandLog("Sales", Night.AddMilliseconds(-300), 60.8)], CancellationToken.None);
        var again = await history.ImportAsync("PROD01", [CommandLog("Sales", Night.AddMilliseconds(-300), 60.8)], CancellationToken.None);
        var read = Assert.Single(await history.ReadAsync(null, null, CancellationToken.None));

        Assert.Equal(new HistoryImportResult(0, 1, 0), result);
        Assert.Equal(new HistoryImportResult(0, 0, 1), again);
        Assert.Single(await RowsAsync());
        Assert.Equal([HistorySource.Msdb, HistorySource.CommandLog], read.Record.Sources);
        Assert.Equal(50, read.Record.Options.BufferCount);
    }

    [Fact]
    public async Task A_file_written_before_the_migration_keeps_its_rows_and_gains_the_columns()
    {
        // Given: a history file as the daemon wrote it before imports existed
        var store = new SqliteHistoryStore(_path, TimeProvider.System);
        await store.InitializeAsync(CancellationToken.None);
        var captured = new OperationReport
        {
            Kind = Core.Events.OperationKind.Backup, Scope = Core.Events.OperationScope.Database, Database = "Sales", SessionId = 61,
            Start = Night, End = Night.AddSeconds(60), Status = OperationStatus.Completed, DurationSeconds = 60, BytesProcessed = 20 * GiB, ThroughputMBps = 341.3,
        };
        await store.SaveAsync("PROD01", captured, CancellationToken.None);
        var readBefore = await new SqliteImportedHistory(_path, TimeProvider.System).ReadAsync(null, null, CancellationToken.None);

        // When: migrated, then the same backup imported from msdb
        var history = new SqliteImportedHistory(_path, TimeProvider.System);
        await history.InitializeAsync(CancellationToken.None);
        await history.ImportAsync("PROD01", [Msdb("Sales", Night, 60, 20 * GiB)], CancellationToken.None);

        // Then: still one row, the capture's report kept, and the old store still reads it
        Assert.Equal([HistorySource.Capture], Assert.Single(readBefore).Record.Sources);
        var read = Assert.Single(await history.ReadAsync(null, null, CancellationToken.None));
        Assert.Equal([HistorySource.Msdb, HistorySource.Capture], read.Record.Sources);
        var stored = Assert.Single(await store.QueryAsync(new HistoryQuery(), CancellationToken.None));
        Assert.Equal(61, stored.Report.SessionId);
    }

    [Fact]
    public async Task A_damaged_row_is_left_out_and_counted()
    {
        var history = new SqliteImportedHistory(_path, TimeProvider.System);
        await history.InitializeAsync(CancellationToken.None);
        await history.ImportAsync("PROD01", [Msdb("Sales", Night, 60, 20 * GiB), Msdb("HR", Night, 60, 20 * GiB)], CancellationToken.None);
        await using (var connection = new SqliteConnection($"Data Source={_path};Pooling=False"))
        {
            await connection.OpenAsync();
            await using var command = connection.CreateCommand();
            command.CommandText = "UPDATE operations SET history_json = '{not json' WHERE database_name = 'HR'";
            await command.ExecuteNonQueryAsync();
        }

        var read = await history.ReadAsync(null, null, CancellationToken.None);

        Assert.Equal("Sales", Assert.Single(read).Record.Database);
        Assert.Equal(1, history.UnreadableRows);
    }

    [Fact]
    public async Task Each_record_is_stored_before_the_next_one_is_read()
    {
        // Given
        var history = new SqliteImportedHistory(_path, TimeProvider.System);
        await history.InitializeAsync(CancellationToken.None);
        var added = new List<HistoryOperation>();
        var seenBeforeEach = new List<int>();

        async IAsyncEnumerable<HistoryOperation> Records()
        {
            for (var day = 0; day < 5; day++)
            {
                // What the import has stored when it asks for this record.
                seenBeforeEach.Add(added.Count);
                await Task.Yield();
                yield return Msdb("Sales", Night.AddDays(day), 60, 20 * GiB);
            }
        }

        // When
        var result = await history.ImportAsync("PROD01", Records(), CancellationToken.None, added);

        // Then: never more than the record in hand between reading and storing
        Assert.Equal(new HistoryImportResult(5, 0, 0), result);
        Assert.Equal([0, 1, 2, 3, 4], seenBeforeEach);
    }

    [Fact]
    public async Task A_read_that_fails_part_way_leaves_the_history_as_it_was()
    {
        // Given
        var history = new SqliteImportedHistory(_path, TimeProvider.System);
        await history.InitializeAsync(CancellationToken.None);
        await history.ImportAsync("PROD01", [Msdb("HR", Night, 10, GiB)], CancellationToken.None);
        var before = await RowsAsync();

        async IAsyncEnumerable<HistoryOperation> Records()
        {
            yield return Msdb("Sales", Night, 60, 20 * GiB);
            await Task.Yield();
            throw new IOException("the disk went away");
        }

        // When
        await Assert.ThrowsAsync<IOException>(() => history.ImportAsync("PROD01", Records(), CancellationToken.None));

        // Then: the one transaction is rolled back
        Assert.Equal(before, await RowsAsync());
    }
}
