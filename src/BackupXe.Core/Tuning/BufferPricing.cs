namespace BackupXe.Core.Tuning;

/// <summary>The kinds of operation whose buffer memory the server counts differently.</summary>
internal enum BufferKind
{
    Backup,
    CompressedBackup,
    Restore,
}

/// <summary>
/// What a trial's buffers will take as the server counts them, learnt from what it reported. Microsoft's pages give
/// the buffers' total as BUFFERCOUNT x MAXTRANSFERSIZE, but the engine's own figures are larger: a compressed backup
/// reports three sets of buffers and a Total buffer space of 3x the product (7 x 1 MB = 21 MB, 17 x 1 MB = 51 MB), and
/// striped to 3 files with BUFFERCOUNT 64 x 2 MB it reported 128 media buffers and 345 MB, 2.7x (docs/tuning.md,
/// "Memory budget"). So each kind is priced at the highest ratio of reported Total buffer space (or, without it, the
/// reported sets of buffers) to the product seen for that kind; a kind not seen yet at the highest ratio seen for any,
/// and a compressed backup at least at the three sets the engine printed for one.
/// </summary>
internal sealed class BufferPricing
{
    /// <summary>Sets of buffers a compressed backup reported (S01, S02, samples/buffer-starved-backup.xml).</summary>
    public const double CompressedSets = 3;

    private readonly Dictionary<BufferKind, double> _ratios = [];

    /// <summary>The ratio a trial of <paramref name="kind"/> is priced at.</summary>
    public double Ratio(BufferKind kind)
    {
        if (_ratios.TryGetValue(kind, out var seen))
        {
            return seen;
        }

        var any = _ratios.Count == 0 ? 1 : _ratios.Values.Max();
        return kind == BufferKind.CompressedBackup ? Math.Max(CompressedSets, any) : any;
    }

    public long Price(long requestedBytes, BufferKind kind) => (long)Math.Ceiling(requestedBytes * Ratio(kind));

    /// <summary>Records a ratio the server reported; a lower one never lowers the price (the highest seen holds).</summary>
    public void Learn(BufferKind kind, double ratio)
    {
        if (ratio <= 0 || double.IsNaN(ratio) || double.IsInfinity(ratio))
        {
            return;
        }

        _ratios[kind] = _ratios.TryGetValue(kind, out var seen) ? Math.Max(seen, ratio) : Math.Max(1, ratio);
    }
}
