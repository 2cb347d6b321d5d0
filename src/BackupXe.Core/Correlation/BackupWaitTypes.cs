namespace BackupXe.Core.Correlation;

/// <summary>Wait types only backup/restore threads incur (docs/backup-internals.md#wait-types), as opposed to generic I/O waits.</summary>
internal static class BackupWaitTypes
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

    /// <summary>
    /// A database's recovery waiting for the In-Memory OLTP engine to load its memory-optimized data (the checkpoint
    /// file pairs) and redo their log tail: after a restore, a failover or a restart (Microsoft docs,
    /// sys.dm_os_wait_types, "WAIT_XTP_RECOVERY"; SQL Server 2014+). XE names it by its map value, without the WAIT_.
    /// </summary>
    public const string XtpRecovery = "XTP_RECOVERY";

    /// <summary>The DMV's name of <see cref="XtpRecovery"/> (sys.dm_os_wait_stats).</summary>
    public const string WaitXtpRecovery = "WAIT_XTP_RECOVERY";

    /// <summary>True for the in-memory load wait under either of its names.</summary>
    /// <remarks>
    /// Asked of every attributed wait: the length and the last letter rule out nearly all of them without a call
    /// (BACKUPBUFFER, the commonest, is as long as XTP_RECOVERY).
    /// </remarks>
    public static bool IsInMemoryLoad(string waitType)
        => (waitType.Length == XtpRecovery.Length || waitType.Length == WaitXtpRecovery.Length)
            && (waitType[^1] | 0x20) == 'y'
            && (string.Equals(waitType, XtpRecovery, StringComparison.OrdinalIgnoreCase)
                || string.Equals(waitType, WaitXtpRecovery, StringComparison.OrdinalIgnoreCase));

    public static bool IsBackupSpecific(string waitType)
        => waitType.StartsWith("BACKUP", StringComparison.OrdinalIgnoreCase)
            || waitType.StartsWith("PREEMPTIVE_OS_BACKUP", StringComparison.OrdinalIgnoreCase)
            || string.Equals(waitType, WriteFileGather, StringComparison.OrdinalIgnoreCase);
}
