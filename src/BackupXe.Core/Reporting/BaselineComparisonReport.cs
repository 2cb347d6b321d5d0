using BackupXe.Core.Events;
using BackupXe.Core.Parsing;

namespace BackupXe.Core.Reporting;

/// <summary>How an operation compares with its own series (docs/history.md, "This run against its history").</summary>
public enum BaselineVerdict
{
    /// <summary>Within the usual spread of its series.</summary>
    Usual,

    Slower,

    Faster,

    /// <summary>The history does not support a verdict: <see cref="BaselineComparisonReport.Reason"/> says why.</summary>
    CannotTell,
}

/// <summary>
/// An operation set against the earlier runs of its series (same instance, database, kind, scope and target type),
/// with what changed and what else was running. Null in a report when no history was given.
/// </summary>
public sealed record BaselineComparisonReport
{
    /// <summary>Whose history the run was set against; null when no instance of the history holds its series.</summary>
    public string? Instance { get; init; }

    /// <summary>"full backup of [Sales] to disk".</summary>
    public required string Series { get; init; }

    /// <summary>disk, url, nul, tape, virtual, logical; null when the input named no device (then every target is compared).</summary>
    public string? TargetType { get; init; }

    public required BaselineVerdict Verdict { get; init; }

    /// <summary>The verdict as one sentence, numbers included.</summary>
    public required string Summary { get; init; }

    /// <summary>Why there is no verdict (too few runs, no rate...); null when there is one.</summary>
    public string? Reason { get; init; }

    /// <summary>How many times slower (or faster) than the usual median: 3.1; null unless slower or faster.</summary>
    public double? Factor { get; init; }

    public double? ThroughputMBps { get; init; }

    /// <summary>The usual runs the baseline is made of (before any slow streak), at most the window.</summary>
    public int UsualRuns { get; init; }

    public double? MedianMBps { get; init; }

    /// <summary>Median absolute deviation of the usual runs' MB/s, unscaled.</summary>
    public double? MadMBps { get; init; }
    public double? P10MBps { get; init; }
    public double? P90MBps { get; init; }

    /// <summary>The first run of the slow streak this run belongs to; null unless slower.</summary>
    public DateTime? Since { get; init; }

    /// <summary>Runs in that streak, this one included.</summary>
    public int SlowRuns { get; init; }

    /// <summary>What differs between the usual runs and this one, best separating first.</summary>
    public IReadOnlyList<BaselineChangeReport> Changes { get; init; } = [];

    /// <summary>Operations on the same instance that ran while this one did, those on its target first.</summary>
    public IReadOnlyList<ConcurrentOperationReport> Concurrent { get; init; } = [];

    /// <summary>The roots this run wrote to (share, volume, URL container), from its device paths.</summary>
    public IReadOnlyList<string> Targets { get; init; } = [];

    /// <summary>The log part of a full backup against the usual one; null when either is unknown.</summary>
    public LogPartReport? LogPart { get; init; }

    /// <summary>Sentences a diagnosis adds: overlaps on the target, an unusually large log part, with the numbers.</summary>
    public IReadOnlyList<string> Findings { get; init; } = [];

    /// <summary>The series' runs around this one, oldest first, for the report's strip chart.</summary>
    public IReadOnlyList<SeriesPointReport> Points { get; init; } = [];

    /// <summary>The database's latest <c>backupxe tune</c> before this run, from the same history; null when none.</summary>
    public TuneRecord? LastTune { get; init; }
}

/// <summary>
/// One factor that differs: its usual value, this run's, and how well it separates the slow runs (this one and its
/// streak) from the usual ones: the share of slow runs with this value times the share of usual runs without it.
/// </summary>
public sealed record BaselineChangeReport(
    string Factor, string Usual, string This, int SlowWithThis, int Slow, int UsualWithThis, int UsualKnown, double Separation);

/// <summary>An operation that overlapped this one on the same instance.</summary>
public sealed record ConcurrentOperationReport(
    string? Database, OperationKind Kind, OperationScope Scope, DateTime Start, DateTime? End, double OverlapSeconds,
    IReadOnlyList<string> Targets, bool SameTarget);

/// <summary>Log bytes backed up within a full backup (the engine's estimate), against the usual runs' median.</summary>
public sealed record LogPartReport(long Bytes, long UsualBytes, double Ratio);

/// <summary>One run on the strip: its start, MB/s and role (usual, slow, this, other: too short to rank).</summary>
public sealed record SeriesPointReport(DateTime Start, double ThroughputMBps, string Role);
