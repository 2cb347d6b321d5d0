using BackupXe.Core.Tuning;

namespace BackupXe.Tests.Tuning;

/// <summary>
/// A backup's copy rate, in MB of database read per second, as a deterministic function of the options: the
/// smallest of the read ceiling, the write side (each directory's volume, each file's writer; compression divides
/// the bytes written by its ratio, BLOCKSIZE 65536 adds its published few percent) and the compression CPU ceiling,
/// times a buffer-memory curve (1 at its plateau). Shapes in <see cref="Shapes"/> are calibrated on published results.
/// </summary>
internal sealed record ServerModel
{
    public const long MB = 1024 * 1024;

    public required string Name { get; init; }

    public required long DatabaseBytes { get; init; }

    public required double ReadMBps { get; init; }

    /// <summary>Bytes written per second each directory's volume takes, whatever the number of files on it.</summary>
    public required IReadOnlyDictionary<string, double> DirectoryWriteMBps { get; init; }

    /// <summary>Bytes written per second one file's writer thread takes.</summary>
    public double FileWriteMBps { get; init; } = double.PositiveInfinity;

    /// <summary>Database MB per second the CPUs compress, per algorithm (MS_XPRESS is the classic one).</summary>
    public IReadOnlyDictionary<string, double> CompressMBps { get; init; } = new Dictionary<string, double> { ["MS_XPRESS"] = double.PositiveInfinity };

    /// <summary>Database bytes over bytes written, per algorithm.</summary>
    public IReadOnlyDictionary<string, double> CompressionRatio { get; init; } = new Dictionary<string, double> { ["MS_XPRESS"] = 3 };

    public bool CompressionDefault { get; init; }

    public IReadOnlyList<string> CompressionLevels { get; init; } = [];

    /// <summary>(total buffer memory in bytes, share of the plateau rate), ascending; log-linear in between.</summary>
    public required IReadOnlyList<(long Bytes, double Factor)> BufferCurve { get; init; }

    public double BlockSizeGain { get; init; }

    /// <summary>The server's Total buffer space over BUFFERCOUNT x MAXTRANSFERSIZE (S03 of the real-world fixtures: 2.7).</summary>
    public double ReportedBufferRatio { get; init; } = 1;

    /// <summary>
    /// The same ratio for a compressed backup, when it differs: the engine reported three sets of buffers and 3x the
    /// product for compressed backups (S01, S02); null for the same as <see cref="ReportedBufferRatio"/>.
    /// </summary>
    public double? CompressedBufferRatio { get; init; }

    /// <summary>The ratio a backup with <paramref name="compression"/> reports.</summary>
    public double RatioFor(bool compression) => compression ? CompressedBufferRatio ?? ReportedBufferRatio : ReportedBufferRatio;

    public long MemoryLimitBytes { get; init; } = 3325 * MB;

    /// <summary>Run-to-run noise, relative standard deviation.</summary>
    public double Noise { get; init; }

    /// <summary>An option the server silently does not apply ("MAXTRANSFERSIZE", "BUFFERCOUNT", "BLOCKSIZE").</summary>
    public string? IgnoredOption { get; init; }

    public bool Encrypted { get; init; }

    /// <summary>
    /// Progress as percent lines only, one each time this share of the database is crossed (no throughput event): 0.01
    /// on a 100 GB database is a line per GB. Null: a progress point every second.
    /// </summary>
    public double? ProgressStepShare { get; init; }

    /// <summary>Default BUFFERCOUNT: devices x 4 + devices + 2 x volumes (one volume here): 7 for one file, as S01 shows.</summary>
    public static int DefaultBufferCount(int files) => (files * 5) + 2;

    public const long DefaultMaxTransferSize = 1 * MB;

    /// <summary>The options as the server applies them: defaults filled in, the ignored option dropped.</summary>
    public (int BufferCount, long MaxTransferSize, int BlockSize, bool Compression, string Algorithm) Effective(TrialOptions options, bool toNul)
    {
        var count = IgnoredOption == "BUFFERCOUNT" ? null : options.BufferCount;
        var size = IgnoredOption == "MAXTRANSFERSIZE" ? null : options.MaxTransferSizeBytes;
        var block = IgnoredOption == "BLOCKSIZE" ? null : options.BlockSizeBytes;
        var files = toNul ? 1 : options.Files;
        return (count ?? DefaultBufferCount(files), size ?? DefaultMaxTransferSize, block ?? 512,
            options.Compression ?? CompressionDefault, options.CompressionAlgorithm ?? "MS_XPRESS");
    }

    /// <summary>The rate without noise, and which side limits it: "buffers", "read", "write" or "cpu".</summary>
    public (double Rate, string Limit) Rate(TrialOptions requested, IReadOnlyList<string> directories, bool toNul)
    {
        var effective = Effective(requested, toNul);
        var memory = effective.BufferCount * effective.MaxTransferSize;
        var factor = Curve(memory);
        var ratio = effective.Compression ? CompressionRatio[effective.Algorithm] : 1;
        var cpu = effective.Compression ? CompressMBps[effective.Algorithm] : double.PositiveInfinity;
        var write = double.PositiveInfinity;
        if (!toNul)
        {
            var files = requested.Files;
            var blockFactor = effective.BlockSize == 65536 ? 1 + BlockSizeGain : 1;
            foreach (var group in Enumerable.Range(0, files).GroupBy(i => directories[i % directories.Count]))
            {
                var onVolume = group.Count();
                var capacity = Math.Min(DirectoryWriteMBps[group.Key], onVolume * FileWriteMBps) * blockFactor;

                // Files get equal shares of the data: the volume with the most files per unit of capacity sets the pace.
                write = Math.Min(write, capacity * files / onVolume * ratio);
            }
        }

        var ceiling = Math.Min(ReadMBps, Math.Min(write, cpu));
        var limit = ceiling == ReadMBps ? "read" : ceiling == cpu ? "cpu" : "write";
        return (ceiling * factor, factor < 0.95 ? "buffers" : limit);
    }

    public double Curve(long memory)
    {
        var points = BufferCurve;
        if (memory <= points[0].Bytes)
        {
            return points[0].Factor;
        }

        for (var i = 1; i < points.Count; i++)
        {
            if (memory <= points[i].Bytes)
            {
                var (a, b) = (points[i - 1], points[i]);
                var t = (Math.Log(memory) - Math.Log(a.Bytes)) / (Math.Log(b.Bytes) - Math.Log(a.Bytes));
                return a.Factor + (t * (b.Factor - a.Factor));
            }
        }

        return points[^1].Factor;
    }

    /// <summary>
    /// The best rate any option set reaches within the memory cap (priced as the server counts it) and the file
    /// limit, found by trying them all: what the tuner is judged against.
    /// </summary>
    /// <param name="blockSizeConfirmable">
    /// False when no trial finishes within its window: a BLOCKSIZE is confirmed only by msdb's row of a finished
    /// backup, and an unconfirmed option is never recommended, so the best is judged among sets without it.
    /// </param>
    public double BestAchievable(IReadOnlyList<string> directories, long memoryBudget, int maxFiles, bool blockSizeConfirmable = true)
    {
        var cap = Math.Min(memoryBudget, MemoryLimitBytes);
        var best = 0.0;
        var compressions = new List<(bool?, string?, string?)> { (false, null, null) };
        compressions.AddRange(CompressMBps.Keys.Select(a => ((bool?)true, (string?)a, (string?)(CompressionLevels.Count > 0 && a == "ZSTD" ? CompressionLevels[0] : null))));
        for (var files = 1; files <= maxFiles; files *= 2)
        {
            foreach (var count in new[] { 7, 16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 1024 })
            {
                foreach (var size in new[] { 1 * MB, 2 * MB, 4 * MB })
                {
                    if (count * size * ReportedBufferRatio > cap)
                    {
                        continue;
                    }

                    foreach (var block in blockSizeConfirmable ? new int?[] { null, 65536 } : [null])
                    {
                        foreach (var (compression, algorithm, level) in compressions)
                        {
                            var options = new TrialOptions(files, count, size, block, compression, algorithm == "MS_XPRESS" ? null : algorithm, level);
                            best = Math.Max(best, Rate(options, directories, toNul: false).Rate);
                        }
                    }
                }
            }
        }

        return best;
    }
}
