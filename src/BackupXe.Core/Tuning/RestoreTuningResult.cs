using BackupXe.Core.Reporting;

namespace BackupXe.Core.Tuning;

/// <summary>
/// What <c>tune --restore</c> asks for: the complete backup to restore (<c>--restore-from</c>; empty: the last trial
/// backup that finished, on a server that keeps trial files) and the directory on the server for the scratch files.
/// </summary>
public sealed record RestoreTuneRequest(IReadOnlyList<string> From, string ScratchDirectory)
{
    /// <summary>Restore trials at most: the defaults, a larger transfer size, then buffer counts while they gain.</summary>
    public const int MaxTrials = 6;

    /// <summary>The buffer counts tried in turn, each within the memory budget.</summary>
    public static readonly IReadOnlyList<int> BufferCounts = [32, 64, 128, 256];

    /// <summary>The largest transfer size RESTORE accepts (4 MB), the usual first lever for a restore.</summary>
    public const long LargeTransferSize = 4 * 1024 * 1024;
}

/// <summary>
/// One set of restore options, run once or more (repeated, as backup trials are, while the noise is larger than the
/// gain): each run restores into a scratch database of its own. Its rate is the mean of the runs' rates over their
/// windows; the zeroing, the diagnosis and the limit are the last run's.
/// </summary>
public sealed class RestoreTrial : IComparedTrial
{
    private readonly List<RestoreRun> _runs = [];

    internal RestoreTrial(int number, int? bufferCount, long? maxTransferSizeBytes)
    {
        Number = number;
        BufferCount = bufferCount;
        MaxTransferSizeBytes = maxTransferSizeBytes;
    }

    public int Number { get; }

    public int? BufferCount { get; }

    public long? MaxTransferSizeBytes { get; }

    public IReadOnlyList<RestoreRun> Runs => _runs;

    /// <summary>Mean of the runs' rates, MB/s.</summary>
    public double RateMBps => _runs.Count == 0 ? 0 : _runs.Average(r => r.RateMBps);

    public string ScratchDatabase => _runs.Count == 0 ? string.Empty : _runs[^1].ScratchDatabase;

    public double WindowSeconds => _runs.Count == 0 ? 0 : _runs[^1].WindowSeconds;

    public bool Finished => _runs.Count > 0 && _runs[^1].Finished;

    public IReadOnlyList<ZeroingReport> Zeroing => _runs.Count == 0 ? [] : _runs[^1].Zeroing;

    public Bottleneck? Bottleneck => _runs.Count == 0 ? null : _runs[^1].Bottleneck;

    /// <summary>What limited the last run, from its phases and waits.</summary>
    public RestoreLimit? Limit => _runs.Count == 0 ? null : _runs[^1].Limit;

    /// <summary>Options the server did not apply as asked, or could not be confirmed, in the last run.</summary>
    public IReadOnlyList<string> Differences => _runs.Count == 0 ? [] : _runs[^1].Differences;

    /// <summary>True when a run used other options than asked: the trial measured something else, and is never the best.</summary>
    public bool OptionsDiffer => _runs.Any(r => r.OptionsDiffer);

    /// <summary>The buffer memory the server reported for the last run (Total buffer space), or null.</summary>
    public long? BufferMemoryBytes => _runs.Count == 0 ? null : _runs[^1].BufferMemoryBytes;

    /// <summary>Seconds spent zeroing files, as the capture measured them; null when no zeroing was seen.</summary>
    public double? ZeroingSeconds => Zeroing.Count == 0 ? null : Zeroing.Sum(z => z.Seconds ?? 0);

    /// <summary>"BUFFERCOUNT 64, default MAXTRANSFERSIZE".</summary>
    public string Options => $"{(BufferCount is { } count ? $"BUFFERCOUNT {count}" : "default BUFFERCOUNT")}, {(MaxTransferSizeBytes is { } size ? $"MAXTRANSFERSIZE {size / 1024} KB" : "default MAXTRANSFERSIZE")}";

    /// <summary>Every run gives a rate: a restore's is read over its window whatever it reached.</summary>
    IReadOnlyList<double> IComparedTrial.MeasuredRates => [.. _runs.Select(r => r.RateMBps)];

    int IComparedTrial.RunCount => _runs.Count;

    bool IComparedTrial.Measured => _runs.Count > 0;

    bool IComparedTrial.AsAsked => !OptionsDiffer;

    internal void Add(RestoreRun run) => _runs.Add(run);
}

/// <summary>
/// One run of a restore trial: its scratch database, its rate over its window (stopped there, or finished), the files
/// it zeroed, the diagnosis, what limited it, and the buffer memory the server reported.
/// </summary>
public sealed record RestoreRun(
    string ScratchDatabase,
    double RateMBps,
    double WindowSeconds,
    bool Finished,
    IReadOnlyList<ZeroingReport> Zeroing,
    Bottleneck? Bottleneck,
    RestoreLimit Limit,
    long? BufferMemoryBytes)
{
    /// <summary>BUFFERCOUNT or MAXTRANSFERSIZE asked for and not what the server reported, or not confirmed.</summary>
    public IReadOnlyList<string> Differences { get; init; } = [];

    public bool OptionsDiffer { get; init; }
}

/// <summary>
/// The restore trials of a tune: each trial, the best, Instant File Initialization as the server reports it, why they
/// stopped, and every scratch database that could not be dropped with the statement that drops it.
/// </summary>
public sealed record RestoreTuningResult(
    IReadOnlyList<RestoreTrial> Trials,
    RestoreTrial? Best,
    bool? InstantFileInitialization,
    string StopReason,
    bool Refused,
    IReadOnlyList<string> NotDropped)
{
    /// <summary>Best over the first trial (the server's defaults), minus one; null without both.</summary>
    public double? Gain => Best is { } best && Trials is [{ RateMBps: > 0 } first, ..] ? best.RateMBps / first.RateMBps - 1 : null;

    /// <summary>A restore tune that ran nothing and says why.</summary>
    public static RestoreTuningResult Nothing(string why, bool? ifi = null) => new([], null, ifi, why, Refused: true, []);
}
