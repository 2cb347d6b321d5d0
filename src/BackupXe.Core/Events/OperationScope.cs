namespace BackupXe.Core.Events;

/// <summary>What a backup/restore is of: BACKUP DATABASE / LOG / DIFFERENTIAL / FILE (same for RESTORE).</summary>
public enum OperationScope
{
    Database,
    Log,
    Differential,
    File,
}
