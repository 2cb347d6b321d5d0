using BackupXe.Core.Events;
using BackupXe.Sources.Formats;

namespace BackupXe.Sources.OlaOutput;

/// <summary>
/// Ola Hallengren's DatabaseBackup / DatabaseRestore job output (CommandExecute): each command between its
/// "Date and time:" lines, with the engine's messages. Recognised by a "Date and time:" line followed within three
/// lines by "Database context:" or "Command:", which no other format writes.
/// </summary>
internal sealed class OlaOutputFormat : IInputFormat
{
    public string Name => ImportFile.OlaOutputFormat;

    public string Description => "Ola Hallengren's DatabaseBackup / DatabaseRestore job output: each command's start and end on the client's clock, with the engine's messages";

    public string WhenDamaged => "An unreadable date, time or duration is reported with its line number; a command without its opening `Date and time:` line (an excerpt that starts mid-command) is reported and read from its engine messages, with no client span.";

    public FormatMatch Recognise(InputPrefix prefix)
        => OlaJobOutputReader.Recognise(prefix.Text) ? new FormatMatch(MatchStrength.Strong, prefix.Text.Encoding) : FormatMatch.None;

    public ITraceEventSource Open(string name, Stream content, FormatMatch match)
        => new OlaOutputEventSource(name, OneShot.Of(content), match.TextEncoding);
}
