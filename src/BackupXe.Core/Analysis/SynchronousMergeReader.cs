namespace BackupXe.Core.Analysis;

/// <summary>
/// Files read together (the members of a rollover set named one by one, a month of ERRORLOGs) merged in the order of
/// <see cref="TimeOrderedMerge"/>: earliest timestamp first, equal timestamps in input order, each input in its own
/// order. Every read completes at once, and while the input of the last event stays the earliest, which it does for
/// files that follow one another in time, its events are taken without touching the queue.
/// </summary>
internal sealed class SynchronousMergeReader : SynchronousReader
{
    private readonly SynchronousEventReader[] _inputs;
    private readonly PriorityQueue<int, (long Ticks, int Input)> _pending;
    private int _head = -1;

    public SynchronousMergeReader(SynchronousEventReader[] inputs)
    {
        _inputs = inputs;
        _pending = new PriorityQueue<int, (long, int)>(inputs.Length);
        for (var i = 0; i < inputs.Length; i++)
        {
            if (inputs[i].MoveNext())
            {
                _pending.Enqueue(i, (inputs[i].Current.Timestamp.Ticks, i));
            }
        }
    }

    public override bool MoveNext()
    {
        if (_head >= 0)
        {
            var input = _inputs[_head];
            if (input.MoveNext())
            {
                var key = (input.Current.Timestamp.Ticks, _head);
                if (!_pending.TryPeek(out _, out var earliest) || key.CompareTo(earliest) < 0)
                {
                    Current = input.Current;
                    return true;
                }

                _pending.Enqueue(_head, key);
            }
        }

        if (!_pending.TryDequeue(out _head, out _))
        {
            _head = -1;
            return false;
        }

        Current = _inputs[_head].Current;
        SourceIndex = _head;
        return true;
    }

    public override async ValueTask DisposeAsync()
    {
        foreach (var input in _inputs)
        {
            await input.DisposeAsync().ConfigureAwait(false);
        }
    }
}
