using System.Globalization;
using BackupXe.Core.Events;
using BackupXe.Core.History;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Restores;

/// <summary>
/// The restore chain and the restore plan from a history's records alone (docs/restore-chain.md, "From the history
/// file"): a backup whose source kept its LSNs (msdb, RESTORE HEADERONLY, dbatools' objects) is a backup set of
/// <see cref="RestoreChain"/>; a link the history has no LSNs for is "cannot tell", never assumed whole or broken.
/// </summary>
public static class HistoryChain
{
    /// <summary>The note that opens a chain the history cannot tell, so a reader sees it first.</summary>
    public const string CannotTell = "cannot tell";

    /// <summary>A completed backup with its LSNs as a backup set; null for anything else (no LSNs, not a backup, no database).</summary>
    public static BackupSetRow? ToBackupSet(HistoryOperation record)
    {
        ArgumentNullException.ThrowIfNull(record);
        if (record is not { Kind: OperationKind.Backup, Status: OperationStatus.Completed, Lsns: { } lsns, Database: { } database })
        {
            return null;
        }

        return new BackupSetRow(
            database, TypeOf(record.Scope), record.Options.CopyOnly ?? false, lsns.FirstLsn, lsns.LastLsn, lsns.DatabaseBackupLsn, lsns.CheckpointLsn,
            record.RecoveryModel, record.Start, record.End ?? record.Start, record.BytesRead, record.BytesWritten);
    }

    /// <summary>Each database's chain from <paramref name="records"/> (one instance's, or one availability group database's).</summary>
    public static IReadOnlyList<RestoreChainReport> Check(IEnumerable<HistoryOperation> records)
        => Backups(records)
            .Select(group => CheckOne(group.Key, group.Value))
            .ToList();

    /// <summary>Each database's restore plan from the backups the history holds LSNs for; a database with none has no plan and says why.</summary>
    public static IReadOnlyList<RestorePlan> Plan(IEnumerable<HistoryOperation> records)
    {
        var plans = new List<RestorePlan>();
        foreach (var (database, backups) in Backups(records))
        {
            var sets = backups.Select(ToBackupSet).OfType<BackupSetRow>().ToList();
            var unknown = Unknown(backups);
            if (sets.Count == 0)
            {
                plans.Add(new RestorePlan(database, null, null, [], [NoLsns(backups)]));
                continue;
            }

            var plan = RestorePlanner.Plan(sets)[0];
            plans.Add(unknown.Count == 0 ? plan : plan with { Notes = [.. unknown, .. plan.Notes] });
        }

        return plans;
    }

    private static SortedDictionary<string, List<HistoryOperation>> Backups(IEnumerable<HistoryOperation> records)
    {
        var byDatabase = new SortedDictionary<string, List<HistoryOperation>>(StringComparer.OrdinalIgnoreCase);
        foreach (var record in records)
        {
            if (record is { Kind: OperationKind.Backup, Status: OperationStatus.Completed, Database: { } database })
            {
                if (!byDatabase.TryGetValue(database, out var list))
                {
                    byDatabase[database] = list = [];
                }

                list.Add(record);
            }
        }

        return byDatabase;
    }

    private static RestoreChainReport CheckOne(string database, List<HistoryOperation> backups)
    {
        var sets = backups.Select(ToBackupSet).OfType<BackupSetRow>().ToList();
        var newest = backups.MaxBy(b => b.Start);
        if (sets.Count == 0)
        {
            var fulls = backups.Where(b => b.Scope == OperationScope.Database).ToList();
            return new RestoreChainReport(database, newest?.RecoveryModel, false, [], fulls.Count > 0 ? fulls.Min(f => f.End ?? f.Start) : null, null, null,
                [NoLsns(backups)], backups.Count);
        }

        var report = RestoreChain.Check(sets)[0];
        var unknown = Unknown(backups);
        if (unknown.Count == 0)
        {
            return report;
        }

        // A gap whose span holds a log backup without LSNs may be no gap at all: that link cannot be told either way.
        var withoutLsns = backups.Where(b => b.Lsns is null && b.Scope == OperationScope.Log && b.Options.CopyOnly != true).Select(b => b.Start).ToList();
        var gaps = report.Gaps.Where(g => !withoutLsns.Exists(at => at >= g.After && at <= g.Before)).ToList();
        return report with
        {
            Whole = false,
            Gaps = gaps,
            Notes = [.. unknown, .. report.Notes],
            BackupSets = backups.Count,
        };
    }

    /// <summary>What the backups without LSNs leave untold, first the log backups (their links), then the others.</summary>
    private static List<string> Unknown(List<HistoryOperation> backups)
    {
        var notes = new List<string>();
        var logs = backups.Where(b => b.Lsns is null && b.Scope == OperationScope.Log && b.Options.CopyOnly != true).OrderBy(b => b.Start).ToList();
        if (logs.Count > 0)
        {
            notes.Add(string.Create(CultureInfo.InvariantCulture,
                $"{CannotTell}: {logs.Count} log backup(s) from {Time(logs[0].Start)} to {Time(logs[^1].Start)} have no LSNs in the history ({Sources(logs)}), so whether the chain links through them is not known"));
        }

        var others = backups.Count(b => b.Lsns is null && b.Scope != OperationScope.Log);
        if (others > 0)
        {
            notes.Add(string.Create(CultureInfo.InvariantCulture,
                $"{others} full or differential backup(s) have no LSNs in the history and are not placed in the chain"));
        }

        return notes;
    }

    private static string NoLsns(List<HistoryOperation> backups)
        => string.Create(CultureInfo.InvariantCulture,
            $"{CannotTell}: none of the {backups.Count} backup(s) of this database in the history has LSNs (imported from: {Sources(backups)}); an import from msdb (--server), a RESTORE HEADERONLY result or dbatools' objects in Format-List keep them, or read msdb with --server");

    private static string Sources(IEnumerable<HistoryOperation> backups)
        => string.Join(", ", backups.SelectMany(b => b.Sources).Distinct().Order().Select(s => Formatting.Kebab.Of(s)));

    private static char TypeOf(OperationScope scope) => scope switch
    {
        OperationScope.Database => 'D',
        OperationScope.Differential => 'I',
        OperationScope.Log => 'L',
        _ => 'F',
    };

    private static string Time(DateTime at) => at.ToString("yyyy-MM-dd HH:mm", CultureInfo.InvariantCulture);
}
