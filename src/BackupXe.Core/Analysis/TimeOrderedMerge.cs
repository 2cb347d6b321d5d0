using System.Runtime.CompilerServices;
using BackupXe.Core.Events;

namespace BackupXe.Core.Analysis;

/// <summary>
/// Several inputs read as one stream in timestamp order, e.g. an event_file export beside the ERRORLOG of the
/// same night. A k-way merge that holds one pending event per source, so memory stays flat however long the
/// inputs are. Each input is assumed to be in time order already, as the server writes them.
/// </summary>
/// <remarks>
/// Timestamps are compared by ticks: an ERRORLOG's local times (Unspecified) and XE's UTC times share no zone,
/// and converting either would invent one. Aligning the two clocks is the caller's decision, not the merge's.
/// Equal timestamps keep source order, and each source keeps its own order.
/// With <c>readAhead</c> and a second core, each file that is read and parsed on the calling thread (a month of
/// ERRORLOGs) is read on a thread of its own, a few batches ahead (<see cref="ReadAhead"/>): the files are parsed in
/// parallel while the merge and the analysis run, and the events, their order and each input's problems are those of
/// the sequential read. Memory grows with the number of inputs (a few thousand events each at most), not their length.
/// </remarks>
internal sealed class TimeOrderedMerge
{
    private readonly IReadOnlyList<AnalysisInput> _inputs;
    private readonly bool _readAhead;

    /// <param name="readAhead">Read each file that pays for it ahead on a thread of its own, when there are several inputs and cores.</param>
    public TimeOrderedMerge(IReadOnlyList<AnalysisInput> inputs, bool readAhead = false)
    {
        _inputs = inputs;
        _readAhead = readAhead && inputs.Count > 1 && ReadAhead.Pays;
    }

    public TimeOrderedMerge(IReadOnlyList<ITraceEventSource> sources)
        : this(sources.Select(source => new AnalysisInput(source)).ToList())
    {
    }

    /// <summary>One status per input, in the order the inputs were given; filled as the merge reads.</summary>
    public IReadOnlyList<SourceStatus> Statuses => _inputs.Select(input => input.Status).ToList();

    /// <summary>Every event of every source, earliest first, with the index of the source it came from.</summary>
    public async IAsyncEnumerable<(TraceEvent Event, int SourceIndex)> ReadEventsAsync(
        [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        var readers = new IAsyncEnumerator<TraceEvent>?[_inputs.Count];
        var pending = new PriorityQueue<int, (long Ticks, int SourceIndex)>(readers.Length);
        try
        {
            for (var i = 0; i < readers.Length; i++)
            {
                readers[i] = Events(_inputs[i], cancellationToken).GetAsyncEnumerator(cancellationToken);
                await PullAsync(readers, i, pending).ConfigureAwait(false);
            }

            while (pending.TryDequeue(out var index, out _))
            {
                var next = readers[index]!.Current;
                yield return (next, index);
                await PullAsync(readers, index, pending).ConfigureAwait(false);
            }
        }
        finally
        {
            foreach (var reader in readers)
            {
                if (reader is not null)
                {
                    await reader.DisposeAsync().ConfigureAwait(false);
                }
            }
        }
    }

    /// <summary>One input's events: read ahead on a thread of its own when that pays, else where the merge pulls them.</summary>
    private IAsyncEnumerable<TraceEvent> Events(AnalysisInput input, CancellationToken cancellationToken) =>
        _readAhead && input.Source is ISynchronousTraceEventSource source && ReadAhead.PaysFor(source)
            ? ReadAhead.Events(source, input.Status, cancellationToken).ToAsyncEnumerable()
            : input.Source.ReadEventsAsync(input.Status, cancellationToken);

    private async ValueTask PullAsync(IAsyncEnumerator<TraceEvent>?[] readers, int index, PriorityQueue<int, (long, int)> pending)
    {
        bool more;
        try
        {
            more = await readers[index]!.MoveNextAsync().ConfigureAwait(false);
        }
        catch (Exception e) when (e is not OperationCanceledException)
        {
            // A source is meant to report damage, not throw it; if one throws anyway, lose that source, not the merge.
            _inputs[index].Status.ReadingStopped(e);
            more = false;
        }

        if (more)
        {
            pending.Enqueue(index, (readers[index]!.Current.Timestamp.Ticks, index));
        }
    }
}
