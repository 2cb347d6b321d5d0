using BackupXe.Core.Events;

namespace BackupXe.Sources.XeEvents;

/// <summary>
/// A listing source that decodes its events in independent batches (a .xel's log buffers), possibly on several
/// threads: each batch can be turned into what its consumer needs (a listing's bytes) on the thread that decoded it,
/// and the results are handed on in the source's order, so the work after decoding spreads over the cores too.
/// </summary>
public interface IXeEventBatchSource
{
    /// <summary>
    /// Every event whole, as <see cref="IXeEventSource.ReadXeEventsAsync"/> gives them, one batch at a time through
    /// <paramref name="prepare"/> (called on any thread, batches of one source possibly at once); the results in
    /// order. The status is brought up to date with a batch's problems and count just before its result is handed on.
    /// </summary>
    IEnumerable<T> ReadXeEventBatches<T>(SourceStatus status, Func<IReadOnlyList<XeEvent>, T> prepare, CancellationToken cancellationToken)
        where T : class;
}
