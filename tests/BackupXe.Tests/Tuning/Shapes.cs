using System.Globalization;
using BackupXe.Tests.Support;

namespace BackupXe.Tests.Tuning;

/// <summary>
/// The published shapes the simulated server reproduces (docs/tuning.md, "The simulated server"): each names the
/// result it is calibrated on. Figures are MB of database per second.
/// </summary>
internal static class Shapes
{
    private const long MB = ServerModel.MB;
    private const long GB = 1024 * MB;

    public static readonly string[] OneDirectory = [@"X:\Backup"];
    public static readonly string[] TwoDirectories = [@"X:\Backup", @"Y:\Backup"];

    public static IReadOnlyList<string> Names => ["buffer-count-table", "s08-level-off", "s08-buffer-starved", "striping", "compression-cpu", "read-bound"];

    public static (ServerModel Model, IReadOnlyList<string> Directories) Get(string name) => name switch
    {
        "buffer-count-table" => (BufferCountTable(), OneDirectory),
        "s08-level-off" => (FromS08("S08_feasel_perftest_BAC_57.89GB.csv", 57.89), OneDirectory),
        "s08-buffer-starved" => (FromS08("S08_feasel_perftest_SO2013_50GB.csv", 50), OneDirectory),
        "striping" => (Striping(), TwoDirectories),
        "compression-cpu" => (CompressionCpu(), OneDirectory),
        "read-bound" => (ReadBound(), OneDirectory),
        _ => throw new ArgumentOutOfRangeException(nameof(name), name, null),
    };

    /// <summary>
    /// The buffer-count table (docs/tuning.md): 30 GB compressed to 7.8 GB onto one RAID-1 disk; 7 x 1 MB took
    /// 122.5 s, 16 x 4 MB 105.2 s, 32 x 4 MB 99.5 s, 128 and 256 x 4 MB 95.9 s; two files on the same disk gained nothing.
    /// </summary>
    public static ServerModel BufferCountTable()
    {
        const double plateau = 30.0 * 1024 / 95.9;
        const double ratio = 30 / 7.8;
        return new ServerModel
        {
            Name = "buffer-count-table",
            DatabaseBytes = 30 * GB,
            ReadMBps = 1000,
            DirectoryWriteMBps = new Dictionary<string, double> { [OneDirectory[0]] = plateau / ratio },
            CompressMBps = new Dictionary<string, double> { ["MS_XPRESS"] = 800 },
            CompressionRatio = new Dictionary<string, double> { ["MS_XPRESS"] = ratio },
            CompressionDefault = true,
            BufferCurve = TableCurve,
            BlockSizeGain = 0.055,
            Noise = S08Noise(),
        };
    }

    /// <summary>Share of the plateau against buffer memory, from the buffer-count table's times.</summary>
    public static IReadOnlyList<(long Bytes, double Factor)> TableCurve =>
    [
        (7 * MB, 95.9 / 122.5),
        (64 * MB, 95.9 / 105.2),
        (128 * MB, 95.9 / 99.5),
        (512 * MB, 95.9 / 95.9),
        (1024 * MB, 95.9 / 95.9),
    ];

    /// <summary>
    /// One database of the S08 grid (compressed, COPY_ONLY; columns BlockSize, BufferCount, MaxTransferSize, FileCount,
    /// Duration): the median duration at each buffer memory gives the curve; the fastest median is the plateau, set by
    /// the write side. The grid shows no block size effect, so none is modelled.
    /// </summary>
    public static ServerModel FromS08(string file, double gigabytes)
    {
        var buckets = S08Rows(file)
            .GroupBy(r => r.BufferCount * r.MaxTransferSize)
            .Select(g => (Bytes: g.Key, Seconds: Median(g.Select(r => r.Seconds))))
            .OrderBy(b => b.Bytes)
            .ToList();
        var fastest = buckets.Min(b => b.Seconds);
        var plateau = gigabytes * 1024 / fastest;
        return new ServerModel
        {
            Name = file,
            DatabaseBytes = (long)(gigabytes * GB),
            ReadMBps = plateau * 1.6,
            DirectoryWriteMBps = new Dictionary<string, double> { [OneDirectory[0]] = plateau / 3 },
            CompressionDefault = true,
            BufferCurve = [.. buckets.Select(b => (b.Bytes, fastest / b.Seconds))],
            BlockSizeGain = 0,
            Noise = S08Noise(),
        };
    }

    /// <summary>
    /// Run-to-run noise as the S08 grid shows it: within each (database, buffer memory) cell of three runs or more, the
    /// relative standard deviation of the durations; the median over the cells.
    /// </summary>
    public static double S08Noise()
    {
        var files = new[] { "BAC_136GB", "BAC_31.73GB", "BAC_57.89GB", "BAC_89.24GB", "SO2010_10GB", "SO2013_50GB" };
        var spreads = files
            .SelectMany(f => S08Rows($"S08_feasel_perftest_{f}.csv").GroupBy(r => r.BufferCount * r.MaxTransferSize))
            .Where(g => g.Count() >= 3)
            .Select(g =>
            {
                var mean = g.Average(r => r.Seconds);
                return Math.Sqrt(g.Sum(r => (r.Seconds - mean) * (r.Seconds - mean)) / g.Count()) / mean;
            })
            .Order()
            .ToList();
        return spreads[spreads.Count / 2];
    }

    /// <summary>
    /// Striping on a 96-core server (docs/backup-internals.md#striping-on-a-96-core-server): one file with the default
    /// buffers about 1.4 GB/s, the top wait BACKUPBUFFER; more files on two arrays and more buffers roughly doubled it.
    /// </summary>
    public static ServerModel Striping() => new()
    {
        Name = "striping",
        DatabaseBytes = 1024 * GB,
        ReadMBps = 4000,
        DirectoryWriteMBps = new Dictionary<string, double> { [TwoDirectories[0]] = 1450.0 / 3, [TwoDirectories[1]] = 1450.0 / 3 },
        FileWriteMBps = 1750.0 / 3,
        CompressMBps = new Dictionary<string, double> { ["MS_XPRESS"] = 5000 },
        CompressionDefault = true,
        BufferCurve = TableCurve,
        BlockSizeGain = 0.055,
        Noise = S08Noise(),
    };

    /// <summary>
    /// Compression CPU and the read ceiling (docs/backup-internals.md#compression-cpu-and-the-read-ceiling): to NUL with
    /// compression 765 MB/s, CPUs pegged; without compression 1.42 GB/s, the source's read ceiling. A fast target.
    /// </summary>
    public static ServerModel CompressionCpu() => new()
    {
        Name = "compression-cpu",
        DatabaseBytes = 400 * GB,
        ReadMBps = 1420,
        DirectoryWriteMBps = new Dictionary<string, double> { [OneDirectory[0]] = 1500 },
        FileWriteMBps = 600,
        CompressMBps = new Dictionary<string, double> { ["MS_XPRESS"] = 765 },
        CompressionRatio = new Dictionary<string, double> { ["MS_XPRESS"] = 2.5 },
        CompressionDefault = true,
        BufferCurve = TableCurve,
        BlockSizeGain = 0.055,
        Noise = S08Noise(),
    };

    /// <summary>The URL prefixes of the block-blob shape: two containers of one storage account.</summary>
    public static readonly string[] BlobContainers = ["https://backupxe.blob.core.windows.net/trials/sql01", "https://backupxe.blob.core.windows.net/trials2"];

    /// <summary>
    /// Backups to Azure block blobs (docs/tuning.md, "Backups to URL"): each blob takes about 60 MB/s, the target
    /// throughput Microsoft's Backup to URL cheat sheet gives per blob, and the account 2,000 MB/s in all; a 300 GB
    /// database, so that a trial at the default 1 MB MAXTRANSFERSIZE needs 7 blobs to hold it (50,000 blocks of 1 MB
    /// each), and a source that reads 1,500 MB/s.
    /// </summary>
    public static ServerModel UrlBlockBlob() => new()
    {
        Name = "url-block-blob",
        DatabaseBytes = 300 * GB,
        ReadMBps = 1500,
        DirectoryWriteMBps = BlobContainers.ToDictionary(c => c, _ => 1000.0),
        FileWriteMBps = 60,
        CompressMBps = new Dictionary<string, double> { ["MS_XPRESS"] = 900 },
        CompressionRatio = new Dictionary<string, double> { ["MS_XPRESS"] = 3 },
        CompressionDefault = false,
        BufferCurve = TableCurve,
        BlockSizeGain = 0.055,
        Noise = S08Noise(),
    };

    /// <summary>
    /// A device-bound database: one slow target, buffers that gain nothing at any memory (the
    /// curve is flat), more files on the one volume gain nothing, compression writes less and gains. Noise as S08's.
    /// </summary>
    public static ServerModel DeviceBound() => new()
    {
        Name = "device-bound",
        DatabaseBytes = 200 * GB,
        ReadMBps = 1200,
        DirectoryWriteMBps = new Dictionary<string, double> { [OneDirectory[0]] = 180 },
        CompressMBps = new Dictionary<string, double> { ["MS_XPRESS"] = 900 },
        CompressionRatio = new Dictionary<string, double> { ["MS_XPRESS"] = 2.5 },
        CompressionDefault = false,
        BufferCurve = [(1 * MB, 1.0), (64 * 1024 * MB, 1.0)],
        BlockSizeGain = 0,
        Noise = S08Noise(),
    };

    /// <summary>A slow source and a fast target: the read ceiling is reached once the buffers are not starved.</summary>
    public static ServerModel ReadBound() => new()
    {
        Name = "read-bound",
        DatabaseBytes = 200 * GB,
        ReadMBps = 300,
        DirectoryWriteMBps = new Dictionary<string, double> { [OneDirectory[0]] = 2000 },
        CompressMBps = new Dictionary<string, double> { ["MS_XPRESS"] = 2000 },
        CompressionDefault = false,
        BufferCurve = TableCurve,
        BlockSizeGain = 0.055,
        Noise = S08Noise(),
    };

    internal static List<(int BlockSize, int BufferCount, long MaxTransferSize, int Files, double Seconds)> S08Rows(string file) =>
        File.ReadLines(RealWorld.Path(file))
            .Where(line => line.Length > 0)
            .Select(line => line.Split(','))
            .Select(cells => (
                int.Parse(cells[0], CultureInfo.InvariantCulture),
                int.Parse(cells[1], CultureInfo.InvariantCulture),
                long.Parse(cells[2], CultureInfo.InvariantCulture),
                int.Parse(cells[3], CultureInfo.InvariantCulture),
                double.Parse(cells[4], CultureInfo.InvariantCulture)))
            .ToList();

    private static double Median(IEnumerable<double> values)
    {
        var sorted = values.Order().ToList();
        return sorted.Count % 2 == 1 ? sorted[sorted.Count / 2] : (sorted[(sorted.Count / 2) - 1] + sorted[sorted.Count / 2]) / 2;
    }
}
