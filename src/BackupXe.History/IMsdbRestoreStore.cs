using BackupXe.Core.Restores;

namespace BackupXe.History;

/// <summary>A full database restore msdb's restorehistory holds, as the history keeps it: the instance it ran on.</summary>
public sealed record StoredMsdbRestore(string Instance, DatabaseRestore Restore);

/// <summary>What one import of restorehistory kept, or why it kept nothing.</summary>
/// <param name="Read">How many full database restores were read (and kept: a restore kept before is kept once).</param>
/// <param name="Note">Why restorehistory was not read (a login without SELECT on it); null when it was.</param>
public sealed record MsdbRestoresImport(int Read, string? Note);

/// <summary>
/// Where msdb's full database restores are kept (docs/fleet.md, "Never restored"): the SQLite history's msdb_restores or
/// the central store's dbo.msdb_restores, each restore once on instance, database and restore_date.
/// </summary>
public interface IMsdbRestoreStore
{
    /// <exception cref="HistoryStoreException">The store cannot be written.</exception>
    Task SaveAsync(string instance, IReadOnlyList<DatabaseRestore> restores, CancellationToken cancellationToken);

    /// <summary>Every instance's kept restores.</summary>
    /// <exception cref="HistoryStoreException">The store cannot be read.</exception>
    Task<IReadOnlyList<StoredMsdbRestore>> ReadAsync(CancellationToken cancellationToken);
}
