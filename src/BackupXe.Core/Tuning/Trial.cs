using BackupXe.Core.Reporting;

namespace BackupXe.Core.Tuning;

/// <summary>What a trial is for: the read ceilings first, then the baseline, then the moves the diagnosis picks.</summary>
public enum TrialPurpose
{
    ReadCeiling,
    ReadCeilingCompressed,
    Baseline,
    MoreBufferMemory,
    MoreFiles,
    Compression,
    NoCompression,
    OtherAlgorithm,
    BlockSize,
}

/// <summary>
/// One set of options, run once or more (repeated when the noise was larger than the gain): its rates in MB/s of
/// database read per second of the measured window, the buffer memory the server reported, the bottleneck the
/// diagnosis found, and any option the server did not apply as asked.
/// </summary>
public sealed class Trial : IComparedTrial
{
    private readonly List<TrialRun> _runs = [];

    internal Trial(int number, TrialPurpose purpose, TrialOptions requested, bool toNul)
    {
        Number = number;
        Purpose = purpose;
        Requested = requested;
        ToNul = toNul;
    }

    public int Number { get; }

    public TrialPurpose Purpose { get; }

    public TrialOptions Requested { get; }

    public bool ToNul { get; }

    public IReadOnlyList<TrialRun> Runs => _runs;

    /// <summary>Mean of the measured runs' rates; 0 when no run was measured (<see cref="Measured"/> says which).</summary>
    public double RateMBps => MeasuredRuns.Count == 0 ? 0 : MeasuredRuns.Average(r => r.RateMBps);

    /// <summary>The runs whose window gave a rate: a run without one never counts as 0 MB/s.</summary>
    public IReadOnlyList<TrialRun> MeasuredRuns => [.. _runs.Where(r => r.Measured)];

    /// <summary>At least one run gave a rate.</summary>
    public bool Measured => _runs.Any(r => r.Measured);

    /// <summary>
    /// Every option asked for was confirmed in every run: none differs and none is "not confirmed" (a BLOCKSIZE of a
    /// trial stopped before msdb recorded it). Only such a trial is ever adopted or recommended.
    /// </summary>
    public bool Confirmed => _runs.Count > 0 && _runs.All(r => !r.OptionsDiffer && !r.Unconfirmed);

    /// <summary>How the last comparison judged this trial against the best so far ("adopted: ..."); null when not compared.</summary>
    public string? Judgement { get; internal set; }

    /// <summary>The last run's reported Total buffer space (or BUFFERCOUNT x MAXTRANSFERSIZE when not reported).</summary>
    public long? BufferMemoryBytes => _runs.LastOrDefault()?.BufferMemoryBytes;

    public Bottleneck? Bottleneck => _runs.LastOrDefault()?.Verdict?.Bottleneck;

    public Verdict? Verdict => _runs.LastOrDefault()?.Verdict;

    /// <summary>Requested options the server did not apply, or could not be confirmed, in the last run.</summary>
    public IReadOnlyList<string> Differences => _runs.LastOrDefault()?.Differences ?? [];

    /// <summary>True when the server used other options than asked: the trial measured something else.</summary>
    public bool OptionsDiffer => _runs.Any(r => r.OptionsDiffer);

    /// <summary>Its rate over the read ceiling of the same compression; null for the ceilings themselves.</summary>
    public double? RatioToCeiling { get; internal set; }

    IReadOnlyList<double> IComparedTrial.MeasuredRates => [.. MeasuredRuns.Select(r => r.RateMBps)];

    int IComparedTrial.RunCount => _runs.Count;

    bool IComparedTrial.AsAsked => Confirmed;

    internal void Add(TrialRun run) => _runs.Add(run);
}

/// <summary>
/// One run of a trial: the measured window (seconds, and how steady the rate was inside it: the relative standard
/// deviation of its progress intervals), what the server reported, and the diagnosis of the captured operation.
/// </summary>
public sealed record TrialRun(
    double RateMBps,
    double WindowSeconds,
    double Steadiness,
    long BytesRead,
    long? BufferMemoryBytes,
    long? MemoryLimitBytes,
    double? ReportedBufferRatio,
    Verdict? Verdict,
    IReadOnlyList<string> Differences,
    bool OptionsDiffer,
    double WallSeconds,
    bool Finished)
{
    public OperationReport? Operation { get; init; }

    /// <summary>Where the rate came from; <see cref="RateSource.NotMeasured"/> when the window gave too little progress.</summary>
    public RateSource Source { get; init; } = RateSource.Progress;

    public bool Measured => Source != RateSource.NotMeasured;

    /// <summary>An option asked for could not be confirmed (no buffer configuration, no msdb block size).</summary>
    public bool Unconfirmed { get; init; }

    /// <summary>The options the server did not apply as asked ("MAXTRANSFERSIZE", "BUFFERCOUNT", ...), each with what it used.</summary>
    public IReadOnlyList<IgnoredOption> Ignored { get; init; } = [];
}

/// <summary>Where a run's rate comes from, best first.</summary>
public enum RateSource
{
    /// <summary>The capture's progress (the throughput event, or the percent messages) over the window, warm-up left out.</summary>
    Progress,

    /// <summary>sys.dm_exec_requests.percent_complete sampled over the window, times the backup's estimated size.</summary>
    PercentComplete,

    /// <summary>A finished trial's msdb backupset row: its size over its duration.</summary>
    MsdbHistory,

    /// <summary>The window gave too little progress and no other source answered: no rate, never 0 MB/s.</summary>
    NotMeasured,
}

/// <summary>An option a trial asked for and the server did not apply: its name, the value asked and the value used.</summary>
public sealed record IgnoredOption(string Name, string Asked, string Used);
