using BackupXe.Core.Formatting;

namespace BackupXe.Core.Fleet;

/// <summary>Which part of a database's compliance changed.</summary>
public enum ComplianceAspect
{
    /// <summary>The RPO against its target.</summary>
    Rpo,

    /// <summary>The RTO against its target.</summary>
    Rto,

    /// <summary>The log chain's state.</summary>
    Chain,

    /// <summary>Whether a restore of it is in the history.</summary>
    Restored,
}

/// <summary>
/// One change of one part of a database's compliance between two judgements (docs/fleet.md, "Change events"): from what
/// to what (kebab-case states, "none" for a database not judged before), since when, and the evidence of the new state.
/// </summary>
public sealed record ComplianceChange(string Instance, string Database, ComplianceAspect Aspect, string From, string To, DateTime? Since, string Evidence)
{
    /// <summary>Whether the change is for the worse: past a target, a chain broken or gapped, a figure no longer told.</summary>
    public bool Worse => To is "outside" or "gap" or "broken" || (To == "cannot-tell" && From != "none");
}

/// <summary>
/// Remembers each database's last judged state per instance and says what changed at the next judgement, once: an
/// unchanged state across judgements says nothing, however often it is judged. A database first seen says only what is
/// not in order (so a daemon's start reports what is out of target, not every database in it). Memory grows with the
/// databases watched, four small values each. Safe to call from several instances' loops at once.
/// </summary>
public sealed class ComplianceChanges
{
    private readonly Dictionary<(string Instance, string Database), string[]> _last = new(InstanceDatabaseComparer.Instance);

    /// <summary>The changes of <paramref name="instance"/>'s <paramref name="judged"/> databases since its previous call.</summary>
    public IReadOnlyList<ComplianceChange> Observe(string instance, IEnumerable<DatabaseCompliance> judged)
    {
        ArgumentNullException.ThrowIfNull(judged);
        var changes = new List<ComplianceChange>();
        foreach (var database in judged)
        {
            // A group database is one database whatever replica judges it: keyed by its group id, not its name.
            var key = (instance, database.GroupDatabaseId?.ToString("D") ?? database.Database);
            string[] now =
            [
                Kebab.Of(database.Rpo.State), Kebab.Of(database.Rto.State), Kebab.Of(database.Chain.State),
                database.Verification.Verified ? "restored" : "never-restored",
            ];
            bool known;
            string[]? before;
            lock (_last)
            {
                known = _last.TryGetValue(key, out before);
                _last[key] = now;
            }

            for (var i = 0; i < now.Length; i++)
            {
                var from = known ? before![i] : "none";
                if (from == now[i] || (!known && InOrder(now[i])))
                {
                    continue;
                }

                var (since, evidence) = i switch
                {
                    0 => (database.Rpo.Since, database.Rpo.Evidence),
                    1 => (database.Rto.Since, database.Rto.Evidence),
                    2 => (database.Chain.Since, database.Chain.Evidence),
                    _ => (database.Verification.Since, database.Verification.Evidence),
                };
                changes.Add(new ComplianceChange(instance, database.Database, (ComplianceAspect)i, from, now[i], since, evidence));
            }
        }

        return changes;
    }

    // What a database first seen in this state need not be told: nothing is wrong with it.
    private static bool InOrder(string state) => state is "within" or "no-target" or "whole" or "not-applicable" or "restored";
}
