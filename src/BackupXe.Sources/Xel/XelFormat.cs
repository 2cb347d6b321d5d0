using BackupXe.Core.Events;
using BackupXe.Sources.Formats;

namespace BackupXe.Sources.Xel;

/// <summary>An Extended Events event_file, recognised by its header magic whatever the file is called.</summary>
public sealed class XelFormat : IInputFormat
{
    public string Name => "xel";

    public string Description => "Extended Events event_file (.xel), recognised by its header";

    public string WhenDamaged => "This build cannot decode .xel: the input is refused with the T-SQL that turns it into XE XML on a server.";

    public FormatMatch Recognise(InputPrefix prefix)
        => XelFileDetector.IsXel(prefix.Bytes.Span) ? new FormatMatch(MatchStrength.Certain) : FormatMatch.None;

    public ITraceEventSource Open(string name, Stream content, FormatMatch match)
    {
        content.Dispose();
        return new XelFileSource(name);
    }
}
