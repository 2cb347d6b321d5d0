namespace BackupXe.Core.Correlation;

/// <summary>Wait types only backup/restore threads incur (domain.md section 7), as opposed to generic I/O waits.</summary>
public static class BackupWaitTypes
{
    /// <summary>A backup thread waits for a buffer: free to fill, or full to write.</summary>
    public const string BackupBuffer = "BACKUPBUFFER";

    /// <summary>Waiting for a read or write on the backup device.</summary>
    public const string BackupIo = "BACKUPIO";

    /// <summary>The coordinator waiting for backup threads; long by design.</summary>
    public const string BackupThread = "BACKUPTHREAD";

    /// <summary>Synchronisation between backup threads; in a restore, waiting for log zeroing.</summary>
    public const string Backup = "BACKUP";

    /// <summary>Zero-initialising files (wait_info_external).</summary>
    public const string WriteFileGather = "PREEMPTIVE_OS_WRITEFILEGATHER";

    public const string AsyncIoCompletion = "ASYNC_IO_COMPLETION";
    public const string IoCompletion = "IO_COMPLETION";

    public static bool IsBackupSpecific(string waitType)
        => waitType.StartsWith("BACKUP", StringComparison.OrdinalIgnoreCase)
            || waitType.StartsWith("PREEMPTIVE_OS_BACKUP", StringComparison.OrdinalIgnoreCase)
            || string.Equals(waitType, WriteFileGather, StringComparison.OrdinalIgnoreCase);
}
