using System.Globalization;

namespace BackupXe.Benchmarks.Synthetic;

/// <summary>
/// Realistic operations in the message vocabulary of docs/backup-internals.md#message-vocabulary, with numbers modelled on the
/// published tests of docs/backup-internals.md#published-test-results. Deterministic for a given seed, so samples regenerate byte for byte.
/// </summary>
public static class Scenarios
{
    private const long Megabyte = 1_048_576;

    /// <summary>
    /// A 2 GB full backup with the default 7 x 1 MB buffers to one device: thousands of short BACKUPBUFFER waits
    /// and modest BACKUPIO, the shape of test 1 in docs/backup-internals.md#buffer-count-against-waits.
    /// </summary>
    public static IEnumerable<TraceRecord> BufferStarvedBackup(DateTime start, int spid, string database, string device, int seed, int waitScale = 1)
    {
        var random = new Random(seed);
        var t = start;
        var dataBytes = 2_147_418_112L;
        var logBytes = 65_536L;
        var total = dataBytes + logBytes;
        var mdf = $@"D:\SQLData\{database}.mdf";

        IEnumerable<TraceRecord> Step(double seconds, string message, bool prefixed = true)
        {
            t = t.AddMilliseconds(seconds * 1000);
            yield return new ProgressRecord(t, spid, false, database, message, prefixed);
        }

        foreach (var r in Step(0, "BACKUP DATABASE started")) yield return r;
        foreach (var r in Step(0.002, "Opening the database with S lock")) yield return r;
        foreach (var r in Step(0.001, "Acquiring bulk-op lock on the database")) yield return r;
        foreach (var r in Step(0.001, "Synchronizing with other operations on the database is complete")) yield return r;
        foreach (var r in Step(0.010, "Opening the backup media set")) yield return r;
        foreach (var r in Step(0.040, "The backup media set is open")) yield return r;
        foreach (var r in Step(0.001, "Backup/Restore buffer configuration parameters", prefixed: false)) yield return r;
        foreach (var line in new[]
                 {
                     "Memory limit: 16383 MB", "BufferCount:                7", "Sets Of Buffers:            3",
                     "MaxTransferSize:            1024 KB", "Min MaxTransferSize:        64 KB", "Total buffer space:         21 MB",
                     "Tabular data device count:  1", "Fulltext data device count: 0", "Filestream device count:    0",
                     "TXF device count:           0", "Filesystem i/o alignment:   512", "Media Buffer count:         7",
                     "Media Buffer size:          1024 KB",
                 })
        {
            // The buffer block lines carry no database prefix in the ERRORLOG (docs/backup-internals.md#buffer-configuration-block).
            foreach (var r in Step(0, line, prefixed: false)) yield return r;
        }

        foreach (var r in Step(0.001, "Preparing the media set for writing")) yield return r;
        foreach (var r in Step(0.030, "The media set is ready for backup")) yield return r;
        foreach (var r in Step(0.001, "Effective options: Checksum=1, Compression=0, Encryption=0, BufferCount=7, MaxTransferSize=1024 KB")) yield return r;
        foreach (var r in Step(0.001, "Clearing differential bitmaps")) yield return r;
        foreach (var r in Step(0.002, "Writing a checkpoint")) yield return r;
        foreach (var r in Step(0.180, "Checkpoint is complete (elapsed = 180 ms)")) yield return r;
        foreach (var r in Step(0.001, "Start LSN: 1204:5120:37, SERomLSN: 1204:4880:1.")) yield return r;
        foreach (var r in Step(0.001, "Scanning allocation bitmaps")) yield return r;
        foreach (var r in Step(0.020, "Calculating expected size of total data")) yield return r;
        foreach (var r in Step(0.001, "FID=1, ExpectedExtents=32767, IsDifferentialMapAccurate=0")) yield return r;
        foreach (var r in Step(0.001, string.Create(CultureInfo.InvariantCulture, $"TotalSize={dataBytes} bytes"))) yield return r;
        foreach (var r in Step(0.001, string.Create(CultureInfo.InvariantCulture, $"Estimated total size = {total} bytes (data size = {dataBytes} bytes, log size = {logBytes} bytes)"))) yield return r;
        foreach (var r in Step(0.001, "Work estimation is complete")) yield return r;
        foreach (var r in Step(0.001, "Last LSN: 1204:5184:1")) yield return r;
        foreach (var r in Step(0.001, "Writing the leading metadata")) yield return r;
        foreach (var r in Step(0.003, $"BackupStream(0): Writing leading metadata to the device {device}")) yield return r;
        foreach (var r in Step(0.002, "Copying data files")) yield return r;
        foreach (var r in Step(0.001, "Number of data file readers = 1")) yield return r;
        foreach (var r in Step(0.001, $"Reading the data file {mdf}")) yield return r;

        // 12 s of copying at ~170 MB/s; waits interleave with the percent lines. One writer and one reader
        // both queue for the 7 buffers: many BACKUPBUFFER waits of about 2 ms.
        const double copySeconds = 12.0;
        var copyStart = t;
        var bufferWaits = 5_600 * waitScale;
        var ioWaits = 1_400 * waitScale;
        var waits = new List<WaitRecord>(bufferWaits + ioWaits);
        for (var i = 0; i < bufferWaits; i++)
        {
            var ms = 1 + random.Next(0, 3) + (random.Next(0, 40) == 0 ? random.Next(5, 20) : 0);
            waits.Add(new WaitRecord(copyStart.AddMilliseconds(random.NextDouble() * copySeconds * 1000), spid, "BACKUPBUFFER", 187, ms, random.Next(0, 2) == 0 ? 0 : 1));
        }

        for (var i = 0; i < ioWaits; i++)
        {
            waits.Add(new WaitRecord(copyStart.AddMilliseconds(random.NextDouble() * copySeconds * 1000), spid, "BACKUPIO", 188, 1 + random.Next(0, 4), 0));
        }

        waits.Add(new WaitRecord(copyStart.AddMilliseconds(copySeconds * 1000), spid, "ASYNC_IO_COMPLETION", 98, (long)(copySeconds * 1000) - 5, 0));
        waits.Sort((a, b) => a.At.CompareTo(b.At));

        var next = 0;
        for (var percent = 1; percent <= 100; percent++)
        {
            var at = copyStart.AddMilliseconds(copySeconds * 1000 * percent / 100.0);
            while (next < waits.Count && waits[next].At <= at)
            {
                yield return waits[next++];
            }

            var bytes = percent == 100 ? total : total * percent / 100 / Megabyte * Megabyte;
            yield return new ProgressRecord(at, spid, false, database, string.Create(CultureInfo.InvariantCulture, $"{percent} percent ({bytes}/{total} bytes) processed"));
        }

        while (next < waits.Count)
        {
            yield return waits[next++];
        }

        t = copyStart.AddMilliseconds(copySeconds * 1000);
        foreach (var r in Step(0.001, $"Completed reading the data file {mdf}")) yield return r;
        foreach (var r in Step(0.002, "BackupStream(0): Padding MSDA with 65536 bytes")) yield return r;
        foreach (var r in Step(0.001, "BackupStream(0): Total MSDA size = 32768 extents")) yield return r;
        foreach (var r in Step(0.001, string.Create(CultureInfo.InvariantCulture, $"InitialExpectedSize={total} bytes, FinalSize={total} bytes, ExcessMode=0"))) yield return r;
        foreach (var r in Step(0.002, "Copying transaction log")) yield return r;
        foreach (var r in Step(0.015, "Log copy complete")) yield return r;
        foreach (var r in Step(0.001, "Writing the trailing metadata")) yield return r;
        foreach (var r in Step(0.020, "Writing the end of backup set")) yield return r;
        foreach (var r in Step(0.010, "Writing history records")) yield return r;
        foreach (var r in Step(0.030, "BACKUP DATABASE finished")) yield return r;
    }

    /// <summary>
    /// A restore of a 20 GB database whose 48 GB log must be zeroed: the data transfer waits for the log zeroing,
    /// as trace flag 3004 writes it (SQL Server 2012-2014 wording).
    /// </summary>
    public static IEnumerable<TraceRecord> LogZeroingRestore(DateTime start, int spid, string database, string device)
    {
        var t = start;
        var ldf = $@"F:\SQLLogs\{database}_log.ldf";
        const long logPages = 6_291_456; // 48 GB of 8 KB pages

        IEnumerable<TraceRecord> Line(double seconds, string message)
        {
            t = t.AddMilliseconds(seconds * 1000);
            yield return new ProgressRecord(t, spid, true, database, message, Prefixed: false);
        }

        foreach (var r in Line(0, $"RestoreDatabase: Database {database}")) yield return r;
        foreach (var r in Line(0.004, "Opening backup set")) yield return r;
        foreach (var r in Line(0.210, "Restore: Configuration section loaded")) yield return r;
        foreach (var r in Line(0.001, "Restore: Backup set is open")) yield return r;
        foreach (var r in Line(0.001, "Restore: Planning begins")) yield return r;
        foreach (var r in Line(0.012, "Restore: Planning complete")) yield return r;
        foreach (var r in Line(0.001, $"Restore: BeginRestore (offline) on {database}")) yield return r;
        foreach (var r in Line(0.030, $"Restore: Attached database {database} as DBID=9")) yield return r;
        foreach (var r in Line(0.001, "Restore: PreparingContainers")) yield return r;
        foreach (var r in Line(0.002, string.Create(CultureInfo.InvariantCulture, $"Zeroing {ldf} from page 1 to {logPages} (0x2000 to 0x{logPages * 8192:x})"))) yield return r;
        foreach (var r in Line(0.400, "Restore: Containers are ready")) yield return r;
        foreach (var r in Line(0.001, "Restore: Restoring backup set")) yield return r;
        foreach (var r in Line(0.001, $"Restore: Transferring data to {database}")) yield return r;
        foreach (var r in Line(212.480, $"Restore: Waiting for log zero on {database}")) yield return r;
        foreach (var r in Line(1105.113, $"Zeroing completed on {ldf}")) yield return r;
        foreach (var r in Line(0.002, "Restore: LogZero complete")) yield return r;
        foreach (var r in Line(0.180, $"Restore: Data transfer complete on {database}")) yield return r;
        foreach (var r in Line(0.002, "Restore: Backup set restored")) yield return r;
        foreach (var r in Line(0.010, $"Restore-Redo begins on database {database}")) yield return r;
        foreach (var r in Line(3.350, $"Rollforward complete on database {database}")) yield return r;
        foreach (var r in Line(0.020, "Restore: Done with fixups")) yield return r;
        foreach (var r in Line(0.001, "Restore: Transitioning database to ONLINE")) yield return r;
        foreach (var r in Line(0.310, "Restore: Database is restarted")) yield return r;
        foreach (var r in Line(0.001, "Restore: Writing history records")) yield return r;
        t = t.AddMilliseconds(40);
        yield return new ServerLineRecord(t, "Backup", $"Database was restored: Database: {database}, creation date(time): 2023/02/14(09:12:44), first LSN: 88123:412:1, last LSN: 88123:460:1, number of dump devices: 1, device information: (FILE=1, TYPE=DISK: {{'{device}'}}). Informational message. No user action required.");
        t = t.AddMilliseconds(10);
        var seconds = (t - start).TotalSeconds;
        const long pages = 2_621_442;
        yield return new ServerLineRecord(t, "Backup", string.Create(CultureInfo.InvariantCulture, $"RESTORE DATABASE successfully processed {pages} pages in {seconds:0.000} seconds ({pages * 8192.0 / Megabyte / seconds:0.000} MB/sec)."));
        foreach (var r in Line(0.002, "Restore: Done")) yield return r;
    }
}
