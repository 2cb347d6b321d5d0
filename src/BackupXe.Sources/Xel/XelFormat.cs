using BackupXe.Core.Events;
using BackupXe.Sources.Formats;

namespace BackupXe.Sources.Xel;

/// <summary>An Extended Events event_file, recognised by its header magic whatever the file is called.</summary>
internal sealed class XelFormat : IInputFormat
{
    public string Name => "xel";

    public string Description => "Extended Events event_file (.xel), or a rollover set given as a pattern, decoded by BackupXe's own reader (docs/xel.md)";

    public string WhenDamaged => "A damaged log buffer is reported with its file offset and skipped, later buffers are still read; a file cut short (still being written) is read up to its last complete buffer.";

    public FormatMatch Recognise(InputPrefix prefix)
        => XelFileDetector.IsXel(prefix.Bytes.Span) ? new FormatMatch(MatchStrength.Certain) : FormatMatch.None;

    public ITraceEventSource Open(string name, Stream content, FormatMatch match) => new XelFileSource(name, OneShot.Of(content));
}
