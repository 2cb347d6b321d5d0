using System.Globalization;
using System.Xml;
using BackupXe.Core.Events;
using BackupXe.Sources.XeXml;

namespace BackupXe.SqlServer.Live.RingBuffer;

/// <summary>What one read of a ring_buffer target brought that the previous reads had not.</summary>
/// <param name="TotalEventsProcessed">The target's count of every event it has received since the session started.</param>
/// <param name="NewEvents">The events new since the previous read, oldest first (only those BackupXe analyses).</param>
/// <param name="Lost">Events the target received since the previous read but had already discarded (strict FIFO) before this one.</param>
/// <param name="Restarted">The count went backwards: the session was restarted (or the instance failed over) since the previous read.</param>
internal sealed record RingBufferRead(long TotalEventsProcessed, IReadOnlyList<TraceEvent> NewEvents, long Lost, bool Restarted)
{
    /// <summary>
    /// Reads one <c>&lt;RingBufferTarget&gt;</c> document from <paramref name="targetData"/>. The target keeps its events
    /// oldest first and discards the oldest when it is full (strict FIFO, the default occurrence_number 0), and its
    /// <c>totalEventsProcessed</c> counts every event it received, so the events new since a read that saw
    /// <paramref name="previousTotal"/> are the last (total - previous) of the document. Only those are kept while
    /// reading, so memory is bounded by the events new since the last read, at most the target's own size.
    /// </summary>
    /// <exception cref="InvalidDataException">The text is not a ring_buffer target's document.</exception>
    public static RingBufferRead Parse(TextReader targetData, long? previousTotal, XeEventDataReader events, SourceStatus problems, string location)
    {
        ArgumentNullException.ThrowIfNull(targetData);
        ArgumentNullException.ThrowIfNull(events);
        using var reader = XmlReader.Create(targetData, new XmlReaderSettings
        {
            DtdProcessing = DtdProcessing.Prohibit,
            XmlResolver = null,
            IgnoreWhitespace = true,
            IgnoreComments = true,
        });
        if (reader.MoveToContent() != XmlNodeType.Element || reader.LocalName != "RingBufferTarget")
        {
            throw new InvalidDataException("the target's data is not a RingBufferTarget document.");
        }

        var total = Count(reader, "totalEventsProcessed");
        var held = Count(reader, "eventCount");
        var restarted = previousTotal is { } before && total < before;
        var wanted = previousTotal is { } previous && !restarted ? total - previous : held;
        var kept = new Queue<string>();
        var seen = 0L;
        if (!reader.IsEmptyElement && wanted > 0)
        {
            reader.Read();
            while (!reader.EOF && reader.Depth >= 1)
            {
                if (reader.NodeType == XmlNodeType.Element && reader.Depth == 1 && reader.LocalName == "event")
                {
                    seen++;
                    kept.Enqueue(reader.ReadOuterXml());
                    if (kept.Count > wanted)
                    {
                        kept.Dequeue();
                    }
                }
                else
                {
                    reader.Read();
                }
            }
        }

        var newEvents = new List<TraceEvent>(kept.Count);
        var index = seen - kept.Count;
        foreach (var xml in kept)
        {
            index++;
            if (events.Read(xml, problems, string.Create(CultureInfo.InvariantCulture, $"{location}, event {index}")) is { } traceEvent)
            {
                newEvents.Add(traceEvent);
            }
        }

        // The first read has nothing before it to miss; a restart lost what came after the last read, in an unknown number.
        var lost = previousTotal is null || restarted ? 0 : Math.Max(0, wanted - kept.Count);
        return new RingBufferRead(total, newEvents, lost, restarted);
    }

    private static long Count(XmlReader reader, string attribute) =>
        long.TryParse(reader.GetAttribute(attribute), NumberStyles.None, CultureInfo.InvariantCulture, out var value)
            ? value
            : throw new InvalidDataException($"the RingBufferTarget element has no {attribute} count.");
}
