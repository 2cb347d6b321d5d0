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
public sealed class Trial
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

    /// <summary>Mean of the runs' rates.</summary>
    public double RateMBps => _runs.Count == 0 ? 0 : _runs.Average(r => r.RateMBps);

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
}
