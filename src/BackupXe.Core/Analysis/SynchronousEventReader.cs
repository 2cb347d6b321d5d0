using BackupXe.Core.Events;

namespace BackupXe.Core.Analysis;

/// <summary>
/// A single synchronous source: every read completes at once, so the analysis loop never suspends for it. A source
/// that throws loses its events from there on, as in <see cref="TimeOrderedMerge"/>, and the run goes on to the end.
/// </summary>
internal sealed class SynchronousEventReader(IEnumerator<TraceEvent> events, SourceStatus status) : EventReader
{
    public override ValueTask<bool> MoveNextAsync() => new(MoveNext());

    /// <summary>Reads the next event; false at the end, or once the source has thrown.</summary>
    public bool MoveNext()
    {
        try
        {
            if (!events.MoveNext())
            {
                return false;
            }

            Current = events.Current;
            return true;
        }
        catch (Exception e) when (e is not OperationCanceledException)
        {
            status.ReadingStopped(e);
            return false;
        }
    }

    public override ValueTask DisposeAsync()
    {
        events.Dispose();
        return ValueTask.CompletedTask;
    }
}
