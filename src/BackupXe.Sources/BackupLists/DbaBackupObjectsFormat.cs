using BackupXe.Core.Events;
using BackupXe.Sources.Dbatools;
using BackupXe.Sources.Formats;

namespace BackupXe.Sources.BackupLists;

/// <summary>
/// dbatools' backup objects in PowerShell's list view (<c>Backup-DbaDatabase</c>'s result; <c>Get-DbaDbBackupHistory |
/// Format-List</c>): recognised by a first block of <c>Name : Value</c> lines naming Database, Type, TotalSize, Start and End.
/// </summary>
internal sealed class DbaBackupObjectsFormat : IInputFormat
{
    public const string FormatName = "dbatools-backup-objects";

    public string Name => FormatName;

    public string Description => "dbatools' backup objects as PowerShell lists them (`Backup-DbaDatabase`'s result, `Get-DbaDbBackupHistory` piped to `Format-List`): each backup's start and end to the second, its size, and the statement Backup-DbaDatabase ran";

    public string WhenDamaged => "An object with an unreadable Start, End, Type or TotalSize is reported with its line number and skipped; the other objects are analysed.";

    public FormatMatch Recognise(InputPrefix prefix)
        => DbaBackupListReader.Recognise(prefix.Text) ? new FormatMatch(MatchStrength.Strong, prefix.Text.Encoding) : FormatMatch.None;

    public ITraceEventSource Open(string name, Stream content, FormatMatch match)
        => new BackupListEventSource(name, Name, OneShot.Of(content), match.TextEncoding, "dbatools' Start and End (msdb's), to the second", text =>
        {
            var reader = new DbaBackupListReader();
            return new HistoryExportReading(
                reader.Read(text).Select(o => new ExportedBackup(o.Record, o.HasStatement ? Requested(o.Record) : null)),
                () => reader.Problems);
        });

    private static Core.Events.RequestedReport Requested(Core.History.HistoryOperation record) => new(
        record.Devices.Where(d => d.Path is not null && !d.IsMirror).Select(d => d.Path!).ToList(),
        record.Options.BufferCount,
        record.Options.MaxTransferSizeBytes,
        record.Options.BlockSizeBytes,
        record.Options.Compression,
        record.Options.Checksum,
        record.Options.CopyOnly == true,
        "the Script of Backup-DbaDatabase");
}
