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
/// One restore trial as it ran: its options, the restore's rate over its window (stopped there, or finished), the data
/// and log files zeroed and the time the zeroing took, the diagnosis, and whether its scratch database was dropped.
/// </summary>
public sealed record RestoreTrial(
    int Number,
    string ScratchDatabase,
    int? BufferCount,
    long? MaxTransferSizeBytes,
    double RateMBps,
    double WindowSeconds,
    bool Finished,
    IReadOnlyList<ZeroingReport> Zeroing,
    Bottleneck? Bottleneck)
{
    /// <summary>Seconds spent zeroing files, as the capture measured them; null when no zeroing was seen.</summary>
    public double? ZeroingSeconds => Zeroing.Count == 0 ? null : Zeroing.Sum(z => z.Seconds ?? 0);

    /// <summary>"BUFFERCOUNT 64, default MAXTRANSFERSIZE".</summary>
    public string Options => $"{(BufferCount is { } count ? $"BUFFERCOUNT {count}" : "default BUFFERCOUNT")}, {(MaxTransferSizeBytes is { } size ? $"MAXTRANSFERSIZE {size / 1024} KB" : "default MAXTRANSFERSIZE")}";
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
