namespace BackupXe.Core.Tuning;

/// <summary>
/// What a tune would do, printed by the dry run before anything runs: the fixed trials (read ceilings, baseline),
/// how many guided trials the time budget leaves, and the upper bounds of time, bytes and memory.
/// </summary>
public sealed record TuningPlan(
    string Database,
    IReadOnlyList<string> Directories,
    IReadOnlyList<string> FixedTrials,
    int GuidedTrialsAtMost,
    double WindowSeconds,
    double TrialOverheadSeconds,
    double TimeBudgetSeconds,
    long DatabaseBytes,
    long BytesReadAtMost,
    long BytesWrittenAtMost,
    long DiskSpaceAtMost,
    long MemoryBudgetBytes,
    IReadOnlyList<string> Notes)
{
    /// <summary>The host cannot delete trial files (a live server): they stay, are listed at the end, and all count on disk.</summary>
    public bool FilesKept { get; init; }

    public int TrialsAtMost => FixedTrials.Count + GuidedTrialsAtMost;

    /// <summary>Each trial ends at its window or when the backup finishes, whichever is first.</summary>
    public double SecondsPerTrialAtMost => WindowSeconds + TrialOverheadSeconds;

    public double ExpectedSecondsAtMost => Math.Min(TimeBudgetSeconds, TrialsAtMost * SecondsPerTrialAtMost);
}
