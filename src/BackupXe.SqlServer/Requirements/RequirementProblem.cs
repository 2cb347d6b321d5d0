namespace BackupXe.SqlServer.Requirements;

/// <summary>Why BackupXe cannot capture on a server, and what to do about it.</summary>
public sealed record RequirementProblem(RequirementKind Kind, string Message);

/// <summary>The kind of obstacle to capturing on a server.</summary>
public enum RequirementKind
{
    /// <summary>Older than SQL Server 2016: no backup_restore_progress_trace event.</summary>
    VersionTooOld,

    /// <summary>Azure SQL Database: sessions are database scoped, not server scoped.</summary>
    UnsupportedPlatform,

    /// <summary>The login lacks a server permission the capture needs.</summary>
    MissingPermission,
}
