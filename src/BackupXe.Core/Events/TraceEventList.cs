namespace BackupXe.Core.Events;

/// <summary>
/// Events in the order they were added, each held in a struct's field rather than as an element of a
/// <c>TraceEvent[]</c>: storing a derived event into an array of its abstract base type is checked against the
/// array's element type at every store (covariance), a cost paid per event where a reader hands events on in bulk
/// (docs/performance.md, "Decoding .xel").
/// </summary>
public sealed class TraceEventList(int capacity)
{
    private Slot[] _slots = new Slot[Math.Max(capacity, 4)];

    public int Count { get; private set; }

    public TraceEvent this[int index] =>
        (uint)index < (uint)Count ? _slots[index].Event : throw new ArgumentOutOfRangeException(nameof(index));

    public void Add(TraceEvent traceEvent)
    {
        if (Count == _slots.Length)
        {
            Array.Resize(ref _slots, _slots.Length * 2);
        }

        _slots[Count++].Event = traceEvent;
    }

    /// <summary>The events of <paramref name="runs"/>, run after run, each in its order.</summary>
    public static IEnumerable<TraceEvent> Flatten(IEnumerable<TraceEventList> runs)
    {
        foreach (var run in runs)
        {
            for (var i = 0; i < run.Count; i++)
            {
                yield return run[i];
            }
        }
    }

    /// <summary>Empties the list for reuse; the events it held are let go.</summary>
    public void Clear()
    {
        Array.Clear(_slots, 0, Count);
        Count = 0;
    }

    private struct Slot
    {
        public TraceEvent Event;
    }
}
