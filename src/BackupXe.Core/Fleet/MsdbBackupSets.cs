using BackupXe.Core.Events;
using BackupXe.Core.History;
using BackupXe.Core.Reporting;
using BackupXe.Core.Restores;

namespace BackupXe.Core.Fleet;

/// <summary>msdb's backup sets as history records, so that compliance reads a chain checked on LSNs and the history alike.</summary>
public static class MsdbBackupSets
{
    /// <summary>
    /// The backup set as a completed backup: D a full, I a differential, L a log backup, the other types a file backup;
    /// its sizes, COPY_ONLY, encryption, LSNs and recovery model; <paramref name="utcOffset"/> is backupset.time_zone's offset when read.
    /// </summary>
    public static HistoryOperation ToHistory(BackupSetRow row, TimeSpan? utcOffset = null)
    {
        ArgumentNullException.ThrowIfNull(row);
        return new HistoryOperation
        {
            Kind = OperationKind.Backup,
            Scope = row.Type switch
            {
                'D' => OperationScope.Database,
                'I' => OperationScope.Differential,
                'L' => OperationScope.Log,
                _ => OperationScope.File,
            },
            Database = row.Database,
            Start = row.Start,
            End = row.Finish,
            TimeResolutionSeconds = 1,
            Status = OperationStatus.Completed,
            BytesRead = row.BackupSize,
            BytesWritten = row.CompressedSize ?? row.BackupSize,
            Options = new HistoryOptions { CopyOnly = row.IsCopyOnly, Encryption = row.KeyAlgorithm is null ? null : row.Encrypted },
            UtcOffset = utcOffset,
            Lsns = row.FirstLsn <= row.LastLsn ? new BackupLsns(row.FirstLsn, row.LastLsn, row.DatabaseBackupLsn, row.CheckpointLsn) : null,
            RecoveryModel = RecoveryModels.Of(row.RecoveryModel),
            Sources = [HistorySource.Msdb],
        };
    }
}
