using BackupXe.Core.Events;

namespace BackupXe.Core.Analysis;

/// <summary>The events of every input in time order (<see cref="TimeOrderedMerge"/>), each with the index of its input.</summary>
internal sealed class MergedEventReader(TimeOrderedMerge merge, CancellationToken cancellationToken) : EventReader
{
    private readonly IAsyncEnumerator<(TraceEvent Event, int SourceIndex)> _events =
        merge.ReadEventsAsync(cancellationToken).GetAsyncEnumerator(cancellationToken);

    public override async ValueTask<bool> MoveNextAsync()
    {
        if (!await _events.MoveNextAsync().ConfigureAwait(false))
        {
            return false;
        }

        (Current, SourceIndex) = _events.Current;
        return true;
    }

    public override ValueTask DisposeAsync() => _events.DisposeAsync();
}
