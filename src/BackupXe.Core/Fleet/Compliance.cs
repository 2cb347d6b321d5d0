using System.Globalization;
using BackupXe.Core.Drill;
using BackupXe.Core.Events;
using BackupXe.Core.History;
using BackupXe.Core.Reporting;
using BackupXe.Core.Restores;

namespace BackupXe.Core.Fleet;

/// <summary>
/// What one database's compliance is judged on: its history records (backups and restores, any source), the recovery
/// model when a source said it, and its chain as <see cref="RestoreChain"/> checked it from msdb's LSNs when they were read.
/// </summary>
public sealed record ComplianceInput(string Instance, string Database, IReadOnlyList<HistoryOperation> Operations)
{
    /// <summary>FULL, BULK_LOGGED or SIMPLE as msdb or sys.databases said; null: inferred from the backups (docs/fleet.md).</summary>
    public string? RecoveryModel { get; init; }

    /// <summary>The chain checked on msdb's LSNs; null when the history read has none.</summary>
    public RestoreChainReport? Chain { get; init; }

    /// <summary>The instances whose rows these are: the one instance, or every replica of an availability group database.</summary>
    public IReadOnlyList<string> Replicas { get; init; } = [Instance];

    /// <summary>sys.databases.group_database_id of an availability group database; null outside a group.</summary>
    public Guid? GroupDatabaseId { get; init; }

    /// <summary>Which replica took each operation (by reference), for a group database's "taken on"; null: all on <see cref="Instance"/>.</summary>
    public IReadOnlyDictionary<HistoryOperation, string>? TakenOn { get; init; }

    /// <summary>
    /// Full database restores of this database msdb's restorehistory holds (restore_date in the server's local time): a
    /// restore no capture saw, which says the database was restored but not how long it took.
    /// </summary>
    public IReadOnlyList<DatabaseRestore> MsdbRestores { get; init; } = [];

    /// <summary>The last completed restore drill of this database (on any of its instances); null when none was run.</summary>
    public StoredDrill? LastDrill { get; init; }

    /// <summary>The instance <paramref name="operation"/> ran on.</summary>
    public string On(HistoryOperation operation) => TakenOn?.GetValueOrDefault(operation) ?? Instance;
}

/// <summary>
/// Judges a database against its recovery targets from its history, without I/O (docs/fleet.md, "Compliance"). RPO is
/// the time since the newest backup a restore could end at: a full backup (COPY_ONLY too: it restores alone), a
/// differential whose base (a full that is not COPY_ONLY) came before it, or in the FULL and BULK_LOGGED models a log
/// backup (COPY_ONLY too) taken after a full. RTO is the restore estimate of <see cref="RestoreEstimator"/>.
/// </summary>
public static class Compliance
{
    /// <summary>Every database of <paramref name="inputs"/> judged at <paramref name="nowUtc"/>, worst first (<see cref="WorstFirst"/>).</summary>
    public static IReadOnlyList<DatabaseCompliance> Evaluate(IEnumerable<ComplianceInput> inputs, RecoveryTargets targets, DateTime nowUtc)
        => WorstFirst(inputs.Select(input => Evaluate(input, targets, nowUtc)));

    /// <summary>
    /// Out of target first, the furthest past its target first; then a broken or gapped chain, then what cannot be
    /// told, then never restored; then the rest by name.
    /// </summary>
    public static IReadOnlyList<DatabaseCompliance> WorstFirst(IEnumerable<DatabaseCompliance> databases)
        => databases
            .OrderBy(d => d.OutOfTarget ? 0 : d.Chain.State is ChainState.Broken or ChainState.Gap ? 1
                : d.Rpo.State == ComplianceState.CannotTell || d.Rto.State == ComplianceState.CannotTell ? 2
                : !d.Verification.Verified ? 3 : 4)
            .ThenByDescending(d => Math.Max(d.Rpo.State == ComplianceState.Outside ? d.Rpo.Ratio ?? double.MaxValue : 0, d.Rto.State == ComplianceState.Outside ? d.Rto.Ratio ?? 0 : 0))
            .ThenBy(d => d.Instance, StringComparer.OrdinalIgnoreCase)
            .ThenBy(d => d.Database, StringComparer.OrdinalIgnoreCase)
            .ToList();

    /// <summary>One database judged at <paramref name="nowUtc"/>.</summary>
    public static DatabaseCompliance Evaluate(ComplianceInput input, RecoveryTargets targets, DateTime nowUtc)
    {
        ArgumentNullException.ThrowIfNull(input);
        ArgumentNullException.ThrowIfNull(targets);
        var backups = input.Operations
            .Where(o => o.Kind == OperationKind.Backup && o.Status == OperationStatus.Completed)
            .OrderBy(o => Finish(o))
            .ToList();
        var logs = backups.Where(o => o.Scope == OperationScope.Log).ToList();
        var model = input.RecoveryModel?.ToUpperInvariant() ?? input.Chain?.RecoveryModel?.ToUpperInvariant();
        var logMode = model is null ? logs.Count > 0 : model != RestoreChain.Simple;
        var modelSaid = model is not null
            ? $"recovery model {model}"
            : logs.Count > 0 ? "log backups in the history, so the FULL or BULK_LOGGED recovery model" : "no log backup in the history, so taken as the SIMPLE recovery model";

        var lastFull = backups.LastOrDefault(o => o.Scope == OperationScope.Database);
        var lastDifferential = backups.LastOrDefault(o => o.Scope == OperationScope.Differential);
        var lastLog = logs.LastOrDefault();
        return new DatabaseCompliance(
            input.Instance,
            input.Database,
            model,
            Utc(lastFull),
            Utc(lastDifferential),
            Utc(lastLog),
            Rpo(backups, logMode, modelSaid, input.Chain, Strictest(input, r => targets.RpoFor(r, input.Database, model)), nowUtc),
            Rto(input, backups, Strictest(input, r => targets.RtoFor(r, input.Database, model))),
            Chain(input.Chain, logMode, logs.Count, backups.LastOrDefault()?.UtcOffset),
            Verification(input, backups, backups.LastOrDefault()?.UtcOffset))
        {
            Replicas = input.Replicas,
            GroupDatabaseId = input.GroupDatabaseId,
            LastFullOn = lastFull is null ? null : input.On(lastFull),
            LastDifferentialOn = lastDifferential is null ? null : input.On(lastDifferential),
            LastLogOn = lastLog is null ? null : input.On(lastLog),
        };
    }

    /// <summary>The shortest target any of the database's replicas has: a group database is held to its strictest replica's rule.</summary>
    private static AppliedTarget? Strictest(ComplianceInput input, Func<string, AppliedTarget?> target)
        => input.Replicas.Select(target).OfType<AppliedTarget>().MinBy(t => t.Value);

    private static RecoveryFinding Rpo(List<HistoryOperation> backups, bool logMode, string modelSaid, RestoreChainReport? chain, AppliedTarget? target, DateTime nowUtc)
    {
        var point = NewestRestorePoint(backups, logMode, chain);
        if (point is null)
        {
            var why = backups.Count == 0
                ? "no completed backup of this database in the history read"
                : "no backup in the history read that a restore could end at (no full backup for its differential or log backups)";
            return new RecoveryFinding(target is null ? ComplianceState.CannotTell : ComplianceState.Outside, null, target, null, $"{why}; {modelSaid}");
        }

        var at = Utc(point.Value.Backup)!.Value;
        var age = nowUtc - at;
        var evidence = Inv($"the {point.Value.What} that finished {Stamp(at)} is the newest restore point; {modelSaid}");
        if (target is null)
        {
            return new RecoveryFinding(ComplianceState.NoTarget, age, null, at, evidence);
        }

        return age > target.Value
            ? new RecoveryFinding(ComplianceState.Outside, age, target, at + target.Value, evidence)
            : new RecoveryFinding(ComplianceState.Within, age, target, at, evidence);
    }

    /// <summary>The newest backup a restore could end at, and what it is in words; null when none.</summary>
    private static (HistoryOperation Backup, string What)? NewestRestorePoint(List<HistoryOperation> backups, bool logMode, RestoreChainReport? chain)
    {
        // A differential rests on the last full that is not COPY_ONLY (a COPY_ONLY full starts no base); a log backup
        // needs some full before it, and after the chain's last break when msdb's LSNs showed one.
        var lastGap = chain?.Gaps.Count > 0 ? chain.Gaps[^1].After : (DateTime?)null;
        // One pass for where the first full of each kind stands, so the walk back from the newest stays linear.
        int firstFull = -1, firstRegularFull = -1, firstFullAfterGap = -1;
        for (var i = 0; i < backups.Count; i++)
        {
            if (backups[i].Scope != OperationScope.Database)
            {
                continue;
            }

            firstFull = firstFull < 0 ? i : firstFull;
            firstRegularFull = firstRegularFull < 0 && backups[i].Options.CopyOnly != true ? i : firstRegularFull;
            firstFullAfterGap = firstFullAfterGap < 0 && (lastGap is null || backups[i].Start >= lastGap) ? i : firstFullAfterGap;
        }

        for (var i = backups.Count - 1; i >= 0; i--)
        {
            var backup = backups[i];
            var copyOnly = backup.Options.CopyOnly == true;
            switch (backup.Scope)
            {
                case OperationScope.Database:
                    return (backup, copyOnly ? "COPY_ONLY full backup" : "full backup");
                case OperationScope.Differential when firstRegularFull >= 0 && firstRegularFull < i:
                    return (backup, "differential backup");
                case OperationScope.Log when logMode && firstFull >= 0 && firstFull < i
                    && (lastGap is null || backup.Start < lastGap || (firstFullAfterGap >= 0 && firstFullAfterGap < i)):
                    return (backup, copyOnly ? "COPY_ONLY log backup" : "log backup");
            }
        }

        return null;
    }

    /// <summary>
    /// The RTO from the first of: the last drill's restores, timed; the last real restore sequence a capture timed (a
    /// full database restore and the differential and log restores of the database after it, up to the next full
    /// restore), when it began after the newest full backup; the restore estimate. msdb's restorehistory keeps no end time, so it never gives one.
    /// </summary>
    private static RecoveryFinding Rto(ComplianceInput input, List<HistoryOperation> backups, AppliedTarget? target)
    {
        if (input.LastDrill is { } drill && drill.RestoreSeconds >= 0)
        {
            var took = TimeSpan.FromSeconds(drill.RestoreSeconds);
            return new RecoveryFinding(Judge(took, target), took, target, drill.DrilledAt,
                Inv($"the last restore drill, {Stamp(drill.DrilledAt)} on {drill.Instance}, restored it in {RestoreEstimateText.Range(drill.RestoreSeconds, drill.RestoreSeconds)} (its restores alone, not its checks)"))
            {
                Source = RtoSource.Drill,
            };
        }

        // A restore older than the newest full backup restored another chain than the one a restore needs today.
        var newestFull = backups.LastOrDefault(b => b.Scope == OperationScope.Database && b.Options.CopyOnly != true);
        if (LastRestoreSequence(input.Operations) is { } sequence && (newestFull is null || sequence[0].Start >= newestFull.Start))
        {
            var took = TimeSpan.FromSeconds(sequence.Sum(o => o.DurationSeconds!.Value));
            var at = Utc(sequence[0]);
            return new RecoveryFinding(Judge(took, target), took, target, at,
                Inv($"the last real restore, whose full restore finished {Stamp(at)}: {sequence.Count} restore(s) timed ({Sources(sequence[0])}), {RestoreEstimateText.Range(took.TotalSeconds, took.TotalSeconds)} in all"))
            {
                Source = RtoSource.Restore,
            };
        }

        return Estimate(input, backups, target) with { Source = RtoSource.Estimate };
    }

    private static ComplianceState Judge(TimeSpan value, AppliedTarget? target)
        => target is null ? ComplianceState.NoTarget : value > target.Value ? ComplianceState.Outside : ComplianceState.Within;

    /// <summary>
    /// The newest completed full database restore with a duration, and the completed restores after it up to the next
    /// full restore (its differential and log restores); null when none, or when one of them has no duration.
    /// </summary>
    private static List<HistoryOperation>? LastRestoreSequence(IReadOnlyList<HistoryOperation> operations)
    {
        var restores = operations.Where(o => o.Kind == OperationKind.Restore && o.Status == OperationStatus.Completed).OrderBy(o => o.Start).ToList();
        var full = restores.FindLastIndex(o => o.Scope == OperationScope.Database);
        if (full < 0)
        {
            return null;
        }

        var sequence = restores.Skip(full).ToList();
        return sequence.TrueForAll(o => o.DurationSeconds is not null) ? sequence : null;
    }

    private static RecoveryFinding Estimate(ComplianceInput input, List<HistoryOperation> backups, AppliedTarget? target)
    {
        var chainBytes = RestoreEstimator.ChainFrom(input.Operations, input.Database);
        if (chainBytes is null)
        {
            return new RecoveryFinding(ComplianceState.CannotTell, null, target, null,
                "cannot tell: no full backup (not COPY_ONLY) with its size in the history read, or a backup of its chain has no size");
        }

        var estimate = RestoreEstimator.Estimate(chainBytes, new RestoreTarget(null, null, null, null),
            RestoreEstimator.CopyRate(input.Operations, input.Database),
            RestoreEstimator.LogRestoreRate(input.Operations, input.Database),
            RestoreEstimator.RecoveryTime(input.Operations, input.Database));
        var newest = Utc(backups.LastOrDefault(b => b.Options.CopyOnly != true));
        var counted = estimate.Phases.Where(p => p.LowSeconds is not null).ToList();
        var notCounted = estimate.Phases.Where(p => p.LowSeconds is null).Select(p => p.Phase).Concat(estimate.NotCounted.Select(u => u.Part)).Distinct().ToList();
        var left = notCounted.Count == 0 ? string.Empty : $"; not counted: {string.Join(", ", notCounted)}";
        var backupsSaid = Inv($"{chainBytes.Backups} backup(s)");
        if (estimate.HighSeconds is { } high)
        {
            // Every phase timed: the high end is judged, so a target passed only at the high end is still passed.
            var value = TimeSpan.FromSeconds(high);
            var state = target is null ? ComplianceState.NoTarget : value > target.Value ? ComplianceState.Outside : ComplianceState.Within;
            return new RecoveryFinding(state, value, target, newest,
                $"restore estimate {RestoreEstimateText.Range(estimate.LowSeconds, estimate.HighSeconds)} for {backupsSaid}, the high end judged{left}");
        }

        if (counted.Count == 0)
        {
            return new RecoveryFinding(ComplianceState.CannotTell, null, target, newest, $"cannot tell: no phase of the restore could be timed{left}");
        }

        // A phase without a figure (file sizes are not in the history): the timed phases' low ends are a floor, which
        // is past the target or says nothing.
        var floor = TimeSpan.FromSeconds(counted.Sum(p => p.LowSeconds!.Value));
        var past = target is not null && floor > target.Value;
        return new RecoveryFinding(past ? ComplianceState.Outside : target is null ? ComplianceState.NoTarget : ComplianceState.CannotTell, floor, target, newest,
            $"at least {RestoreEstimateText.Range(floor.TotalSeconds, floor.TotalSeconds)}, the phases timed for {backupsSaid} ({string.Join(", ", counted.Select(p => p.Phase))}){left}")
        {
            Floor = true,
        };
    }

    /// <param name="offset">The server's offset from UTC, as its backups said: msdb's chain is in its local time.</param>
    private static ChainFinding Chain(RestoreChainReport? chain, bool logMode, int logCount, TimeSpan? offset)
    {
        if (!logMode)
        {
            return new ChainFinding(ChainState.NotApplicable, null, "no log chain: full and differential backups are the restore points");
        }

        if (chain is null)
        {
            return new ChainFinding(ChainState.CannotTell, null, Inv($"{logCount} log backup(s), but the history read holds no LSNs for them: an import from msdb or RESTORE HEADERONLY keeps them, and `backupxe history chain --server` checks the chain against msdb"));
        }

        if (chain.Gaps.Count > 0)
        {
            var gap = chain.Gaps[^1];
            var broken = gap.Reason.Contains(RestoreChain.Simple, StringComparison.Ordinal);
            return new ChainFinding(broken ? ChainState.Broken : ChainState.Gap, ServerToUtc(gap.After, offset),
                Inv($"{gap.Reason}: no log backup covers LSN {gap.FromLsn} to {gap.ToLsn}, between {Stamp(gap.After)} and {Stamp(gap.Before)} (server time)"));
        }

        return chain.Whole
            ? new ChainFinding(ChainState.Whole, ServerToUtc(chain.PointInTimeFrom ?? chain.OldestRestorePoint, offset),
                Inv($"whole over {chain.BackupSets} backup set(s) on their LSNs; any moment from {Stamp(chain.PointInTimeFrom ?? chain.OldestRestorePoint)} to {Stamp(chain.PointInTimeTo)} (server time)"))
            : new ChainFinding(ChainState.CannotTell, null, chain.Notes.FirstOrDefault() ?? "msdb's backup sets do not show a whole chain");
    }

    /// <param name="offset">The server's offset from UTC, as its backups said: restorehistory is in its local time.</param>
    private static VerificationFinding Verification(ComplianceInput input, List<HistoryOperation> backups, TimeSpan? offset)
    {
        var restore = input.Operations
            .Where(o => o.Kind == OperationKind.Restore && o.Status == OperationStatus.Completed)
            .MaxBy(Finish);
        var captured = Utc(restore);
        var msdb = input.MsdbRestores.MaxBy(r => r.RestoredAt);
        var msdbAt = msdb is null ? null : ServerToUtc(msdb.RestoredAt, offset);
        if (msdb is not null && (captured is null || msdbAt > captured))
        {
            return new VerificationFinding(true, msdbAt, Inv(
                $"last restored {Stamp(msdb.RestoredAt)} (server time; msdb restorehistory: a full database restore from the {RestoreChain.Kind(msdb.Source.Type)} backup of {msdb.Source.Database} that finished {Stamp(msdb.Source.Finish)}; restorehistory keeps when, not how long)"));
        }

        if (restore is not null)
        {
            var at = captured!.Value;
            return new VerificationFinding(true, at, $"last restored {Stamp(at)} ({Sources(restore)})");
        }

        var oldest = backups.Count > 0 ? Utc(backups[0]) : null;
        return new VerificationFinding(false, oldest, oldest is null
            ? "no backup and no restore of this database in the history read"
            : $"no restore of this database in the history read, which holds its backups from {Stamp(oldest)}: none was ever tried");
    }

    private static DateTime? ServerToUtc(DateTime? serverTime, TimeSpan? offset)
        => serverTime is { } at ? DateTime.SpecifyKind(at - (offset ?? TimeSpan.Zero), DateTimeKind.Utc) : null;

    private static DateTime Finish(HistoryOperation operation) => operation.End ?? operation.Start;

    /// <summary>
    /// An operation's finish in UTC: a capture's times are UTC already; msdb's are the server's local time with its
    /// offset (backupset.time_zone); a local time without an offset is taken as UTC, which docs/fleet.md says.
    /// </summary>
    internal static DateTime? Utc(HistoryOperation? operation)
    {
        if (operation is null)
        {
            return null;
        }

        var finish = Finish(operation);
        return finish.Kind == DateTimeKind.Utc ? finish
            : DateTime.SpecifyKind(operation.UtcOffset is { } offset ? finish - offset : finish, DateTimeKind.Utc);
    }

    private static string Sources(HistoryOperation operation)
        => string.Join(", ", operation.Sources.Select(s => Formatting.Kebab.Of(s)));

    private static string Stamp(DateTime? at) => at is { } value ? value.ToString("yyyy-MM-dd HH:mm", CultureInfo.InvariantCulture) : "?";

    private static string Inv(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
