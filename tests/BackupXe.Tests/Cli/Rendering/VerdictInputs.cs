using System.Globalization;
using BackupXe.Core.Reporting;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;

namespace BackupXe.Tests.Cli.Rendering;

/// <summary>
/// BUILT, NOT CAPTURED: one input per verdict in a format BackupXe reads, holding the evidence its rule in
/// docs/diagnosis.md needs. The backups and the restore are XE XML event_data rows of backup_restore_progress_trace
/// (the backup and restore steps of docs/backup-internals.md#message-vocabulary) and sqlos.wait_info at End, as the
/// capture session returns them; the command that waited outside its backup is Ola Hallengren's job output. Waits are
/// spread evenly over the copy, so the inputs are the same on every run.
/// </summary>
internal static class VerdictInputs
{
    private const long GB = 1L << 30;

    // Fixture S03's buffer block (compressed, 3 files, BUFFERCOUNT 64, MAXTRANSFERSIZE 2 MB): 345 MB, 115 MB per device.
    private static readonly string[] PlentifulBuffers =
    [
        "BufferCount:                64", "Sets Of Buffers:            3", "MaxTransferSize:            2048 KB",
        "Min MaxTransferSize:        64 KB", "Total buffer space:         345 MB", "Filesystem i/o alignment:   512",
        "Media Buffer count:         128", "Media Buffer size:          2048 KB", "Encode Buffer count:        64",
    ];

    // Fixture S01's buffer block (compressed, 1 file, the defaults): 21 MB.
    private static readonly string[] DefaultCompressedBuffers =
    [
        "BufferCount:                7", "Sets Of Buffers:            3", "MaxTransferSize:            1024 KB",
        "Min MaxTransferSize:        64 KB", "Total buffer space:         21 MB", "Filesystem i/o alignment:   512",
        "Media Buffer count:         7", "Media Buffer size:          1024 KB", "Encode Buffer count:        7",
    ];

    /// <summary>The verdicts built here, each with the name of its input file.</summary>
    public static IReadOnlyDictionary<Bottleneck, string> Files { get; } = new Dictionary<Bottleneck, string>
    {
        [Bottleneck.BackupDevice] = "backup-device.xml",
        [Bottleneck.DataFileRead] = "data-file-read.xml",
        [Bottleneck.CompressionCpu] = "compression-cpu.xml",
        [Bottleneck.None] = "none.xml",
        [Bottleneck.OutsideTheOperation] = "outside-the-operation.txt",
        [Bottleneck.InMemoryLoad] = "in-memory-load.xml",
    };

    /// <summary>Writes the input of <paramref name="verdict"/> into <paramref name="folder"/>; returns its file name.</summary>
    public static string Write(Bottleneck verdict, string folder)
    {
        var name = Files[verdict];
        var text = verdict switch
        {
            Bottleneck.BackupDevice => BackupDevice(),
            Bottleneck.DataFileRead => DataFileRead(),
            Bottleneck.CompressionCpu => CompressionCpu(),
            Bottleneck.None => NoDominantWait(),
            Bottleneck.OutsideTheOperation => OutsideTheOperation(),
            Bottleneck.InMemoryLoad => InMemoryLoad(),
            _ => throw new ArgumentOutOfRangeException(nameof(verdict), verdict, "no input is built for this verdict"),
        };
        File.WriteAllText(Path.Combine(folder, name), text);
        return name;
    }

    /// <summary>
    /// 48 GB to three files on one share in 240 s with 345 MB of buffers: BACKUPIO holds each writer 68% of the copy
    /// (1,200 waits of 410 ms over 3 writers), BACKUPBUFFER 4% of each thread's (600 of 80 ms over 5 threads).
    /// </summary>
    private static string BackupDevice() => Backup(
        [@"\\backup01\sql\Sales_1.bak", @"\\backup01\sql\Sales_2.bak", @"\\backup01\sql\Sales_3.bak"],
        readers: 2, compression: true, PlentifulBuffers, bufferCount: 64, maxTransferKb: 2048, 48 * GB, copySeconds: 240,
        (trace, from, seconds) => trace
            .Waits(1_200, from, seconds, "BACKUPIO", 410)
            .Waits(600, from + 0.01, seconds, "BACKUPBUFFER", 80, signalMs: 2));

    /// <summary>
    /// 20 GB uncompressed to one file in 200 s: the writer waits on its device 10% of the copy (500 BACKUPIO of
    /// 40 ms) while both threads wait for buffers 40% of it in long waits (2,000 BACKUPBUFFER of 80 ms): the data
    /// file reader does not fill them.
    /// </summary>
    private static string DataFileRead() => Backup(
        [@"\\backup01\sql\Sales.bak"], readers: 1, compression: false, bufferBlock: [], bufferCount: 7, maxTransferKb: 1024, 20 * GB, copySeconds: 200,
        (trace, from, seconds) => trace
            .Waits(2_000, from, seconds, "BACKUPBUFFER", 80, signalMs: 1)
            .Waits(500, from + 0.01, seconds, "BACKUPIO", 40));

    /// <summary>
    /// The same backup compressed, its threads queueing for a CPU: 2,000 BACKUPBUFFER waits of 120 ms, 70 ms of each
    /// after the buffer was free (signal time, 140 s of the 460 s of waits with the reader's ASYNC_IO_COMPLETION).
    /// </summary>
    private static string CompressionCpu() => Backup(
        [@"\\backup01\sql\Sales.bak"], readers: 1, compression: true, DefaultCompressedBuffers, bufferCount: 7, maxTransferKb: 1024, 20 * GB, copySeconds: 200,
        (trace, from, seconds) => trace
            .Waits(2_000, from, seconds, "BACKUPBUFFER", 120, signalMs: 70)
            .Waits(500, from + 0.01, seconds, "BACKUPIO", 40));

    /// <summary>20 GB uncompressed in 200 s with BACKUPBUFFER at 7.5% of each thread's time (1,000 of 30 ms) and BACKUPIO at 16% of the writer's (800 of 40 ms).</summary>
    private static string NoDominantWait() => Backup(
        [@"\\backup01\sql\Sales.bak"], readers: 1, compression: false, bufferBlock: [], bufferCount: 7, maxTransferKb: 1024, 20 * GB, copySeconds: 200,
        (trace, from, seconds) => trace
            .Waits(1_000, from, seconds, "BACKUPBUFFER", 30, signalMs: 1)
            .Waits(800, from + 0.01, seconds, "BACKUPIO", 40));

    /// <summary>
    /// A nightly DatabaseBackup job whose BACKUP the engine did in 95.3 s (20 GB) while the command ran from 01:00:00 to
    /// 01:12:05: 629.7 s of it went outside the backup.
    /// </summary>
    private static string OutsideTheOperation() => new OlaJobOutput()
        .Command(
            new DateTime(2024, 5, 1, 1, 0, 0), TimeSpan.FromSeconds(725),
            @"BACKUP DATABASE [Sales] TO DISK = N'\\backup01\sql\PROD01\Sales\FULL\PROD01_Sales_FULL_20240501_010000.bak' WITH CHECKSUM, COMPRESSION",
            pages: 2_621_442, engineSeconds: 95.312)
        .ToString();

    /// <summary>
    /// An 8 GB restore of a database with memory-optimized tables: the copy takes 60 s, then its recovery waits 149.5 s
    /// for the In-Memory OLTP engine to load them (one XTP_RECOVERY wait, on the database startup's session, not the
    /// restore's), in the SQL Server 2016+ XE wording of docs/backup-internals.md#restore-steps.
    /// </summary>
    private static string InMemoryLoad()
    {
        const string database = "Hk";
        const long total = 8 * GB;
        var trace = new XeTrace("Restore", database)
            .Step(0, "RESTORE DATABASE started")
            .Step(0.004, "Opening the backup set")
            .Step(0.2, "Processing the leading metadata")
            .Step(0.01, "Planning begins")
            .Step(0.001, "Effective options: Checksum=0, Compression=0, Encryption=0, BufferCount=6, MaxTransferSize=1024 KB")
            .Step(0.01, "Planning is complete")
            .Step(0.001, "Beginning OFFLINE restore")
            .Step(0.03, $"Attached database {database} as DBID=7")
            .Step(0.001, "Preparing containers")
            .Step(0.5, "Containers are ready")
            .Step(0.001, $"Transferring data to {database}");
        trace.Percents(trace.Now, 60, total);
        trace.Now += 60;
        trace.Step(0.1, $"Data transfer complete on {database}")
            .Step(0.01, "Redo begins")
            .Step(2.5, "Redo is complete")
            .Step(0.01, "Recovery begins");
        trace.Wait(trace.Now + 150, "XTP_RECOVERY", 149_500, sessionId: 12);
        trace.Now += 150.4;
        return trace.Step(0, "Recovery is complete")
            .Step(0.3, "Writing history records")
            .Step(0.02, "RESTORE DATABASE finished")
            .ToXml();
    }

    /// <summary>A full backup of [Sales] in the steps of docs/backup-internals.md#backup-steps; <paramref name="waits"/> adds the copy's waits.</summary>
    private static string Backup(
        string[] devices, int readers, bool compression, string[] bufferBlock, int bufferCount, int maxTransferKb, long dataBytes, double copySeconds,
        Func<XeTrace, double, double, XeTrace> waits)
    {
        var trace = new XeTrace("Backup", "Sales")
            .Step(0, "BACKUP DATABASE started")
            .Step(0.002, "Opening the database with S lock")
            .Step(0.001, "Acquiring bulk-op lock on the database")
            .Step(0.001, "Synchronizing with other operations on the database is complete")
            .Step(0.010, "Opening the backup media set")
            .Step(0.040, "The backup media set is open");
        if (bufferBlock.Length > 0)
        {
            trace.Step(0.001, "Backup/Restore buffer configuration parameters");
            foreach (var line in bufferBlock)
            {
                trace.Step(0, line);
            }
        }

        var total = dataBytes + 65_536;
        trace.Step(0.001, "Preparing the media set for writing")
            .Step(0.030, "The media set is ready for backup")
            .Step(0.001, string.Create(CultureInfo.InvariantCulture, $"Effective options: Checksum=1, Compression={(compression ? 1 : 0)}, Encryption=0, BufferCount={bufferCount}, MaxTransferSize={maxTransferKb} KB"))
            .Step(0.002, "Writing a checkpoint")
            .Step(0.180, "Checkpoint is complete (elapsed = 180 ms)")
            .Step(0.020, "Calculating expected size of total data")
            .Step(0.001, string.Create(CultureInfo.InvariantCulture, $"Estimated total size = {total} bytes (data size = {dataBytes} bytes, log size = 65536 bytes)"))
            .Step(0.001, "Work estimation is complete");
        for (var i = 0; i < devices.Length; i++)
        {
            trace.Step(0.003, string.Create(CultureInfo.InvariantCulture, $"BackupStream({i}): Writing leading metadata to the device {devices[i]}"));
        }

        string[] files = [.. new[] { @"D:\SQLData\Sales.mdf", @"E:\SQLData\Sales_2.ndf" }.Take(readers)];
        trace.Step(0.002, "Copying data files")
            .Step(0.001, string.Create(CultureInfo.InvariantCulture, $"Number of data file readers = {readers}"));
        foreach (var file in files)
        {
            trace.Step(0.001, $"Reading the data file {file}");
        }

        var copyStart = trace.Now;
        trace.Percents(copyStart, copySeconds, total);
        waits(trace, copyStart, copySeconds);

        // The coordinating thread waits for the data-file reads for the whole copy (docs/backup-internals.md#wait-types).
        trace.Wait(copyStart + copySeconds, "ASYNC_IO_COMPLETION", (long)(copySeconds * 1000) - 5);
        trace.Now = copyStart + copySeconds;
        foreach (var file in files)
        {
            trace.Step(0.001, $"Completed reading the data file {file}");
        }

        return trace.Step(0.002, "Copying transaction log")
            .Step(0.015, "Log copy complete")
            .Step(0.001, "Writing the trailing metadata")
            .Step(0.020, "Writing the end of backup set")
            .Step(0.010, "Writing history records")
            .Step(0.030, "BACKUP DATABASE finished")
            .ToXml();
    }

    /// <summary>One operation's events on session 53, timed in seconds from 01:00 UTC, written in time order.</summary>
    private sealed class XeTrace(string operation, string database)
    {
        private static readonly DateTime Start = new(2024, 5, 1, 1, 0, 0, DateTimeKind.Utc);
        private readonly List<(double At, string Xml)> _events = [];

        /// <summary>Seconds since the start: where the next step lands.</summary>
        public double Now { get; set; }

        public XeTrace Step(double after, string message)
        {
            Now += after;
            _events.Add((Now, XeXmlEvents.Progress(Stamp(Now), message, operation, database: database)));
            return this;
        }

        /// <summary>"10 percent (...) processed" to "100 percent", evenly over the copy.</summary>
        public XeTrace Percents(double from, double seconds, long total)
        {
            for (var percent = 10; percent <= 100; percent += 10)
            {
                var at = from + (seconds * percent / 100);
                _events.Add((at, XeXmlEvents.Progress(Stamp(at), string.Create(CultureInfo.InvariantCulture, $"{percent} percent ({total * percent / 100}/{total} bytes) processed"), operation, database: database)));
            }

            return this;
        }

        /// <summary><paramref name="count"/> waits ending evenly spaced over <paramref name="seconds"/> from <paramref name="from"/>.</summary>
        public XeTrace Waits(int count, double from, double seconds, string waitType, long durationMs, long signalMs = 0)
        {
            for (var i = 1; i <= count; i++)
            {
                Wait(from + (seconds * i / (count + 1)), waitType, durationMs, signalMs);
            }

            return this;
        }

        public XeTrace Wait(double endsAt, string waitType, long durationMs, long signalMs = 0, int sessionId = 53)
        {
            _events.Add((endsAt, XeXmlEvents.Wait(Stamp(endsAt), waitType, "End", durationMs, signalMs, sessionId: sessionId)));
            return this;
        }

        public string ToXml() =>
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<events>\n" + string.Join("\n", _events.OrderBy(e => e.At).Select(e => e.Xml)) + "\n</events>\n";

        private static string Stamp(double seconds) =>
            Start.AddTicks((long)Math.Round(seconds * TimeSpan.TicksPerSecond)).ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'", CultureInfo.InvariantCulture);
    }
}
