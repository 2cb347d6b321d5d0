using BackupXe.Core.Events;
using BackupXe.Core.History;
using BackupXe.Core.Restores;

namespace BackupXe.Core.Fleet;

/// <summary>
/// The databases of a history, each with the records compliance judges it on (docs/fleet.md, "Availability groups"): a
/// database outside an availability group is one instance's rows of one name; a database of a group is the rows of
/// every replica that carry its group_database_id, so its RPO, RTO and chain are the group's. Nothing else merges two
/// instances' rows: not the name (a standalone database of the same name is another database), not family_guid (a
/// copy restored under another name keeps it), not database_guid (each replica seeded by restore has its own).
/// </summary>
public static class FleetDatabases
{
    /// <summary>One input per database, its chain checked on the LSNs the records hold, its recovery model the newest said.</summary>
    public static IReadOnlyList<ComplianceInput> Inputs(IEnumerable<InstanceOperation> records)
    {
        var named = records
            .Where(r => r.Record.Database is not null && r.Record.Kind is OperationKind.Backup or OperationKind.Restore)
            .ToList();

        // Each replica's database of a group: (instance, name) -> group id, and the database_guids its grouped rows carry.
        var members = new Dictionary<(string Instance, string Database), (Guid Group, HashSet<Guid> DatabaseGuids)>(InstanceDatabaseComparer.Instance);
        foreach (var r in named)
        {
            if (r.Record.Identity?.GroupDatabaseId is { } group)
            {
                var key = (r.Instance, r.Record.Database!);
                if (!members.TryGetValue(key, out var member))
                {
                    members[key] = member = (group, []);
                }

                if (r.Record.Identity.DatabaseGuid is { } guid)
                {
                    member.DatabaseGuids.Add(guid);
                }
            }
        }

        var groups = new Dictionary<Guid, List<InstanceOperation>>();
        var alone = new Dictionary<(string Instance, string Database), List<InstanceOperation>>(InstanceDatabaseComparer.Instance);
        foreach (var r in named)
        {
            var key = (r.Instance, r.Record.Database!);
            if (GroupOf(r, members.GetValueOrDefault(key)) is { } group)
            {
                (groups.TryGetValue(group, out var list) ? list : groups[group] = []).Add(r);
            }
            else
            {
                (alone.TryGetValue(key, out var list) ? list : alone[key] = []).Add(r);
            }
        }

        var inputs = alone.Select(g => Input(g.Key.Instance, g.Key.Database, [g.Key.Instance], g.Value, null)).ToList();
        inputs.AddRange(groups.Select(g => Group(g.Key, g.Value)));
        return inputs;
    }

    /// <summary>
    /// <paramref name="inputs"/> with the full database restores msdb's restorehistory holds for them: a restore on any
    /// of a database's instances (every replica of a group database) under its name.
    /// </summary>
    public static IReadOnlyList<ComplianceInput> WithMsdbRestores(IReadOnlyList<ComplianceInput> inputs, IEnumerable<(string Instance, DatabaseRestore Restore)> restores)
    {
        var byDatabase = restores
            .GroupBy(r => (r.Instance, r.Restore.Database), InstanceDatabaseComparer.Instance)
            .ToDictionary(g => g.Key, g => g.Select(r => r.Restore).ToList(), InstanceDatabaseComparer.Instance);
        if (byDatabase.Count == 0)
        {
            return inputs;
        }

        return inputs.Select(input =>
        {
            var found = input.Replicas.SelectMany(replica => byDatabase.GetValueOrDefault((replica, input.Database)) ?? []).ToList();
            return found.Count == 0 ? input : input with { MsdbRestores = found };
        }).ToList();
    }

    /// <summary>
    /// The group a row belongs to: its own group id; for a row of a replica's group database that has none (imported
    /// before the id was read), that database's group unless its database_guid says it is an earlier database of the name.
    /// </summary>
    private static Guid? GroupOf(InstanceOperation row, (Guid Group, HashSet<Guid> DatabaseGuids) member)
    {
        if (row.Record.Identity?.GroupDatabaseId is { } group)
        {
            return group;
        }

        if (member.DatabaseGuids is null)
        {
            return null;
        }

        return row.Record.Identity?.DatabaseGuid is { } guid && member.DatabaseGuids.Count > 0 && !member.DatabaseGuids.Contains(guid) ? null : member.Group;
    }

    private static ComplianceInput Group(Guid group, List<InstanceOperation> rows)
    {
        // A group database has one name on every replica; the one its newest row uses names it.
        var name = rows.MaxBy(r => r.Record.Start)!.Record.Database!;
        var replicas = rows.Select(r => r.Instance).Distinct(StringComparer.OrdinalIgnoreCase).Order(StringComparer.OrdinalIgnoreCase).ToList();
        // Each replica's msdb holds only its own backups; a backup seen twice (one set imported from two places) is counted once by its LSNs.
        var seen = new HashSet<(OperationScope, decimal, decimal)>();
        var kept = rows.Where(r => r.Record.Lsns is not { } lsns || r.Record.Kind != OperationKind.Backup || seen.Add((r.Record.Scope, lsns.FirstLsn, lsns.LastLsn)))
            .Select(r => r with { Record = r.Record with { Database = name } })
            .ToList();
        return Input(string.Join(", ", replicas), name, replicas, kept, group);
    }

    private static ComplianceInput Input(string instance, string database, IReadOnlyList<string> replicas, List<InstanceOperation> rows, Guid? group)
    {
        var operations = rows.Select(r => r.Record).ToList();
        var takenOn = new Dictionary<HistoryOperation, string>(ReferenceEqualityComparer.Instance);
        foreach (var r in rows)
        {
            takenOn.TryAdd(r.Record, r.Instance);
        }

        var model = operations.Where(o => o.RecoveryModel is not null).MaxBy(o => o.Start)?.RecoveryModel;
        return new ComplianceInput(instance, database, operations)
        {
            RecoveryModel = model,
            Chain = operations.Exists(o => o.Lsns is not null) ? HistoryChain.Check(operations).FirstOrDefault() : null,
            Replicas = replicas,
            GroupDatabaseId = group,
            TakenOn = takenOn,
        };
    }
}
