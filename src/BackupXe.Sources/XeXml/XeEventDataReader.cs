using System.Xml;
using BackupXe.Core.Events;

namespace BackupXe.Sources.XeXml;

/// <summary>
/// Parses the <c>event_data</c> column of one <c>sys.fn_xe_file_target_read_file</c> row (one <c>&lt;event&gt;</c>
/// element as text) with the same parser the XE XML files use, so a live event and a saved one map alike.
/// One instance per reader: it keeps its name table and the texts that recur across rows.
/// </summary>
public sealed class XeEventDataReader
{
    private readonly XmlReaderSettings _settings;
    private readonly StringPool _texts = new();

    public XeEventDataReader()
    {
        // The file reader's settings (fragments, no DTD, no resolver), with a name table of this reader's own.
        _settings = XeXmlEventSource.ReaderSettings(closeInput: false);
    }

    /// <summary>
    /// The event in <paramref name="eventData"/>, or null when the row is one BackupXe does not analyse or is
    /// damaged (then reported in <paramref name="problems"/> at <paramref name="location"/>).
    /// </summary>
    public TraceEvent? Read(string eventData, SourceStatus problems, string location)
    {
        ArgumentNullException.ThrowIfNull(eventData);
        ArgumentNullException.ThrowIfNull(problems);
        var scratch = new SourceStatus();
        using var text = new StringReader(eventData);
        using var reader = XmlReader.Create(text, _settings);
        var outcome = new XeEventParser(reader, _texts).ReadNext(scratch, out var traceEvent);
        foreach (var problem in scratch.Problems)
        {
            problems.Report($"{location}, {problem.Location}", problem.Message);
        }

        if (outcome == XeReadOutcome.End)
        {
            problems.Report(location, "event_data holds no <event> element; row skipped");
        }

        return outcome == XeReadOutcome.Event ? traceEvent : null;
    }
}
