namespace BackupXe.Core.Diagnosis;

/// <summary>The wait types the diagnosis reads (docs/domain.md section 7).</summary>
internal static class BackupWaits
{
    /// <summary>A backup thread waits for a buffer: free to fill, or full to write.</summary>
    public const string BackupBuffer = "BACKUPBUFFER";

    /// <summary>Waiting for a read or write on the backup device.</summary>
    public const string BackupIo = "BACKUPIO";

    /// <summary>Synchronisation between backup threads; in a restore, waiting for log zeroing.</summary>
    public const string Backup = "BACKUP";

    /// <summary>Zero-initialising files (wait_info_external).</summary>
    public const string WriteFileGather = "PREEMPTIVE_OS_WRITEFILEGATHER";
}
