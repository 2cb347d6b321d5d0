namespace BackupXe.Tests.Tuning;

/// <summary>
/// The simulated restore's copy rate against its buffers, shared by the simulated restore host and the TDS double's
/// restores: <see cref="DefaultsMBps"/> at the server's default 6 buffers of 1 MB, growing as the buffer memory over
/// 6 MB to the power <see cref="Exponent"/>, up to <see cref="CeilingMBps"/>, where <see cref="CeilingSide"/> limits it.
/// The default (150 MB/s, square root, 800 MB/s) is a generic fast restore; <see cref="San"/> is calibrated on a
/// published result (docs/tuning.md, "A restore on a SAN").
/// </summary>
internal sealed record RestoreModel
{
    private const long MB = ServerModel.MB;

    /// <summary>BUFFERCOUNT and MAXTRANSFERSIZE of a restore that names neither, as the published trace output shows them.</summary>
    public const int DefaultBufferCount = 6;

    public double DefaultsMBps { get; init; } = 150;

    public double Exponent { get; init; } = 0.5;

    public double CeilingMBps { get; init; } = 800;

    /// <summary>"backup-read" or "data-file-write": which side sets the ceiling.</summary>
    public string CeilingSide { get; init; } = "backup-read";

    /// <summary>
    /// Enrico van de Laar's 10 GB database on a SAN (docs/backup-internals.md, "A 10 GB database on a SAN"): the
    /// defaults 171 s, MAXTRANSFERSIZE 4 MB 81 s, with BUFFERCOUNT 100 62 s, more buffers no better. Rates are the
    /// database's MB over those times: 57 MB/s at the defaults (as published), 171/81 of it at 6 x 4 MB (the exponent:
    /// four times the memory, 2.11 times the rate) and 171/62 of it at the ceiling (2.76 times).
    /// </summary>
    public static RestoreModel San { get; } = new()
    {
        DefaultsMBps = 57,
        Exponent = Math.Log(171.0 / 81) / Math.Log(4),
        CeilingMBps = 57 * 171.0 / 62,
    };

    /// <summary>The noise-free rate of a restore with these options, and what limits it: "buffers" below the ceiling.</summary>
    public (double Rate, string Limit) Rate(int? bufferCount, long? maxTransferSize)
    {
        var bound = Curve((bufferCount ?? DefaultBufferCount) * (maxTransferSize ?? MB));
        return bound < CeilingMBps ? (bound, "buffers") : (CeilingMBps, CeilingSide);
    }

    /// <summary>
    /// The best rate any restore reaches whose buffers, as the server reports them (<paramref name="bufferRatio"/> times
    /// BUFFERCOUNT x MAXTRANSFERSIZE), fit the budget and the memory limit: what the tuner is judged against.
    /// </summary>
    public double BestAchievable(long memoryBudget, long memoryLimit, double bufferRatio = 1) =>
        Math.Min(CeilingMBps, Curve((long)(Math.Min(memoryBudget, memoryLimit) / bufferRatio)));

    private double Curve(long memory) => DefaultsMBps * Math.Pow(memory / (DefaultBufferCount * (double)MB), Exponent);
}
