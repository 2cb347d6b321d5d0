using System.Collections.Concurrent;
using BackupXe.Sources.XeEvents;

namespace BackupXe.Cli.Rendering;

/// <summary>
/// Lists each decoded batch of events (a .xel log buffer) on the thread that decodes it, into bytes of its own and
/// straight from the buffer's bytes (<see cref="IXeEventListing"/>), so the formatting spreads over the cores with
/// the decoding; the listing copies the parts out in the source's order. Writers are reused: as many exist as
/// batches are in flight at once.
/// </summary>
internal sealed class EventListBatches(string format, XeNames columns, HashSet<string>? wanted)
{
    // A log buffer's listing is a few times its size (docs/performance.md); a part grows past this when it must.
    private const int PartCapacity = 256 * 1024;

    private readonly ConcurrentBag<EventListWriter> _free = [];

    /// <summary>A writer of its own for one batch, gathering its bytes; called on any thread.</summary>
    public EventListWriter Start() =>
        _free.TryTake(out var part) ? part : EventListWriter.For(format, new OutputBuffer(PartCapacity), columns, wanted);

    /// <summary>Hands a part's bytes, names and unplaced names on to the listing, then keeps the part's writer for reuse.</summary>
    public void CopyOut(EventListWriter part, OutputBuffer output, EventNames seen, EventListWriter list)
    {
        output.Write(part.Output.Gathered);
        output.WriteIfFull();
        seen.Add(part.Counted());
        list.Absorb(part);
        part.Clear();
        _free.Add(part);
    }
}
