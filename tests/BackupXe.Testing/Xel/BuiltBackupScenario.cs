using System.Globalization;
using BackupXe.Sources.XeEvents;

namespace BackupXe.Testing.Xel;

/// <summary>
/// BUILT, NOT CAPTURED: a buffer-starved full backup as XE would record it (message vocabulary of
/// docs/backup-internals.md#message-vocabulary), with thousands of BACKUPBUFFER/BACKUPIO waits so that a .xel of it spans many event buffers.
/// </summary>
internal static class BuiltBackupScenario
{
    /// <param name="nightsLater">The same backup this many nights after the first: other timestamps, the same shape.</param>
    public static IReadOnlyList<XeEvent> BufferStarved(int session = 61, string database = "SalesDB", int seed = 20240501, string? currentDatabase = null, int nightsLater = 0)
    {
        var random = new Random(seed);
        var start = new DateTime(2024, 5, 1, 1, 30, 0, 120, DateTimeKind.Utc).AddTicks(3_456).AddDays(nightsLater);
        var events = new List<XeEvent>();
        var t = start;
        void Step(double seconds, string message)
        {
            t = t.AddTicks((long)(seconds * TimeSpan.TicksPerSecond));
            events.Add(BuiltBackupCatalogue.Progress(t, session, database, message, currentDatabase: currentDatabase));
        }

        const long data = 2_147_418_112L;
        const long total = data + 65_536L;
        Step(0, "BACKUP DATABASE started");
        Step(0.002, "Opening the database with S lock");
        Step(0.010, "Opening the backup media set");
        Step(0.040, "The backup media set is open");
        Step(0.001, "Backup/Restore buffer configuration parameters");
        foreach (var line in new[] { "Memory limit: 16383 MB", "BufferCount:                7", "Sets Of Buffers:            3", "MaxTransferSize:            1024 KB", "Total buffer space:         21 MB", "Tabular data device count:  1", "Media Buffer count:         7", "Media Buffer size:          1024 KB" })
        {
            Step(0, line);
        }

        Step(0.030, "The media set is ready for backup");
        Step(0.001, "Effective options: Checksum=1, Compression=0, Encryption=0, BufferCount=7, MaxTransferSize=1024 KB");
        Step(0.002, "Writing a checkpoint");
        Step(0.180, "Checkpoint is complete (elapsed = 180 ms)");
        Step(0.020, "Calculating expected size of total data");
        Step(0.001, string.Create(CultureInfo.InvariantCulture, $"Estimated total size = {total} bytes (data size = {data} bytes, log size = 65536 bytes)"));
        Step(0.003, @"BackupStream(0): Writing leading metadata to the device \\backup01\sql\SalesDB_FULL.bak");
        Step(0.002, "Copying data files");
        Step(0.001, "Number of data file readers = 1");
        Step(0.001, @"Reading the data file D:\SQLData\SalesDB.mdf");

        var copyStart = t;
        // 5,600 short BACKUPBUFFER and 1,400 BACKUPIO waits over 12 s: the shape of test 1 in docs/backup-internals.md#buffer-count-against-waits.
        for (var i = 0; i < 7_000; i++)
        {
            var at = copyStart.AddTicks((long)(random.NextDouble() * 12 * TimeSpan.TicksPerSecond));
            var buffer = i % 5 != 0;
            var ms = 1 + random.Next(0, 3) + (buffer && random.Next(0, 40) == 0 ? random.Next(5, 20) : 0);
            events.Add(BuiltBackupCatalogue.Wait(at, session, buffer ? "BACKUPBUFFER" : "BACKUPIO", (ulong)ms, buffer ? (ulong)random.Next(0, 2) : 0));
        }

        // A Begin carries no duration: counted, never analysed.
        events.Add(BuiltBackupCatalogue.Wait(copyStart.AddMilliseconds(5), session, "BACKUPBUFFER", 0, begin: true));
        events.Add(BuiltBackupCatalogue.Wait(copyStart.AddSeconds(12), session, "ASYNC_IO_COMPLETION", 11_995));
        for (var percent = 10; percent <= 100; percent += 10)
        {
            events.Add(BuiltBackupCatalogue.Progress(copyStart.AddSeconds(0.12 * percent), session, database, string.Create(CultureInfo.InvariantCulture, $"{percent} percent ({total * percent / 100}/{total} bytes) processed"), currentDatabase: currentDatabase));
        }

        t = copyStart.AddSeconds(12);
        Step(0.001, @"Completed reading the data file D:\SQLData\SalesDB.mdf");
        Step(0.002, "Copying transaction log");
        Step(0.015, "Log copy complete");
        Step(0.001, "Writing the trailing metadata");
        Step(0.010, "Writing history records");
        Step(0.030, "BACKUP DATABASE finished");
        return events.OrderBy(e => e.Timestamp).ToList();
    }
}
