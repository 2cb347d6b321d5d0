namespace BackupXe.Core.Fleet;

/// <summary>Where a figure stands against its target.</summary>
public enum ComplianceState
{
    /// <summary>Past its target.</summary>
    Outside,

    /// <summary>The history cannot give the figure (no backup of the kind needed, no size to estimate from).</summary>
    CannotTell,

    /// <summary>Within its target.</summary>
    Within,

    /// <summary>No target applies: the figure is shown, not judged.</summary>
    NoTarget,
}

/// <summary>The state of a database's log chain as far as the history tells it.</summary>
public enum ChainState
{
    /// <summary>A switch to the SIMPLE recovery model ended the chain.</summary>
    Broken,

    /// <summary>A log backup is missing: no restore crosses the gap.</summary>
    Gap,

    /// <summary>The history holds no LSNs, or no full backup the log backups continue.</summary>
    CannotTell,

    /// <summary>SIMPLE recovery model: there is no log chain, full and differential backups are the restore points.</summary>
    NotApplicable,

    /// <summary>Every log backup continues the previous one from a full backup.</summary>
    Whole,
}

/// <summary>
/// A recovery figure (RPO or RTO) of one database: its value, the target it is held to, where it stands, since when
/// (for an RPO outside its target, the moment the target was passed), and the evidence it rests on in words.
/// </summary>
public sealed record RecoveryFinding(ComplianceState State, TimeSpan? Value, AppliedTarget? Target, DateTime? Since, string Evidence)
{
    /// <summary>The value over its target (1.5 = half as long again); null without both.</summary>
    public double? Ratio => Value is { } value && Target is { } target && target.Value > TimeSpan.Zero ? value / target.Value : null;

    /// <summary>The value is a floor (an RTO some of whose phases could not be timed): the real figure is at least this.</summary>
    public bool Floor { get; init; }

    /// <summary>What an RTO rests on (docs/fleet.md, "RTO"); null for an RPO.</summary>
    public RtoSource? Source { get; init; }
}

/// <summary>What a database's RTO rests on, the first there is: its last drill, its last real restore, or the estimate.</summary>
public enum RtoSource
{
    /// <summary>The restores of the last completed restore drill, timed.</summary>
    Drill,

    /// <summary>The last real restore sequence a capture timed: a full database restore and the restores after it.</summary>
    Restore,

    /// <summary>The restore estimate made from the backups in the history.</summary>
    Estimate,
}

/// <summary>The chain's state, since when (the gap's start, the switch, the start of the whole chain) and the evidence.</summary>
public sealed record ChainFinding(ChainState State, DateTime? Since, string Evidence);

/// <summary>Whether a restore of the database (a drill, or a real one) is in the history, the last one, or since when none is.</summary>
public sealed record VerificationFinding(bool Verified, DateTime? Since, string Evidence);

/// <summary>
/// One database's place against its recovery targets (docs/fleet.md, "Compliance"): its last full, differential and
/// log backups, RPO and RTO against their targets, the chain's state and whether a restore was ever tried. Times are UTC.
/// </summary>
public sealed record DatabaseCompliance(
    string Instance,
    string Database,
    string? RecoveryModel,
    DateTime? LastFull,
    DateTime? LastDifferential,
    DateTime? LastLog,
    RecoveryFinding Rpo,
    RecoveryFinding Rto,
    ChainFinding Chain,
    VerificationFinding Verification)
{
    /// <summary>The instances its rows come from: one, or the replicas of its availability group that hold backups of it.</summary>
    public IReadOnlyList<string> Replicas { get; init; } = [Instance];

    /// <summary>sys.databases.group_database_id when the database is in an availability group; null otherwise.</summary>
    public Guid? GroupDatabaseId { get; init; }

    /// <summary>The instance (replica) that took the last full backup; null without one.</summary>
    public string? LastFullOn { get; init; }

    /// <summary>The instance (replica) that took the last differential backup; null without one.</summary>
    public string? LastDifferentialOn { get; init; }

    /// <summary>The instance (replica) that took the last log backup; null without one.</summary>
    public string? LastLogOn { get; init; }

    /// <summary>The newest role each replica of its availability group gave (docs/fleet.md, "Backup preference"); empty outside a group or when none was read.</summary>
    public IReadOnlyList<ReplicaRole> ReplicaRoles { get; init; } = [];

    /// <summary>The group's automated backup preference (PRIMARY, SECONDARY_ONLY, SECONDARY, NONE) as last read; null when not read.</summary>
    public string? BackupPreference { get; init; }

    /// <summary>The last full or log backup taken on a replica that was not the preferred one, in words; empty when none.</summary>
    public IReadOnlyList<string> OffPreference { get; init; } = [];

    /// <summary>Whether RPO or RTO is past its target.</summary>
    public bool OutOfTarget => Rpo.State == ComplianceState.Outside || Rto.State == ComplianceState.Outside;
}
