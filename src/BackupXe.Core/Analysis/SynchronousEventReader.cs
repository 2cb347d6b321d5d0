using BackupXe.Core.Events;

namespace BackupXe.Core.Analysis;

/// <summary>
/// A single synchronous source: every read completes at once, so the analysis loop never suspends for it. A source
/// that throws loses its events from there on, as in <see cref="TimeOrderedMerge"/>, and the run goes on to the end.
/// </summary>
/// <remarks>
/// Read event by event, or run by run where the events come in runs (the read-ahead's batches, a .xel buffer's events):
/// then the enumerator is called once a run, and each event is an index into it.
/// </remarks>
internal sealed class SynchronousEventReader : SynchronousReader
{
    private static readonly TraceEventList None = new(0);

    private readonly IEnumerator<TraceEvent>? _events;
    private readonly IEnumerator<TraceEventList>? _batches;
    private readonly SourceStatus _status;
    private TraceEventList _batch = None;
    private int _next;

    public SynchronousEventReader(IEnumerator<TraceEvent> events, SourceStatus status)
    {
        _events = events;
        _status = status;
    }

    public SynchronousEventReader(IEnumerator<TraceEventList> batches, SourceStatus status)
    {
        _batches = batches;
        _status = status;
    }

    /// <summary>Reads the next event; false at the end, or once the source has thrown.</summary>
    public override bool MoveNext()
    {
        if (_next < _batch.Count)
        {
            Current = _batch[_next++];
            return true;
        }

        try
        {
            if (_batches is null)
            {
                if (!_events!.MoveNext())
                {
                    return false;
                }

                Current = _events.Current;
                return true;
            }

            do
            {
                if (!_batches.MoveNext())
                {
                    _batch = None;
                    return false;
                }

                _batch = _batches.Current;
            }
            while (_batch.Count == 0);

            _next = 1;
            Current = _batch[0];
            return true;
        }
        catch (Exception e) when (e is not OperationCanceledException)
        {
            _status.ReadingStopped(e);
            return false;
        }
    }

    public override ValueTask DisposeAsync()
    {
        _events?.Dispose();
        _batches?.Dispose();
        return ValueTask.CompletedTask;
    }
}
