using System.Collections.Concurrent;
using BackupXe.Cli.Commands;
using BackupXe.Sources.XeEvents;

namespace BackupXe.Cli.Rendering;

/// <summary>
/// Formats the listing of one decoded batch of events (a .xel log buffer) on the thread that decoded it, into bytes of
/// its own, so the formatting spreads over the cores with the decoding; the listing copies the parts out in the
/// source's order. Formatters are reused: as many exist as batches are in flight at once.
/// </summary>
internal sealed class EventListBatches(string format, XeNames columns, HashSet<string>? wanted)
{
    // A log buffer's listing is a few times its size (docs/performance.md); a part grows past this when it must.
    private const int PartCapacity = 256 * 1024;

    private readonly ConcurrentBag<EventListPart> _free = [];

    /// <summary>Lists <paramref name="events"/> into a part; called on any thread.</summary>
    public EventListPart Format(IReadOnlyList<XeEvent> events)
    {
        if (!_free.TryTake(out var part))
        {
            var output = new OutputBuffer(PartCapacity);
            part = new EventListPart(output, EventListWriter.For(format, output, columns));
        }

        foreach (var xeEvent in events)
        {
            var listed = wanted is null || wanted.Contains(xeEvent.Name);
            part.Seen.Add(xeEvent.Name, listed);
            if (listed)
            {
                part.Writer.Write(xeEvent);
            }
        }

        return part;
    }

    /// <summary>Hands a part's bytes, names and unplaced names on to the listing, then keeps the part for reuse.</summary>
    public void CopyOut(EventListPart part, OutputBuffer output, EventNames seen, EventListWriter list)
    {
        output.Write(part.Output.Gathered);
        output.WriteIfFull();
        seen.Add(part.Seen);
        list.Absorb(part.Writer);
        part.Clear();
        _free.Add(part);
    }
}

/// <summary>The listing of one batch: its bytes, the names it held and the formatter that wrote it.</summary>
internal sealed class EventListPart(OutputBuffer output, EventListWriter writer)
{
    public OutputBuffer Output { get; } = output;

    public EventListWriter Writer { get; } = writer;

    public EventNames Seen { get; } = new();

    public void Clear()
    {
        Output.Clear();
        Writer.Clear();
        Seen.Clear();
    }
}
