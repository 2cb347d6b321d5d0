using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Tests.Support;

/// <summary>OperationReports for diagnosis tests, built from the published numbers of docs/backup-internals.md#published-test-results.</summary>
internal static class DiagnosisOperations
{
    public const long MB = 1024 * 1024;
    public const long GB = 1024 * MB;

    /// <summary>A 120 s full backup of [Sales] to one file, compression off, nothing else known.</summary>
    public static OperationReport Backup(params WaitReport[] waits) => new()
    {
        Kind = OperationKind.Backup,
        Scope = OperationScope.Database,
        Database = "Sales",
        Status = OperationStatus.Completed,
        DurationSeconds = 120,
        EstimatedBytes = 30 * GB,
        Devices = [new DeviceReport(@"D:\b\Sales.bak")],
        DataFileReaders = 1,
        Options = new OptionsReport(Checksum: false, Compression: false, Encryption: false),
        Waits = waits,
    };

    /// <summary>A 171 s restore of [Sales] from one file with the defaults of docs/backup-internals.md#a-10-gb-database-on-a-san (6 x 1 MB).</summary>
    public static OperationReport Restore(params WaitReport[] waits) => new()
    {
        Kind = OperationKind.Restore,
        Scope = OperationScope.Database,
        Database = "Sales",
        Status = OperationStatus.Completed,
        DurationSeconds = 171,
        Devices = [new DeviceReport(@"D:\b\Sales.bak")],
        BufferConfig = Buffers(6, 1024),
        Waits = waits,
    };

    public static BufferConfigReport Buffers(int count, long maxTransferSizeKb, long? memoryLimitMb = null) => new()
    {
        BufferCount = count,
        MaxTransferSizeBytes = maxTransferSizeKb * 1024,
        MemoryLimitBytes = memoryLimitMb * MB,
    };

    public static WaitReport Wait(string type, long count, long totalMs, long signalMs = 0) =>
        new(type, count, totalMs, MaxMs: totalMs, SignalMs: signalMs);

    /// <summary>
    /// A row of docs/backup-internals.md#buffer-count-against-waits: 8 cores, 30 GB compressed to 7.8 GB, one RAID-1 destination.
    /// Columns: files, buffers, MTS KB, time s, BACKUPBUFFER ms, BACKUPIO ms, BACKUPBUFFER n, BACKUPIO n.
    /// </summary>
    public static OperationReport PublishedBufferTest(int test)
    {
        (int files, int buffers, long mtsKb, double seconds, long bufferMs, long ioMs, long bufferN, long ioN) = test switch
        {
            1 => (1, 7, 1024, 122.5, 159471, 62587, 81616, 22815),
            2 => (1, 16, 4096, 105.2, 90963, 69091, 14513, 7982),
            3 => (1, 32, 4096, 99.5, 75236, 88634, 12298, 8679),
            4 => (1, 128, 4096, 95.9, 70173, 63435, 8292, 4679),
            5 => (1, 256, 4096, 95.9, 50988, 48942, 1538, 1135),
            6 => (2, 128, 4096, 96, 152323, 63800, 12416, 4925),
            7 => (2, 256, 4096, 96.4, 109565, 46953, 3067, 1195),
            _ => throw new ArgumentOutOfRangeException(nameof(test), test, "'Buffer count against waits' has tests 1-7"),
        };
        return Backup() with
        {
            Database = "tpch",
            DurationSeconds = seconds,
            EstimatedBytes = 30 * GB,
            Devices = files == 1
                ? [new DeviceReport(@"E:\backup\tpch.bak")]
                : Enumerable.Range(1, files).Select(i => new DeviceReport($@"E:\backup\tpch_{i}.bak")).ToList(),
            BufferConfig = Buffers(buffers, mtsKb),
            Options = new OptionsReport(Checksum: null, Compression: true, Encryption: null),
            Waits = [Wait("BACKUPBUFFER", bufferN, bufferMs), Wait("BACKUPIO", ioN, ioMs)],
        };
    }
}
