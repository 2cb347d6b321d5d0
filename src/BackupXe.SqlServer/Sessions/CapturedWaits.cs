namespace BackupXe.SqlServer.Sessions;

/// <summary>
/// The wait names the install script (sessions/backupxe-session.sql) resolves to map keys, as a list BackupXe can
/// compare a stored predicate with. The script keeps its own literal list so that it runs alone in SSMS; a test holds
/// the two equal.
/// </summary>
public static class CapturedWaits
{
    public static IReadOnlyList<string> Names { get; } =
    [
        "BACKUPBUFFER", "BACKUPIO", "BACKUPTHREAD", "BACKUP",
        "ASYNC_IO_COMPLETION", "IO_COMPLETION", "XTP_RECOVERY", "WAIT_XTP_RECOVERY",
        "PREEMPTIVE_OS_WRITEFILEGATHER", "PREEMPTIVE_OS_BACKUPREAD",
        "PREEMPTIVE_OS_WRITEFILE", "PREEMPTIVE_OS_FLUSHFILEBUFFERS",
        "PREEMPTIVE_OS_SETFILEVALIDDATA", "PREEMPTIVE_OS_CREATEFILE",
    ];

    /// <summary>Preemptive waits are raised only by wait_info_external, the others only by wait_info (as the script splits them).</summary>
    public static bool IsPreemptive(string name) => name.StartsWith("PREEMPTIVE_", StringComparison.Ordinal);
}
