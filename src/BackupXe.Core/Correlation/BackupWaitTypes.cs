namespace BackupXe.Core.Correlation;

/// <summary>Wait types only backup/restore threads incur (domain.md section 7), as opposed to generic I/O waits.</summary>
public static class BackupWaitTypes
{
    public const string BackupBuffer = "BACKUPBUFFER";
    public const string BackupIo = "BACKUPIO";
    public const string BackupThread = "BACKUPTHREAD";
    public const string Backup = "BACKUP";
    public const string WriteFileGather = "PREEMPTIVE_OS_WRITEFILEGATHER";
    public const string AsyncIoCompletion = "ASYNC_IO_COMPLETION";
    public const string IoCompletion = "IO_COMPLETION";

    public static bool IsBackupSpecific(string waitType)
        => waitType.StartsWith("BACKUP", StringComparison.OrdinalIgnoreCase)
            || waitType.StartsWith("PREEMPTIVE_OS_BACKUP", StringComparison.OrdinalIgnoreCase)
            || string.Equals(waitType, WriteFileGather, StringComparison.OrdinalIgnoreCase);
}
