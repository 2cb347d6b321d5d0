using BackupXe.Core.Events;
using BackupXe.Sources.Formats;
using BackupXe.Sources.HeaderOnly;

namespace BackupXe.Sources.BackupLists;

/// <summary>A RESTORE HEADERONLY result saved as tab-separated text (docs/input-formats.md), which <c>history import</c> also reads.</summary>
internal sealed class RestoreHeaderOnlyFormat : IInputFormat
{
    public string Name => ImportFile.BackupHeaderFormat;

    public string Description => "A RESTORE HEADERONLY result saved as tab-separated text: each backup set's start and finish to the second and its size, from the media";

    public string WhenDamaged => "A row with unreadable dates or sizes is reported with its line number and skipped; the other rows are analysed.";

    public FormatMatch Recognise(InputPrefix prefix)
        => RestoreHeaderOnlyReader.Recognise(prefix.Text) ? new FormatMatch(MatchStrength.Strong, prefix.Text.Encoding) : FormatMatch.None;

    public ITraceEventSource Open(string name, Stream content, FormatMatch match)
        => new BackupListEventSource(name, Name, OneShot.Of(content), match.TextEncoding, "RESTORE HEADERONLY's BackupStartDate and BackupFinishDate, to the second", text =>
        {
            var reader = new RestoreHeaderOnlyReader();
            return new HistoryExportReading(reader.Read(text).Select(r => new ExportedBackup(r, null)), () => reader.Problems);
        });
}
