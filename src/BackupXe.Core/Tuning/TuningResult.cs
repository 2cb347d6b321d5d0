namespace BackupXe.Core.Tuning;

/// <summary>Which side of the backup limits the best trial: the source's reads, the target's writes, or cannot tell.</summary>
public enum LimitingSide
{
    CannotTell,
    Source,
    Target,
}

/// <summary>
/// The trials run, the two ceilings they are judged against, the best trial and why the search stopped. A refused
/// tune ran nothing (or stopped before its next trial) and says why.
/// </summary>
public sealed record TuningResult(
    TuningPlan Plan,
    TuningFacts Facts,
    IReadOnlyList<Trial> Trials,
    Trial? ReadCeiling,
    Trial? CompressedCeiling,
    Trial? Baseline,
    Trial? Best,
    string StopReason,
    bool Refused,
    double SpentSeconds,
    double RelativeNoise)
{
    /// <summary>Trial files the host could not delete: their exact paths, for the DBA to remove (docs/tuning.md, Cleanup).</summary>
    public IReadOnlyList<KeptTrialFile> KeptFiles { get; init; } = [];

    /// <summary>The restore trials (<c>--restore</c>); null when none were asked for.</summary>
    public RestoreTuningResult? Restore { get; init; }

    /// <summary>Free-space checks the DBA overrode (a stated free space, or the risk accepted), one line per directory.</summary>
    public IReadOnlyList<string> FreeSpaceOverrides { get; init; } = [];

    /// <summary>Each option the server did not apply as asked: which, where, and why it matters for production.</summary>
    public IReadOnlyList<string> IgnoredOptions { get; init; } = [];

    /// <summary>The window of the last run: the request's, or longer after runs that gave too little progress to measure.</summary>
    public double WindowSeconds { get; init; }

    /// <summary>What the media sets the tune kept may hold in all, exactly as bounded; null on a host that deletes its files.</summary>
    public long? KeptBytesAtMost { get; init; }

    /// <summary>The most the tune was allowed to leave behind (--max-trial-space, or a multiple of the database).</summary>
    public long? KeptBytesLimit { get; init; }

    /// <summary>Best over baseline, minus one; null without both.</summary>
    public double? Gain => Best is { Measured: true } best && Baseline is { Measured: true, RateMBps: > 0 } baseline ? best.RateMBps / baseline.RateMBps - 1 : null;

    /// <summary>Two standard deviations of the gain, from the run-to-run noise (at least the tuner's assumed minimum) and the runs behind each mean.</summary>
    public double? GainUncertainty => Best is { } best && Baseline is { } baseline && Gain is { } gain
        ? 2 * Math.Max(RelativeNoise, Tuner.MinimumNoise) * (1 + gain) * Math.Sqrt(1.0 / Math.Max(1, best.MeasuredRuns.Count) + 1.0 / Math.Max(1, baseline.MeasuredRuns.Count))
        : null;
}
