namespace BackupXe.Core.Correlation;

/// <summary>One reading of how many bytes an operation had moved by a moment.</summary>
public readonly record struct ProgressPoint(DateTime At, long Bytes);

/// <summary>
/// Cumulative bytes over time, kept to a fixed number of points whatever the number of readings: when full,
/// every other point is dropped and from then on only every second reading is kept (and so on, doubling).
/// Because the bytes are cumulative, dropping a point loses resolution only: the rate between two kept
/// points is still the exact average over that interval. The latest reading is always kept, so the series
/// ends where the operation's progress ended.
/// </summary>
public sealed class ProgressSeries
{
    /// <summary>Enough for a curve a person can read; one percent line per percent is 100 readings.</summary>
    public const int DefaultCapacity = 120;

    // Made on the first reading: an operation has one series per kind of reading, and an ERRORLOG never fills
    // the throughput one, whose empty slots would be kept for every backup of the log.
    private List<ProgressPoint>? _kept;
    private readonly int _capacity;
    private long _readings;
    private long _stride = 1;
    private ProgressPoint? _latest;

    public ProgressSeries(int capacity = DefaultCapacity)
    {
        if (capacity < 4 || capacity % 2 != 0)
        {
            throw new ArgumentOutOfRangeException(nameof(capacity), capacity, "The capacity must be an even number of at least 4.");
        }

        _capacity = capacity;
    }

    public long Readings => _readings;

    public void Add(DateTime at, long bytes)
    {
        var point = new ProgressPoint(at, bytes);
        _latest = point;
        if (_readings++ % _stride != 0)
        {
            return;
        }

        _kept ??= new List<ProgressPoint>(_capacity);
        _kept.Add(point);
        if (_kept.Count == _capacity)
        {
            // Keep positions 0, 2, 4...: the readings whose index is a multiple of the doubled stride.
            var write = 0;
            for (var read = 0; read < _kept.Count; read += 2)
            {
                _kept[write++] = _kept[read];
            }

            _kept.RemoveRange(write, _kept.Count - write);
            _stride *= 2;
        }
    }

    /// <summary>The kept points in reading order, the latest reading last; at most capacity + 1 of them.</summary>
    public IReadOnlyList<ProgressPoint> Points
    {
        get
        {
            var kept = _kept ?? [];
            if (_latest is not { } latest || (kept.Count > 0 && kept[^1] == latest))
            {
                return kept.ToList();
            }

            return [.. kept, latest];
        }
    }
}
