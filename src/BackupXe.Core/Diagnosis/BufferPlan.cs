using BackupXe.Core.Events;
using BackupXe.Core.Formatting;

namespace BackupXe.Core.Diagnosis;

/// <summary>
/// A BUFFERCOUNT x MAXTRANSFERSIZE proposal that respects the limits of docs/backup-internals.md#data-path-readers-buffers-writers and docs/backup-internals.md#bottleneck-classes-and-remedies:
/// MAXTRANSFERSIZE is a multiple of 64 KB up to 4 MB, and the buffer memory never exceeds the reported memory
/// limit nor the configured budget (buffers are taken outside the buffer pool; too many cause out-of-memory).
/// </summary>
internal sealed record BufferPlan(
    int BufferCount,
    long MaxTransferSizeBytes,
    int? CurrentBufferCount,
    long CurrentMaxTransferSizeBytes,
    bool CurrentMaxTransferSizeAssumed,
    string? CapDescription,
    bool Capped,
    double ReportedRatio = 1)
{
    public const long MaxTransferSizeCeiling = 4 * 1024 * 1024;
    public const long MaxTransferSizeStep = 64 * 1024;

    public long Bytes => ServerRanges.SaturatingMultiply(BufferCount, MaxTransferSizeBytes);

    public bool RaisesMaxTransferSize => MaxTransferSizeBytes > CurrentMaxTransferSizeBytes;

    public bool RaisesBufferCount => CurrentBufferCount is not { } current || BufferCount > current;

    /// <summary>"64 x 4 MB = 256 MB of buffer memory".</summary>
    /// <remarks>
    /// When the server reported more buffer space than BUFFERCOUNT x MAXTRANSFERSIZE (S03: 345 MB for 64 x 2 MB),
    /// the proposal is priced at the same ratio: "about 691 MB as the server counts it (2.7x, as it reports today)".
    /// </remarks>
    public string MemorySentence => ReportedRatio > 1
        ? $"{Figures.Count(BufferCount)} x {Figures.Memory(MaxTransferSizeBytes)} = {Figures.Memory(Bytes)}, about {Figures.Memory(PricedBytes)} of buffer memory as the server counts it ({Figures.Ratio(ReportedRatio)}, the ratio it reports today)"
        : $"{Figures.Count(BufferCount)} x {Figures.Memory(MaxTransferSizeBytes)} = {Figures.Memory(Bytes)} of buffer memory";

    /// <summary>What the proposal will take by the server's own count.</summary>
    public long PricedBytes => (long)Math.Ceiling(Bytes * ReportedRatio);

    /// <summary>
    /// Aims at <paramref name="targetBuffersPerDevice"/> buffers per device of 4 MB, scaled down to fit the cap;
    /// null when nothing can be raised within it (already at the ceiling, or the cap leaves no room).
    /// </summary>
    public static BufferPlan? Propose(OperationMeasures measures, DiagnosisSettings settings, int targetBuffersPerDevice)
    {
        var config = measures.Buffers;
        var currentCount = config?.BufferCount;
        var currentSize = config?.MaxTransferSizeBytes ?? OperationMeasures.DefaultMaxTransferSize;
        var (cap, capDescription) = Cap(config?.MemoryLimitBytes, settings.MemoryBudgetBytes);

        // The memory a plan takes is priced at the ratio the server reported, never below BUFFERCOUNT x MAXTRANSFERSIZE.
        var ratio = measures.ReportedBufferRatio is > 1 and var r ? r : 1;
        var size = MaxTransferSizeCeiling;
        var count = Math.Max((long)targetBuffersPerDevice * measures.DeviceThreads, currentCount ?? 0);
        var capped = ServerRanges.SaturatingMultiply(count, size) * ratio > cap;
        if (capped)
        {
            var limit = (long)(cap!.Value / ratio);
            count = limit / size;
            var fewest = Math.Max(currentCount ?? 0, measures.DeviceThreads);
            if (count < fewest)
            {
                // Fewer buffers than today would cut outstanding I/O: keep the count, shrink the transfer size.
                count = fewest;
                size = limit / count / MaxTransferSizeStep * MaxTransferSizeStep;
            }
        }

        if (size < MaxTransferSizeStep || count > int.MaxValue)
        {
            return null;
        }

        var plan = new BufferPlan((int)count, size, currentCount, currentSize, config?.MaxTransferSizeBytes is null, capDescription, capped, ratio);
        long? currentBytes = currentCount is { } c ? ServerRanges.SaturatingMultiply(c, currentSize) : null;
        var grows = (plan.RaisesBufferCount && size >= currentSize) || (plan.RaisesMaxTransferSize && count >= (currentCount ?? 0));
        return grows && (currentBytes is not { } now || plan.Bytes > now) ? plan : null;
    }

    private static (long? Cap, string? Description) Cap(long? memoryLimit, long? budget) => (memoryLimit, budget) switch
    {
        ({ } limit, { } mine) when mine <= limit => (mine, $"the configured budget of {Figures.Memory(mine)}"),
        ({ } limit, _) => (limit, $"the reported memory limit of {Figures.Memory(limit)}"),
        (null, { } mine) => (mine, $"the configured budget of {Figures.Memory(mine)}"),
        _ => (null, null),
    };
}
