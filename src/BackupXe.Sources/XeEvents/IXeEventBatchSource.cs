using BackupXe.Core.Events;

namespace BackupXe.Sources.XeEvents;

/// <summary>
/// A listing source that decodes its events in independent batches (a .xel's log buffers), possibly on several
/// threads: each batch is told to a listing of its own (which writes its bytes) on the thread that decodes it, and
/// the listings are handed on in the source's order, so the work after decoding spreads over the cores too.
/// </summary>
public interface IXeEventBatchSource
{
    /// <summary>
    /// Every event whole, the values <see cref="IXeEventSource.ReadXeEventsAsync"/> would give, one batch at a time
    /// told to a listing from <paramref name="listing"/> (called on any thread, batches of one source possibly at
    /// once), straight from the decoded bytes; the listings in order. The status is brought up to date with a batch's
    /// problems and count just before its listing is handed on.
    /// </summary>
    IEnumerable<T> ReadXeEventBatches<T>(SourceStatus status, Func<T> listing, CancellationToken cancellationToken)
        where T : class, IXeEventListing;
}
