using BackupXe.Core.Events;
using BackupXe.Sources.Formats;
using BackupXe.Sources.HeaderOnly;

namespace BackupXe.Sources.BackupLists;

/// <summary>dbatools' <c>Get-DbaDbBackupHistory</c> printed as its default table (docs/input-formats.md), which <c>history import</c> also reads.</summary>
internal sealed class DbaBackupHistoryFormat : IInputFormat
{
    public string Name => ImportFile.DbaBackupHistoryFormat;

    public string Description => "dbatools' `Get-DbaDbBackupHistory` table: msdb's backups, each one's start and end to the second and its size";

    public string WhenDamaged => "A row with an unreadable Start, End, Type or TotalSize is reported with its line number and skipped; the other rows are analysed.";

    public FormatMatch Recognise(InputPrefix prefix)
        => DbaBackupHistoryTableReader.Recognise(prefix.Text) ? new FormatMatch(MatchStrength.Strong, prefix.Text.Encoding) : FormatMatch.None;

    public ITraceEventSource Open(string name, Stream content, FormatMatch match)
        => new BackupListEventSource(name, Name, OneShot.Of(content), match.TextEncoding, "Get-DbaDbBackupHistory's Start and End (msdb's), to the second", text =>
        {
            var reader = new DbaBackupHistoryTableReader();
            return new HistoryExportReading(reader.Read(text).Select(r => new ExportedBackup(r, null)), () => reader.Problems);
        });
}
