using BackupXe.Core.History;
using BackupXe.Core.Rendering;

namespace BackupXe.History;

/// <summary>The stored row an imported record matches: its id, its record, and the history JSON it holds (null for a capture).</summary>
internal readonly record struct MatchedRow(long Id, HistoryOperation Record, string? Json);

/// <summary>
/// The import rule both stores follow (<see cref="SqliteImportedHistory"/>, <see cref="SqlServerImportedHistory"/>); each
/// brings its own statements. A record no stored row matches is inserted; one that matches is merged into that row
/// with <see cref="HistoryMerge.Merge"/> and written only when the merge changes the row's JSON, so importing the same
/// records again changes nothing.
/// </summary>
internal static class ImportedRecords
{
    /// <param name="find">The stored row the record matches, or null.</param>
    /// <param name="insert">Inserts the record as a new row; the rows written (0 when its key was already stored).</param>
    /// <param name="update">Writes the merged record and its JSON into the row of that id.</param>
    /// <param name="added">When given, receives the records stored as new rows, in import order.</param>
    public static async Task<HistoryImportResult> StoreAsync(
        IAsyncEnumerable<HistoryOperation> records,
        Func<HistoryOperation, CancellationToken, Task<MatchedRow?>> find,
        Func<HistoryOperation, CancellationToken, Task<int>> insert,
        Func<long, HistoryOperation, string, CancellationToken, Task> update,
        ICollection<HistoryOperation>? added,
        CancellationToken cancellationToken)
    {
        int inserted = 0, merged = 0, unchanged = 0;
        await foreach (var record in records.WithCancellation(cancellationToken))
        {
            var match = await find(record, cancellationToken);
            if (match is null)
            {
                if (await insert(record, cancellationToken) > 0)
                {
                    inserted++;
                    added?.Add(record);
                }

                continue;
            }

            var combined = HistoryMerge.Merge(match.Value.Record, record);
            var json = ReportJson.Serialize(combined);
            if (json == match.Value.Json)
            {
                unchanged++;
                continue;
            }

            await update(match.Value.Id, combined, json, cancellationToken);
            merged++;
        }

        return new HistoryImportResult(inserted, merged, unchanged);
    }
}
