using System.Globalization;

namespace BackupXe.Core.Fleet;

/// <summary>
/// Notes a group database's last full and log backups taken on a replica that was not the preferred one for its
/// backups (docs/fleet.md, "Backup preference"), on the newest roles each replica gave. The preference is the group's
/// wish, which SQL Server does not enforce: only backup jobs that ask sys.fn_hadr_backup_is_preferred_replica follow it,
/// so a backup elsewhere is a note, not a fault of the RPO. Differentials are not checked: a secondary cannot take one,
/// so the primary is the only place for them whatever the preference says.
/// </summary>
public static class BackupPreferenceCheck
{
    /// <summary><paramref name="databases"/> with the roles of their replicas and the notes; a database outside a group is returned as it is.</summary>
    public static IReadOnlyList<DatabaseCompliance> Apply(IReadOnlyList<DatabaseCompliance> databases, IReadOnlyList<ReplicaRole> roles)
    {
        ArgumentNullException.ThrowIfNull(databases);
        ArgumentNullException.ThrowIfNull(roles);
        if (roles.Count == 0)
        {
            return databases;
        }

        var byGroup = roles.GroupBy(r => r.GroupDatabaseId).ToDictionary(g => g.Key, g => g.ToList());
        return databases
            .Select(d => d.GroupDatabaseId is { } group && byGroup.TryGetValue(group, out var mine) ? With(d, mine) : d)
            .ToList();
    }

    private static DatabaseCompliance With(DatabaseCompliance database, List<ReplicaRole> roles)
    {
        // The newest read of each replica: an older one may predate a failover.
        var latest = roles
            .GroupBy(r => r.Instance, StringComparer.OrdinalIgnoreCase)
            .Select(g => g.MaxBy(r => r.ReadAt)!)
            .OrderBy(r => r.Instance, StringComparer.OrdinalIgnoreCase)
            .ToList();
        var notes = new List<string>();
        Check("full", database.LastFull, database.LastFullOn, latest, notes);
        Check("log", database.LastLog, database.LastLogOn, latest, notes);
        return database with
        {
            ReplicaRoles = latest,
            BackupPreference = latest.MaxBy(r => r.ReadAt)?.BackupPreference,
            OffPreference = notes,
        };
    }

    private static void Check(string kind, DateTime? finished, string? on, List<ReplicaRole> latest, List<string> notes)
    {
        if (finished is not { } at || on is null
            || latest.Find(r => string.Equals(r.Instance, on, StringComparison.OrdinalIgnoreCase)) is not { Preferred: false } role)
        {
            return;
        }

        var preferred = latest.Where(r => r.Preferred is true).Select(r => r.Instance).ToList();
        var priority = role.BackupPriority is { } p ? p.ToString(CultureInfo.InvariantCulture) : "unknown";
        var others = preferred.Count > 0 ? "; preferred: " + string.Join(", ", preferred) : string.Empty;
        notes.Add(string.Create(CultureInfo.InvariantCulture,
            $"the last {kind} backup (finished {at:yyyy-MM-dd HH:mm}) was taken on {on}, not the preferred backup replica: sys.fn_hadr_backup_is_preferred_replica said 0 there at {role.ReadAt:yyyy-MM-dd HH:mm} UTC (role {role.Role ?? "unknown"}, group {role.GroupName} prefers {role.BackupPreference ?? "unknown"}, backup priority {priority}){others}"));
    }
}
