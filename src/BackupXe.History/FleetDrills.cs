using BackupXe.Core.Fleet;

namespace BackupXe.History;

/// <summary>The fleet's databases with their last completed restore drill, which their RTO rests on first (docs/fleet.md, "RTO").</summary>
public static class FleetDrills
{
    /// <summary>
    /// Each of <paramref name="inputs"/> with the newest completed drill of its name on any of its instances (every replica
    /// of a group database); one read per database and instance, so memory holds one drill per database.
    /// </summary>
    /// <exception cref="HistoryStoreException">The drills cannot be read.</exception>
    public static async Task<IReadOnlyList<ComplianceInput>> WithLastDrillsAsync(
        IReadOnlyList<ComplianceInput> inputs, IRestoreDrillStore drills, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(inputs);
        ArgumentNullException.ThrowIfNull(drills);
        var judged = new List<ComplianceInput>(inputs.Count);
        foreach (var input in inputs)
        {
            Core.Drill.StoredDrill? last = null;
            foreach (var replica in input.Replicas)
            {
                if (await drills.LatestAsync(replica, input.Database, cancellationToken) is { } drill && (last is null || drill.DrilledAt > last.DrilledAt))
                {
                    last = drill;
                }
            }

            judged.Add(last is null ? input : input with { LastDrill = last });
        }

        return judged;
    }
}
