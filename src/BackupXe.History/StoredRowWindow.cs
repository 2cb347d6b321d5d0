using BackupXe.Core.History;

namespace BackupXe.History;

/// <summary>
/// The stored rows one import has already read, as records, kept only near the records being imported: a record is
/// compared with every stored row of its series within a day (<see cref="SqliteImportedHistory"/>), so reading each
/// row's JSON once rather than once per record keeps an import linear, and dropping the rows that the import has moved
/// past keeps its memory to the rows around the records in flight, not the rows of the file.
/// </summary>
internal sealed class StoredRowWindow
{
    /// <summary>How far from the record being stored a kept row may start: the match query's day, and a day for records out of order.</summary>
    public static readonly TimeSpan Reach = TimeSpan.FromDays(2);

    /// <summary>The most rows kept whatever their times (a day holding more rows than this reads the rest again).</summary>
    public const int MaxRows = 16_384;

    private const int FirstPrune = 1_024;

    private readonly Dictionary<long, (DateTime? Start, HistoryOperation? Record)> _rows = [];
    private int _nextPrune = FirstPrune;
    private (DateTime From, DateTime To)? _around;

    public int Count => _rows.Count;

    /// <summary>The record being stored now: rows far from it are the ones dropped when the window is pruned.</summary>
    public void Storing(HistoryOperation record)
        => _around = (record.Start - Reach, (record.End ?? record.Start) + Reach);

    public bool TryGet(long id, out HistoryOperation? record)
    {
        var found = _rows.TryGetValue(id, out var row);
        record = row.Record;
        return found;
    }

    /// <summary>Keeps a row read (null when its JSON could not be read, so that it is not read again).</summary>
    public void Keep(long id, HistoryOperation? record)
    {
        if (_rows.Count >= _nextPrune && !_rows.ContainsKey(id))
        {
            Prune();
        }

        _rows[id] = (record?.Start, record);
    }

    // Pruned when the count doubles, so that the pruning costs a constant per row kept.
    private void Prune()
    {
        if (_around is { } around)
        {
            foreach (var (id, row) in _rows)
            {
                if (row.Start is not { } start || start < around.From || start > around.To)
                {
                    _rows.Remove(id);
                }
            }
        }

        if (_rows.Count >= MaxRows)
        {
            _rows.Clear();
        }

        _nextPrune = Math.Max(FirstPrune, Math.Min(MaxRows, _rows.Count * 2));
    }
}
