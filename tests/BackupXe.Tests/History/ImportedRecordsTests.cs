using BackupXe.Core.History;
using BackupXe.Core.Rendering;
using BackupXe.History;
using Xunit;
using static BackupXe.Tests.History.HistoryOperations;

namespace BackupXe.Tests.History;

/// <summary>The import rule both stores share, on a store kept in memory: rows by id, each with its record and JSON.</summary>
public sealed class ImportedRecordsTests
{
    private static readonly DateTime Night = new(2024, 5, 1, 1, 0, 0);

    private sealed class MemoryStore
    {
        public Dictionary<long, MatchedRow> Rows { get; } = [];

        public List<long> Updated { get; } = [];

        /// <summary>The stored keys (database and start, as the tables'): an insert of a key already here writes nothing.</summary>
        public HashSet<(string?, DateTime)> Keys { get; } = [];

        public Task<HistoryImportResult> ImportAsync(IEnumerable<HistoryOperation> records, ICollection<HistoryOperation>? added = null)
            => ImportedRecords.StoreAsync(
                records.ToAsyncEnumerable(),
                (record, _) => Task.FromResult<MatchedRow?>(
                    Rows.Values.Where(r => HistoryMerge.SameOperation(r.Record, record)).Select(r => (MatchedRow?)r).FirstOrDefault()),
                (record, _) =>
                {
                    if (!Keys.Add((record.Database, record.Start)))
                    {
                        return Task.FromResult(0);
                    }

                    var id = Rows.Count + 1L;
                    Rows[id] = new MatchedRow(id, record, ReportJson.Serialize(record));
                    return Task.FromResult(1);
                },
                (id, combined, json, _) =>
                {
                    Rows[id] = new MatchedRow(id, combined, json);
                    Updated.Add(id);
                    return Task.CompletedTask;
                },
                added,
                CancellationToken.None);
    }

    [Fact]
    public async Task New_records_are_inserted_counted_and_handed_back_in_import_order()
    {
        var store = new MemoryStore();
        var added = new List<HistoryOperation>();
        HistoryOperation[] records = [Msdb("Sales", Night, 60, 20 * GiB), Msdb("HR", Night, 10, GiB)];

        var result = await store.ImportAsync(records, added);

        Assert.Equal(new HistoryImportResult(2, 0, 0), result);
        Assert.Equal(records, added);
        Assert.Empty(store.Updated);
    }

    [Fact]
    public async Task A_record_whose_key_another_writer_stored_first_is_neither_counted_nor_handed_back()
    {
        var store = new MemoryStore();
        store.Keys.Add(("Sales", Night));
        var added = new List<HistoryOperation>();

        var result = await store.ImportAsync([Msdb("Sales", Night, 60, 20 * GiB)], added);

        Assert.Equal(new HistoryImportResult(0, 0, 0), result);
        Assert.Empty(added);
        Assert.Empty(store.Rows);
    }

    [Fact]
    public async Task A_second_source_of_a_stored_backup_is_merged_into_its_row_and_written_once()
    {
        var store = new MemoryStore();
        await store.ImportAsync([Msdb("Sales", Night, 60, 20 * GiB)]);
        var added = new List<HistoryOperation>();

        var result = await store.ImportAsync([CommandLog("Sales", Night.AddMilliseconds(-300), 60.8)], added);
        var again = await store.ImportAsync([CommandLog("Sales", Night.AddMilliseconds(-300), 60.8)], added);

        Assert.Equal(new HistoryImportResult(0, 1, 0), result);
        Assert.Equal(new HistoryImportResult(0, 0, 1), again);
        Assert.Empty(added);
        Assert.Equal([1L], store.Updated);
        var row = Assert.Single(store.Rows.Values);
        Assert.Equal([HistorySource.Msdb, HistorySource.CommandLog], row.Record.Sources);
        Assert.Equal(ReportJson.Serialize(row.Record), row.Json);
    }

    [Fact]
    public async Task A_record_already_stored_as_it_is_is_unchanged_and_not_written()
    {
        var store = new MemoryStore();
        HistoryOperation[] records = [Msdb("Sales", Night, 60, 20 * GiB), Msdb("Sales", Night.AddDays(1), 61, 20 * GiB)];
        await store.ImportAsync(records);

        var result = await store.ImportAsync(records);

        Assert.Equal(new HistoryImportResult(0, 0, 2), result);
        Assert.Empty(store.Updated);
    }
}
