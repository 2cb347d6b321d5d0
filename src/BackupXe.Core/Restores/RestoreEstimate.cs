using System.Globalization;
using BackupXe.Core.Events;
using BackupXe.Core.Formatting;
using BackupXe.Core.History;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Restores;

/// <summary>The backups a restore would use now, by their uncompressed size (msdb backup_size): the last full, the last differential on it, the log backups after.</summary>
public sealed record RestoreChainBytes(long FullBytes, long? DifferentialBytes, IReadOnlyList<long> LogBackupBytes)
{
    /// <summary>How many of them are encrypted with backup encryption (msdb key_algorithm, or the history's options).</summary>
    public int EncryptedBackups { get; init; }

    /// <summary>How many backups the chain has: the full, the differential if any, the log backups.</summary>
    public int Backups => 1 + (DifferentialBytes is null ? 0 : 1) + LogBackupBytes.Count;
}

/// <summary>The database's files as they would be created by the restore (sys.master_files size x 8 KB).</summary>
/// <param name="InstantFileInitialization">true or false when the server said (sys.dm_server_services); null when not known.</param>
/// <param name="MajorVersion">The server's major version (16 for SQL Server 2022); null when not known.</param>
public sealed record RestoreTarget(long? DataFileBytes, long? LogFileBytes, bool? InstantFileInitialization, int? MajorVersion)
{
    /// <summary>TDE: sys.databases.is_encrypted of the database; null when not known.</summary>
    public bool? Encrypted { get; init; }
}

/// <summary>A part of the restore's time the estimate leaves out, and why it cannot tell it.</summary>
public sealed record RestoreUnknown(string Part, string Reason);

/// <summary>A rate interval in bytes per second, and whether it was measured on this server or assumed (the basis says from what).</summary>
public sealed record RateInterval(double LowBytesPerSecond, double HighBytesPerSecond, bool Measured, string Basis);

/// <summary>Seconds measured on this server, from the fewest to the most, and from what.</summary>
public sealed record SecondsInterval(double Low, double High, string Basis);

/// <summary>One phase of the restore: its time as an interval in seconds, or null (cannot tell) with the reason in the basis.</summary>
public sealed record RestorePhaseEstimate(string Phase, long Bytes, double? LowSeconds, double? HighSeconds, bool Measured, string Basis);

/// <summary>The phases and their sum; the total is null (cannot tell) when any phase is.</summary>
public sealed record RestoreEstimate(IReadOnlyList<RestorePhaseEstimate> Phases, double? LowSeconds, double? HighSeconds, IReadOnlyList<string> Notes)
{
    /// <summary>What the total leaves out, each with the reason it cannot be told (recovery, reading the backups, TDE not known).</summary>
    public IReadOnlyList<RestoreUnknown> NotCounted { get; init; } = [];
}

/// <summary>A database's restore estimate as the verbs report it: the plan, the files and IFI state read, the estimate (null when the plan has no sizes), and notes.</summary>
public sealed record RestoreEstimateReport(RestorePlan Plan, RestoreTarget Target, RestoreEstimate? Estimate, IReadOnlyList<string> Notes)
{
    public string Database => Plan.Database;

    /// <summary>"measured on DATE by a restore drill ...: N min": the latest drill of the database in the history, said beside the estimate; null without one.</summary>
    public string? LastDrill { get; init; }
}

/// <summary>
/// The rates a restore drill measured inside its restores (the capture session's phases), for the estimate of the same
/// database: <see cref="RestoreEstimator.Calibrate"/> times every phase they cover with them and says so.
/// </summary>
/// <param name="Source">"a drill into [scratch] on SERVER", what the basis of each phase names.</param>
/// <param name="Copy">The transfer-data rate of the full and differential restores.</param>
/// <param name="LogRestore">Each log restore's bytes over its time.</param>
/// <param name="Zeroing">Each file's zeroing, its pages over its time.</param>
/// <param name="Recovery">The redo of the restores and the recovery step, in seconds.</param>
public sealed record MeasuredRestoreRates(DateTime MeasuredOn, string Source, RateInterval? Copy, RateInterval? LogRestore, RateInterval? Zeroing, SecondsInterval? Recovery)
{
    /// <summary>"measured on DATE by a drill into [X] on SERVER": the basis of a phase these rates time.</summary>
    public string Basis => $"measured on {MeasuredOn.ToString("yyyy-MM-dd", CultureInfo.InvariantCulture)} by {Source}";

    /// <summary>Whether any phase is measured at all.</summary>
    public bool Any => Copy is not null || LogRestore is not null || Zeroing is not null || Recovery is not null;
}

/// <summary>
/// Estimates how long restoring a database's chain would take, phase by phase, from rates measured in its history and
/// the file sizes and Instant File Initialization state (docs/restore-chain.md, "Restore time"). Never a rate from
/// nowhere: a phase with neither a measured rate nor a stated assumption is "cannot tell".
/// </summary>
public static class RestoreEstimator
{
    /// <summary>A restore's copy rate, as a share of the backup's rate, when only backups were measured: an assumption, stated as such.</summary>
    public const double BackupToRestoreLow = 0.5;

    /// <inheritdoc cref="BackupToRestoreLow"/>
    public const double BackupToRestoreHigh = 1.0;

    /// <summary>SQL Server 2022 (16.x): log growths up to 64 MB may use Instant File Initialization.</summary>
    public const int LogIfiMajorVersion = 16;

    /// <inheritdoc cref="LogIfiMajorVersion"/>
    public const long LogIfiLimitBytes = 64L << 20;

    public const string DataZeroing = "data-file zeroing";
    public const string LogZeroing = "log zeroing";
    public const string Copy = "copy full + differential";
    public const string LogRestore = "log restore";
    public const string Recovery = "recovery";
    public const string Reading = "reading the backups";
    public const string Tde = "TDE";
    public const string Decryption = "decryption";

    /// <summary>
    /// The copy rate: the database's completed restores (full or differential) in the history when there are any,
    /// else its completed full and differential backups times <see cref="BackupToRestoreLow"/>..<see cref="BackupToRestoreHigh"/>.
    /// </summary>
    public static RateInterval? CopyRate(IEnumerable<HistoryOperation> history, string database)
    {
        var list = history as IReadOnlyCollection<HistoryOperation> ?? history.ToList();
        var restores = Rates(list, database, OperationKind.Restore, log: false);
        if (restores.Count > 0)
        {
            return new RateInterval(restores.Min(), restores.Max(), Measured: true,
                Inv($"{restores.Count} restore(s) of this database in the history"));
        }

        var backups = Rates(list, database, OperationKind.Backup, log: false);
        return backups.Count == 0
            ? null
            : new RateInterval(backups.Min() * BackupToRestoreLow, backups.Max() * BackupToRestoreHigh, Measured: false,
                Inv($"assumed: {BackupToRestoreLow:0.##}x to {BackupToRestoreHigh:0.##}x the rate of {backups.Count} backup(s) of this database (no restore in the history)"));
    }

    /// <summary>The log restore rate: the database's completed log restores in the history; null without any.</summary>
    public static RateInterval? LogRestoreRate(IEnumerable<HistoryOperation> history, string database)
    {
        var rates = Rates(history, database, OperationKind.Restore, log: true);
        return rates.Count == 0
            ? null
            : new RateInterval(rates.Min(), rates.Max(), Measured: true, Inv($"{rates.Count} log restore(s) of this database in the history"));
    }

    /// <summary>
    /// The recovery at the end of a restore, as past restores of the database measured it: each completed full or
    /// differential restore whose capture timed its recovery phase gives its redo plus recovery seconds (the redo of
    /// the log the backup holds, the undo of the transactions open at its end, bringing the database online). Null
    /// when no restore of it in the history was captured that closely: msdb does not record it.
    /// </summary>
    public static SecondsInterval? RecoveryTime(IEnumerable<HistoryOperation> history, string database)
    {
        var measured = history
            .Where(o => o.Kind == OperationKind.Restore && o.Status == OperationStatus.Completed && o.RecoverySeconds is not null
                && o.Scope is OperationScope.Database or OperationScope.Differential
                && string.Equals(o.Database, database, StringComparison.OrdinalIgnoreCase))
            .Select(o => (o.RedoSeconds ?? 0) + o.RecoverySeconds!.Value)
            .ToList();
        return measured.Count == 0
            ? null
            : new SecondsInterval(measured.Min(), measured.Max(),
                Inv($"redo and recovery of {measured.Count} captured restore(s) of this database in the history"));
    }

    /// <summary>
    /// The chain a restore would use now, from the history's completed backups of the database: the last full that is
    /// not COPY_ONLY, the last differential after it, the log backups (not COPY_ONLY) after the later of the two. By
    /// time, as the history has no LSNs: a broken chain is <see cref="RestoreChain"/>'s to find. Null without such a
    /// full, or when a backup chosen has no size.
    /// </summary>
    public static RestoreChainBytes? ChainFrom(IEnumerable<HistoryOperation> history, string database)
    {
        var backups = history
            .Where(o => o.Kind == OperationKind.Backup && o.Status == OperationStatus.Completed
                && string.Equals(o.Database, database, StringComparison.OrdinalIgnoreCase) && o.Options.CopyOnly != true)
            .OrderBy(o => o.Start)
            .ToList();
        var full = backups.LastOrDefault(o => o.Scope == OperationScope.Database);
        if (full?.BytesRead is not { } fullBytes)
        {
            return null;
        }

        var differential = backups.LastOrDefault(o => o.Scope == OperationScope.Differential && o.Start > full.Start);
        var after = differential?.Start ?? full.Start;
        var logs = backups.Where(o => o.Scope == OperationScope.Log && o.Start > after).ToList();
        if (differential is { BytesRead: null } || logs.Any(l => l.BytesRead is null))
        {
            return null;
        }

        return new RestoreChainBytes(fullBytes, differential?.BytesRead, logs.Select(l => l.BytesRead!.Value).ToList())
        {
            EncryptedBackups = new[] { full, differential }.OfType<HistoryOperation>().Concat(logs).Count(o => o.Options.Encryption == true),
        };
    }

    /// <summary>
    /// The report for <paramref name="plan"/>: rates from <paramref name="history"/> (the database's operations, restores
    /// measured or backups with the assumed factor), notes from the plan, <paramref name="notes"/> and the estimate.
    /// </summary>
    public static RestoreEstimateReport Report(RestorePlan plan, RestoreTarget target, IReadOnlyCollection<HistoryOperation> history, IEnumerable<string> notes)
    {
        ArgumentNullException.ThrowIfNull(plan);
        var all = plan.Notes.Concat(notes).ToList();
        if (plan.Bytes() is not { } bytes)
        {
            if (plan.Full is not null)
            {
                all.Add("cannot tell: a backup set of the chain has no backup_size in msdb");
            }

            return new RestoreEstimateReport(plan, target, null, all);
        }

        var estimate = Estimate(bytes, target, CopyRate(history, plan.Database), LogRestoreRate(history, plan.Database), RecoveryTime(history, plan.Database));
        all.AddRange(estimate.Notes);
        return new RestoreEstimateReport(plan, target, estimate, all);
    }

    /// <summary>
    /// <paramref name="report"/> with every phase <paramref name="drill"/> measured timed by the drill instead (the copy, the
    /// log restores, the zeroing of files that are zeroed, the recovery), each phase's basis saying so; the rest as it
    /// was. Unchanged when the report has no estimate or the drill measured nothing.
    /// </summary>
    public static RestoreEstimateReport Calibrate(RestoreEstimateReport report, MeasuredRestoreRates drill)
    {
        ArgumentNullException.ThrowIfNull(report);
        ArgumentNullException.ThrowIfNull(drill);
        if (report.Estimate is not { } estimate || !drill.Any)
        {
            return report;
        }

        RateInterval? Measured(RateInterval? rate) => rate is null ? null : rate with { Measured = true, Basis = drill.Basis + " (" + rate.Basis + ")" };
        var phases = new List<RestorePhaseEstimate>();
        foreach (var phase in estimate.Phases)
        {
            phases.Add(phase.Phase switch
            {
                DataZeroing when Measured(drill.Zeroing) is { } zeroing && phase.Bytes > 0 && !(report.Target.InstantFileInitialization is true && report.Target.Encrypted is not true)
                    // Unknown IFI: none if enabled, so the interval still starts at zero.
                    => FromZero(Timed(DataZeroing, phase.Bytes, zeroing, string.Empty), report.Target.InstantFileInitialization is null),
                LogZeroing when Measured(drill.Zeroing) is { } zeroing && phase.Bytes > 0
                    => FromZero(Timed(LogZeroing, phase.Bytes, zeroing, string.Empty), phase.LowSeconds == 0),
                Copy when Measured(drill.Copy) is { } copy => Timed(Copy, phase.Bytes, copy, string.Empty),
                LogRestore when Measured(drill.LogRestore) is { } logRate && phase.Bytes > 0 => Timed(LogRestore, phase.Bytes, logRate, string.Empty),
                Recovery when drill.Recovery is { } recovery => new RestorePhaseEstimate(Recovery, 0, recovery.Low, recovery.High, Measured: true, drill.Basis + " (" + recovery.Basis + ")"),
                _ => phase,
            });
        }

        if (drill.Recovery is { } measured && phases.All(p => p.Phase != Recovery))
        {
            phases.Add(new RestorePhaseEstimate(Recovery, 0, measured.Low, measured.High, Measured: true, drill.Basis + " (" + measured.Basis + ")"));
        }

        var known = phases.All(p => p.LowSeconds is not null);
        var calibrated = estimate with
        {
            Phases = phases,
            LowSeconds = known ? phases.Sum(p => p.LowSeconds!.Value) : null,
            HighSeconds = known ? phases.Sum(p => p.HighSeconds!.Value) : null,
            NotCounted = estimate.NotCounted
                .Where(u => !(u.Part == Recovery && drill.Recovery is not null) && !(u.Part == Reading && drill.Copy is not null))
                .ToList(),
        };
        return report with { Estimate = calibrated, Notes = [.. report.Notes, "calibrated: the phases a restore drill measured are timed by it (" + drill.Basis + ")"] };
    }

    /// <param name="recovery">The recovery measured by past restores (<see cref="RecoveryTime"/>): a phase when given, else "not counted".</param>
    public static RestoreEstimate Estimate(RestoreChainBytes chain, RestoreTarget target, RateInterval? copyRate, RateInterval? logRestoreRate, SecondsInterval? recovery = null)
    {
        ArgumentNullException.ThrowIfNull(chain);
        ArgumentNullException.ThrowIfNull(target);
        var notes = new List<string>();
        // Zeroing writes zeros to the files the copy then writes: assumed to go at the copy's rate, never measured here.
        var zeroingRate = copyRate is null ? null : copyRate with { Measured = false, Basis = "assumed: zeroing writes at the restore's copy rate (" + copyRate.Basis + ")" };
        var phases = new List<RestorePhaseEstimate>
        {
            DataFiles(target, zeroingRate),
            LogFile(target, zeroingRate, notes),
            Timed(Copy, chain.FullBytes + (chain.DifferentialBytes ?? 0), copyRate, "no restore or backup of this database with a size and a duration in the history"),
            LogBackups(chain.LogBackupBytes, copyRate, logRestoreRate),
        };
        if (recovery is not null)
        {
            phases.Add(new RestorePhaseEstimate(Recovery, 0, recovery.Low, recovery.High, Measured: true, recovery.Basis));
        }

        var known = phases.All(p => p.LowSeconds is not null);
        return new RestoreEstimate(
            phases,
            known ? phases.Sum(p => p.LowSeconds!.Value) : null,
            known ? phases.Sum(p => p.HighSeconds!.Value) : null,
            notes)
        {
            NotCounted = NotCounted(chain, target, copyRate, recovery is not null),
        };
    }

    /// <summary>
    /// What no input here measures: recovery unless a captured restore timed it; reading the backups when no restore
    /// measured it; TDE when not known; decrypting encrypted backups, for which no rate is measured or published.
    /// </summary>
    private static List<RestoreUnknown> NotCounted(RestoreChainBytes chain, RestoreTarget target, RateInterval? copyRate, bool recoveryMeasured)
    {
        var unknown = new List<RestoreUnknown>();
        if (!recoveryMeasured)
        {
            unknown.Add(new(Recovery, "the redo of the log each backup holds and the undo of the transactions open at its end depend on the activity when it was taken, which msdb does not record, and no captured restore of this database in the history timed them"));
        }

        if (copyRate is not { Measured: true })
        {
            unknown.Add(new(Reading, "the rates are backups', which measure writing to the backup target; how fast it is read back today (a share, a URL, another disk) is not measured"));
        }

        if (target.Encrypted is null && target.InstantFileInitialization is true)
        {
            unknown.Add(new(Tde, "whether the database is encrypted is not known (no sys.databases row visible); if it is, its data files are zeroed despite Instant File Initialization"));
        }

        if (chain.EncryptedBackups > 0)
        {
            // No rate is invented: Microsoft documents none, and published single-server trials disagree (docs/restore-chain.md).
            unknown.Add(new(Decryption, Inv($"{chain.EncryptedBackups} of the chain's {chain.Backups} backup(s) are encrypted (backup encryption): how long decrypting them takes is measured by no input here and documented by no rate, so it is not in the total; a copy rate measured on restores includes it only if those restores read encrypted backups")));
        }

        return unknown;
    }

    private static RestorePhaseEstimate DataFiles(RestoreTarget target, RateInterval? zeroing)
    {
        if (target.InstantFileInitialization is true && target.Encrypted is true && target.DataFileBytes is { } encrypted)
        {
            // TDE prevents Instant File Initialization for data files (Microsoft's IFI page): zeroed as without it.
            var tde = Timed(DataZeroing, encrypted, zeroing, "no copy rate to assume a zeroing rate from");
            return tde.LowSeconds is null ? tde : tde with { Basis = "TDE: the database is encrypted (sys.databases.is_encrypted), which prevents Instant File Initialization for data files; " + tde.Basis };
        }

        if (target.InstantFileInitialization is true)
        {
            return new RestorePhaseEstimate(DataZeroing, target.DataFileBytes ?? 0, 0, 0, Measured: true, "none: Instant File Initialization is enabled (sys.dm_server_services)");
        }

        if (target.DataFileBytes is not { } bytes)
        {
            return CannotTell(DataZeroing, 0, "the data file sizes are not known");
        }

        var zeroed = Timed(DataZeroing, bytes, zeroing, "no copy rate to assume a zeroing rate from");
        // Unknown IFI: the data files may not be zeroed at all, so the interval starts at zero.
        return target.InstantFileInitialization is null && zeroed.LowSeconds is not null
            ? zeroed with { LowSeconds = 0, Basis = "Instant File Initialization not known: none if enabled, else " + zeroed.Basis }
            : zeroed;
    }

    private static RestorePhaseEstimate LogFile(RestoreTarget target, RateInterval? zeroing, List<string> notes)
    {
        if (target.LogFileBytes is not { } bytes)
        {
            return CannotTell(LogZeroing, 0, "the log file size is not known");
        }

        var zeroed = Timed(LogZeroing, bytes, zeroing, "no copy rate to assume a zeroing rate from");
        if (target.MajorVersion is null or >= LogIfiMajorVersion && bytes <= LogIfiLimitBytes && zeroed.LowSeconds is not null)
        {
            // The 2022 rule covers log growths of at most 64 MB; whether the restore's creation of so small a log counts is not documented.
            notes.Add("the log file is 64 MB or less: from SQL Server 2022 such log growths use Instant File Initialization, so its zeroing may not happen");
            return zeroed with { LowSeconds = 0 };
        }

        return zeroed;
    }

    private static RestorePhaseEstimate LogBackups(IReadOnlyList<long> logs, RateInterval? copyRate, RateInterval? logRate)
    {
        var bytes = logs.Sum();
        if (logs.Count == 0)
        {
            return new RestorePhaseEstimate(LogRestore, 0, 0, 0, Measured: true, "no log backup after the last full or differential");
        }

        if (logRate is not null)
        {
            return Timed(LogRestore, bytes, logRate, string.Empty);
        }

        var assumed = copyRate is null ? null : copyRate with
        {
            Measured = false,
            Basis = "assumed: log backups restore at the copy rate (" + copyRate.Basis + "); redo of their records can take longer",
        };
        return Timed(LogRestore, bytes, assumed, "no log restore, restore or backup of this database with a size and a duration in the history");
    }

    private static RestorePhaseEstimate Timed(string phase, long bytes, RateInterval? rate, string whyNot)
        => rate is null || rate.LowBytesPerSecond <= 0
            ? CannotTell(phase, bytes, whyNot)
            : new RestorePhaseEstimate(phase, bytes, bytes / rate.HighBytesPerSecond, bytes / rate.LowBytesPerSecond, rate.Measured, rate.Basis);

    private static RestorePhaseEstimate FromZero(RestorePhaseEstimate phase, bool mayNotHappen) => mayNotHappen ? phase with { LowSeconds = 0 } : phase;

    private static RestorePhaseEstimate CannotTell(string phase, long bytes, string why)
        => new(phase, bytes, null, null, Measured: false, "cannot tell: " + why);

    private static List<double> Rates(IEnumerable<HistoryOperation> history, string database, OperationKind kind, bool log)
        => history
            .Where(o => o.Kind == kind && o.Status == OperationStatus.Completed
                && string.Equals(o.Database, database, StringComparison.OrdinalIgnoreCase)
                && (o.Scope == OperationScope.Log) == log && o.Scope != OperationScope.File)
            .Select(o => o.BytesRead is { } b && CopySeconds(o, log) is { } s && s > 0 && b > 0 ? b / s : 0)
            .Where(rate => rate > 0)
            .ToList();

    /// <summary>
    /// The time a restore spent copying: a full or differential restore's measured redo and recovery are left out, since
    /// the estimate times them as their own phase; a log restore keeps its redo, which its rate then includes.
    /// </summary>
    private static double? CopySeconds(HistoryOperation operation, bool log)
        => operation.DurationSeconds is { } seconds && operation.Kind == OperationKind.Restore && !log
            ? seconds - (operation.RedoSeconds ?? 0) - (operation.RecoverySeconds ?? 0)
            : operation.DurationSeconds;

    private static string Inv(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}

/// <summary>The estimate's one-line summary, said the same way by the CLI's reports and the daemon's log.</summary>
public static class RestoreEstimateText
{
    /// <summary>The total interval, or why not, and which phases rest on an assumption.</summary>
    public static string Total(RestoreEstimateReport report)
    {
        ArgumentNullException.ThrowIfNull(report);
        if (report.Estimate is not { } estimate)
        {
            return "cannot tell (" + (report.Plan.Full is null ? "no full backup to start from" : "a backup of the chain has no size") + ")";
        }

        if (estimate.LowSeconds is null)
        {
            var unknown = estimate.Phases.Where(p => p.LowSeconds is null).Select(p => p.Phase);
            return "cannot tell: no time for " + string.Join(", ", unknown);
        }

        var assumed = estimate.Phases.Where(p => !p.Measured).Select(p => p.Phase).ToList();
        var basis = assumed.Count == 0 ? "every phase measured" : "assumed: " + string.Join(", ", assumed);
        var left = estimate.NotCounted.Count == 0 ? string.Empty : "; not counted: " + string.Join(", ", estimate.NotCounted.Select(u => u.Part));
        return $"{Range(estimate.LowSeconds, estimate.HighSeconds)} ({basis}){left}";
    }

    /// <summary>"14 min 40 s to 29 min 20 s", one duration when both ends agree, "?" when either is not known.</summary>
    public static string Range(double? low, double? high)
        => low is null || high is null ? "?" : Math.Abs(high.Value - low.Value) < 0.005 ? Figures.Duration(low) : $"{Figures.Duration(low)} to {Figures.Duration(high)}";
}
