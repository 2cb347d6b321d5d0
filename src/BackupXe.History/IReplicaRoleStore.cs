using BackupXe.Core.Fleet;

namespace BackupXe.History;

/// <summary>
/// Where the availability group replica roles are kept (docs/fleet.md, "Backup preference"): the SQLite history's
/// replica_roles or the central store's dbo.replica_roles. A save replaces the instance's roles: a role is a state.
/// </summary>
public interface IReplicaRoleStore
{
    /// <exception cref="HistoryStoreException">The store cannot be written.</exception>
    Task SaveAsync(string instance, IReadOnlyList<ReplicaRole> roles, CancellationToken cancellationToken);

    /// <summary>Every instance's roles.</summary>
    /// <exception cref="HistoryStoreException">The store cannot be read.</exception>
    Task<IReadOnlyList<ReplicaRole>> ReadAsync(CancellationToken cancellationToken);
}
