using BackupXe.Core.Events;
using BackupXe.Sources.Formats;

namespace BackupXe.Sources.XeXml;

/// <summary>
/// XE XML: a ring_buffer target, or event_data rows of <c>sys.fn_xe_file_target_read_file</c> saved back to back
/// or under any root. Users save these under any extension, so only the content decides.
/// </summary>
internal sealed class XeXmlFormat : IInputFormat
{
    public string Name => "xe-xml";

    public string Description => "Extended Events as XML: ring_buffer target data or event_data rows of sys.fn_xe_file_target_read_file";

    public string WhenDamaged => "Malformed XML ends the read where it occurs, reported with its line and position; every complete event before it is analysed.";

    public FormatMatch Recognise(InputPrefix prefix)
    {
        var text = prefix.Text.Content.AsSpan().TrimStart();
        if (text.StartsWith('<'))
        {
            return new FormatMatch(MatchStrength.Strong, prefix.Text.Encoding);
        }

        // Damage before the first element (a cut, a stray byte) must not hide the events that follow it.
        return text.Contains("<event name=", StringComparison.Ordinal)
            ? new FormatMatch(MatchStrength.Weak, prefix.Text.Encoding)
            : FormatMatch.None;
    }

    public ITraceEventSource Open(string name, Stream content, FormatMatch match) => new XeXmlEventSource(name, OneShot.Of(content), match.TextEncoding);
}
