namespace BackupXe.Core.Fleet;

/// <summary>
/// One replica's place in an availability group for one of its databases, as the replica said it when read
/// (docs/fleet.md, "Backup preference"): its role (sys.dm_hadr_availability_replica_states.role_desc), the group's
/// automated backup preference (sys.availability_groups.automated_backup_preference_desc), the replica's
/// backup_priority (sys.availability_replicas) and whether sys.fn_hadr_backup_is_preferred_replica named this replica
/// the one for the database's backups. A role or preference the replica could not give is null.
/// </summary>
/// <param name="Instance">The instance as the history names it (the daemon's configured name).</param>
/// <param name="ReadAt">When it was read (UTC): roles change at a failover, so the page says when.</param>
public sealed record ReplicaRole(
    string Instance, string Database, Guid GroupDatabaseId, string GroupName, string? Role, string? BackupPreference, int? BackupPriority, bool? Preferred, DateTime ReadAt);
