using BackupXe.Core.Tuning;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;

namespace BackupXe.Tests.SqlServer.Drill;

/// <summary>
/// A server for restore-drill on the TDS double: <see cref="ScriptedSqlServer"/>'s msdb chain and IFI state, plus what a
/// drill asks (docs/server-conformance.md, "Statements sent"): the server's identity and default folders, msdb's media of
/// each set, CREATE DATABASE, DB_ID, sys.dm_os_volume_stats, RESTORE HEADERONLY / FILELISTONLY / VERIFYONLY, the
/// RESTOREs, DBCC CHECKDB and DROP DATABASE, with the documented errors for a missing device (3201), too little space
/// (3257) and a refused permission (262), each followed by 3013 as the server ends a failed RESTORE. Each RESTORE and
/// CHECKDB moves the test's fake clock by the time set for it, so the drill's phases are measured exactly.
/// </summary>
internal sealed class DrillOverTds
{
    public const string Full = @"\\backup01\sql\SalesDB_FULL.bak";
    public const string Differential = @"\\backup01\sql\SalesDB_DIFF.bak";
    public static readonly DateTime Night = new(2026, 11, 28, 1, 0, 0);

    private readonly object _gate = new();
    private readonly FakeClock _clock;

    public DrillOverTds(FakeClock clock, string machine)
    {
        _clock = clock;
        Machine = machine;
        Sql = new ScriptedSqlServer { InstantFileInitialization = "N", MajorVersion = 16 };
        Sql.BackupSets.AddRange(
        [
            new("SalesDB", "D", false, "41000000016000037", "41000000017600001", "41000000000000001", "41000000016000037", "FULL", Night, Night.AddSeconds(800), 100L << 30, 40L << 30),
            new("SalesDB", "I", false, "41000000020000037", "41000000020800001", "41000000016000037", "41000000020000037", "FULL", Night.AddHours(6), Night.AddHours(6).AddSeconds(80), 10L << 30, 4L << 30),
            new("SalesDB", "L", false, "41000000016800001", "41000000021600001", "41000000016000037", "41000000021600001", "FULL", Night.AddHours(7), Night.AddHours(7).AddMinutes(1), 1L << 30),
            new("SalesDB", "L", false, "41000000021600001", "41000000022400001", "41000000016000037", "41000000022400001", "FULL", Night.AddHours(8), Night.AddHours(8).AddMinutes(1), 1L << 30),
            new("SalesDB", "L", false, "41000000022400001", "41000000023200001", "41000000016000037", "41000000023200001", "FULL", Night.AddHours(9), Night.AddHours(9).AddMinutes(1), 1L << 30),
        ]);
        // The chain's media: the full and the differential on files of their own, the three logs appended to one media set (positions 1 to 3).
        Media.AddRange(
        [
            ("D", "41000000016000037", "41000000017600001", 1, Full),
            ("I", "41000000020000037", "41000000020800001", 1, Differential),
            ("L", "41000000016800001", "41000000021600001", 1, Log),
            ("L", "41000000021600001", "41000000022400001", 2, Log),
            ("L", "41000000022400001", "41000000023200001", 3, Log),
        ]);
        Sql.Script
            .On("InstanceDefaultDataPath", _ => TdsResponse.Of(new TdsResultSet(
                    TdsColumn.NVarChar("server_name", 128), TdsColumn.NVarChar("machine_name", 128), TdsColumn.NVarChar("instance_name", 128),
                    TdsColumn.NVarChar("default_data_path", 260), TdsColumn.NVarChar("default_log_path", 260), TdsColumn.Int("product_major_version"))
                .Row(Machine, Machine, null, @"D:\SQLData\", @"L:\SQLLogs\", 16)))
            .On("AS backup_position", _ => MediaRows())
            .On("AS create_database", _ => TdsResponse.Of(new TdsResultSet(TdsColumn.Int("create_database")).Row(CreateDatabase ? 1 : 0)))
            .On("AS present", request =>
            {
                lock (_gate)
                {
                    return TdsResponse.Of(new TdsResultSet(TdsColumn.Int("present")).Row(Databases.Contains((string)request.Parameters["@name"]!) ? 1 : 0));
                }
            })
            .On("sys.dm_os_volume_stats", _ => TdsResponse.Of(Volumes.Aggregate(
                new TdsResultSet(TdsColumn.NVarChar("volume_mount_point", 512), TdsColumn.BigInt("available_bytes")), (set, v) => set.Row(v.MountPoint, v.Available))))
            .On(r => r.Text.StartsWith("RESTORE ", StringComparison.Ordinal) || r.Text.StartsWith("DBCC CHECKDB", StringComparison.Ordinal) || r.Text.StartsWith("DROP DATABASE", StringComparison.Ordinal), Answer);
    }

    public const string Log = @"\\backup01\sql\SalesDB_LOG.trn";

    public string Machine { get; }

    public ScriptedSqlServer Sql { get; }

    /// <summary>msdb's media: type, first and last LSN, position, device.</summary>
    public List<(string Type, string FirstLsn, string LastLsn, int Position, string Device)> Media { get; } = [];

    public bool CreateDatabase { get; set; } = true;

    /// <summary>The databases DB_ID finds: RESTORE DATABASE of a full backup adds the scratch database, DROP DATABASE removes it.</summary>
    public HashSet<string> Databases { get; } = new(StringComparer.OrdinalIgnoreCase) { "master", "msdb" };

    public List<(string MountPoint, long Available)> Volumes { get; } = [(@"D:\", 500L << 30), (@"L:\", 100L << 30)];

    /// <summary>Devices the server cannot open (HEADERONLY and the rest fail with 3201).</summary>
    public HashSet<string> MissingDevices { get; } = new(StringComparer.OrdinalIgnoreCase);

    /// <summary>The first statement starting with this fails with error 262, as a login refused CREATE DATABASE is answered.</summary>
    public string? DeniedStatement { get; set; }

    /// <summary>
    /// DROP DATABASE fails with 3701, as the server answers a login without CONTROL, ALTER ANY DATABASE or db_owner on
    /// the database (the DROP DATABASE page's permissions; the message names no reason of its own).
    /// </summary>
    public bool DropRefused { get; set; }

    /// <summary>The restore of the full backup fails with 3257: the volume cannot hold the scratch files.</summary>
    public bool DiskFull { get; set; }

    /// <summary>Called with the text of every statement as it arrives, before it is answered (a test cancels the drill here).</summary>
    public Func<string, TdsResponse?>? Intercept { get; set; }

    /// <summary>How long each statement takes on the fake clock, by its first words.</summary>
    public Dictionary<string, TimeSpan> Durations { get; } = new(StringComparer.Ordinal)
    {
        ["RESTORE HEADERONLY"] = TimeSpan.FromSeconds(2),
        ["RESTORE FILELISTONLY"] = TimeSpan.FromSeconds(1),
        ["RESTORE VERIFYONLY"] = TimeSpan.FromSeconds(60),
        ["RESTORE DATABASE full"] = TimeSpan.FromMinutes(11),
        ["RESTORE DATABASE differential"] = TimeSpan.FromMinutes(2),
        ["RESTORE LOG"] = TimeSpan.FromSeconds(30),
        ["RESTORE DATABASE recovery"] = TimeSpan.FromMinutes(3),
        ["DBCC CHECKDB"] = TimeSpan.FromMinutes(5),
        ["DROP DATABASE"] = TimeSpan.FromSeconds(4),
    };

    /// <summary>Every RESTORE, DBCC and DROP statement received, in order.</summary>
    public List<string> Statements { get; } = [];

    /// <summary>RESTORE FILELISTONLY's files: a 200 GB data file, a 20 GB second data file and a 20 GB log.</summary>
    public List<BackupFileEntry> Files { get; } = [new("SalesDB", "D", 200L << 30), new("SalesDB_2", "D", 20L << 30), new("SalesDB_log", "L", 20L << 30)];

    public List<string> StatementsOf(string prefix)
    {
        lock (_gate)
        {
            return Statements.Where(s => s.StartsWith(prefix, StringComparison.Ordinal)).ToList();
        }
    }

    private TdsResponse MediaRows()
    {
        var set = new TdsResultSet(
            TdsColumn.NVarChar("backup_type", 1), TdsColumn.NVarChar("first_lsn", 25), TdsColumn.NVarChar("last_lsn", 25), TdsColumn.Int("backup_position"),
            TdsColumn.NVarChar("physical_device_name", 260), TdsColumn.Int("device_type"));
        foreach (var m in Media)
        {
            set.Row(m.Type, m.FirstLsn, m.LastLsn, m.Position, m.Device, 2);
        }

        return TdsResponse.Of(set);
    }

    private TdsResponse Answer(TdsRequest request)
    {
        var text = request.Text;
        lock (_gate)
        {
            Statements.Add(text);
        }

        if (Intercept?.Invoke(text) is { } intercepted)
        {
            return intercepted;
        }

        var device = MissingDevices.FirstOrDefault(d => text.Contains("N'" + d.Replace("'", "''", StringComparison.Ordinal) + "'", StringComparison.Ordinal));
        var what = text.StartsWith("RESTORE LOG", StringComparison.Ordinal) ? "RESTORE LOG" : "RESTORE DATABASE";
        if (device is not null)
        {
            return new TdsResponse()
                .Error(3201, 16, $"Cannot open backup device '{device}'. Operating system error 2(The system cannot find the file specified.).")
                .Error(3013, 16, $"{what} is terminating abnormally.");
        }

        if (DeniedStatement is { } denied && text.StartsWith(denied, StringComparison.Ordinal))
        {
            return new TdsResponse().Error(262, 14, "CREATE DATABASE permission denied in database 'master'.").Error(3013, 16, $"{what} is terminating abnormally.");
        }

        var key = Key(text);
        var startedAt = _clock.GetUtcNow().UtcDateTime;
        var duration = Durations.GetValueOrDefault(key);
        if (Captured && key.StartsWith("RESTORE ", StringComparison.Ordinal) && key is not ("RESTORE HEADERONLY" or "RESTORE FILELISTONLY" or "RESTORE VERIFYONLY") && !(DiskFull && key == "RESTORE DATABASE full"))
        {
            Events.Append(RestoreEvents(key, text, startedAt, duration.TotalSeconds));
        }

        _clock.Advance(duration);
        switch (key)
        {
            case "RESTORE HEADERONLY":
                var positions = Media.Where(m => text.Contains("N'" + m.Device + "'", StringComparison.Ordinal)).Select(m => m.Position).Distinct();
                return TdsResponse.Of(positions.Aggregate(
                    new TdsResultSet(TdsColumn.NVarChar("BackupName", 128), TdsColumn.SmallInt("BackupType"), TdsColumn.SmallInt("Position"), TdsColumn.NVarChar("DatabaseName", 128)),
                    (set, position) => set.Row(null, (short)1, (short)position, "SalesDB")));
            case "RESTORE FILELISTONLY":
                return TdsResponse.Of(Files.Aggregate(
                    new TdsResultSet(TdsColumn.NVarChar("LogicalName", 128), TdsColumn.NVarChar("PhysicalName", 260), TdsColumn.NVarChar("Type", 1), TdsColumn.NVarChar("FileGroupName", 128), TdsColumn.BigInt("Size")),
                    (set, f) => set.Row(f.LogicalName, @"E:\Data\" + f.LogicalName + (f.Type == "L" ? ".ldf" : ".mdf"), f.Type, f.Type == "L" ? null : "PRIMARY", f.SizeBytes)));
            case "RESTORE VERIFYONLY":
                return new TdsResponse().Info("The backup set on file 1 is valid.");
            case "RESTORE DATABASE full":
                if (DiskFull)
                {
                    return new TdsResponse()
                        .Error(3257, 16, @"There is insufficient free space on disk volume 'D:\' to create the database. The database requires 236223201280 additional free bytes, while only 1073741824 bytes are available.")
                        .Error(3013, 16, "RESTORE DATABASE is terminating abnormally.");
                }

                lock (_gate)
                {
                    Databases.Add(Name(text));
                }

                return new TdsResponse().Info("RESTORE DATABASE successfully processed 100 pages in 660.000 seconds (0.001 MB/sec).");
            case "DROP DATABASE" when DropRefused:
                return new TdsResponse().Error(3701, 14, $"Cannot drop the database '{Name(text)}', because it does not exist or you do not have permission.");
            case "DROP DATABASE":
                lock (_gate)
                {
                    Databases.Remove(Name(text));
                }

                return TdsResponse.Empty;
            default:
                return TdsResponse.Empty;
        }
    }

    private static string Key(string text) => text switch
    {
        _ when text.StartsWith("RESTORE DATABASE", StringComparison.Ordinal) && text.Contains("MOVE N'", StringComparison.Ordinal) => "RESTORE DATABASE full",
        _ when text.StartsWith("RESTORE DATABASE", StringComparison.Ordinal) && text.Contains("WITH RECOVERY", StringComparison.Ordinal) => "RESTORE DATABASE recovery",
        _ when text.StartsWith("RESTORE DATABASE", StringComparison.Ordinal) => "RESTORE DATABASE differential",
        _ => string.Join(' ', text.Split(' ', 3).Take(2)),
    };

    // The bracketed name after the first two words, ]] undone.
    private static string Name(string text)
    {
        var start = text.IndexOf('[', StringComparison.Ordinal) + 1;
        var end = start;
        while (end < text.Length && !(text[end] == ']' && (end + 1 >= text.Length || text[end + 1] != ']')))
        {
            end += text[end] == ']' ? 2 : 1;
        }

        return text[start..end].Replace("]]", "]", StringComparison.Ordinal);
    }

    /// <summary>The capture session's id for the drill's connection (@@SPID).</summary>
    public const short SessionId = 57;

    /// <summary>Whether the capture session runs: then every RESTORE writes its events to <see cref="Events"/>.</summary>
    public bool Captured { get; private set; }

    /// <summary>The capture session's event file, read by the drill's live source as <c>watch</c> reads it.</summary>
    public ScriptedEventFile Events { get; } = ScriptedEventFile.Of([], 100, 1000);

    /// <summary>
    /// The BackupXe capture session runs on this server (sys.dm_xe_sessions lists it, with its file target), and each
    /// RESTORE's backup_restore_progress_trace events land in its file, timed on the fake clock as the statement takes
    /// its <see cref="Durations"/>. The drill's connection is session <see cref="SessionId"/>, the server's clock the fake one.
    /// </summary>
    public DrillOverTds RunCaptureSession()
    {
        Captured = true;
        Sql.SessionExists = true;
        Sql.SessionRunning = true;
        Sql.Script.Serve(Events);
        Sql.Script.On("SELECT @@SPID", _ => TdsResponse.Of(new TdsResultSet(TdsColumn.SmallInt("session_id"), TdsColumn.DateTime2("server_utc"))
            .Row(SessionId, _clock.GetUtcNow().UtcDateTime)));
        return this;
    }

    /// <summary>
    /// A RESTORE's events in the trace's vocabulary (docs/backup-internals.md, "Restore steps", the wording of
    /// samples/log-zeroing-restore.log, with the XE start and end lines): the full restore prepares its containers, zeroing
    /// every file (no Instant File Initialization here), the data files at <see cref="ZeroingMBps"/>, the log in the background while the
    /// data transfers (the log's zeroing ends 10 s before the transfer does), then waits for the log zero, redoes and ends; a differential transfers and redoes; a log restore
    /// redoes; the recovery brings the database online. Bytes advance in "N percent (x/y bytes) processed" lines.
    /// </summary>
    private List<string> RestoreEvents(string key, string text, DateTime at, double seconds)
    {
        var database = Name(text);
        var events = new List<string>();
        var kind = key == "RESTORE LOG" ? "RESTORE LOG" : "RESTORE DATABASE";
        void Message(double offset, string message) => events.Add(Tuning.TuneOverTds.Trace(at.AddSeconds(offset), SessionId, message, database, restore: true));
        void Transfer(double from, double to, long bytes)
        {
            for (var step = 1; step <= 4; step++)
            {
                var done = bytes * step / 4;
                Message(from + ((to - from) * step / 4), string.Create(System.Globalization.CultureInfo.InvariantCulture, $"{step * 25} percent ({done}/{bytes} bytes) processed"));
            }
        }

        Message(0, kind + " started");
        Message(0.1, "Restore: Planning begins");
        Message(0.2, "Restore: Planning complete");
        switch (key)
        {
            case "RESTORE DATABASE full":
                var paths = System.Text.RegularExpressions.Regex.Matches(text, @"MOVE N'(?:[^']|'')*' TO N'((?:[^']|'')*)'").Select(m => m.Groups[1].Value.Replace("''", "'", StringComparison.Ordinal)).ToList();
                Message(0.3, "Restore: PreparingContainers");
                var dataReady = 0.3;
                string? logPath = null;
                for (var i = 0; i < paths.Count && i < Files.Count; i++)
                {
                    Message(0.3, string.Create(System.Globalization.CultureInfo.InvariantCulture, $"Zeroing {paths[i]} from page 1 to {Files[i].SizeBytes / 8192} (0x2000 to 0x{Files[i].SizeBytes:x})"));
                    if (Files[i].Type == "L")
                    {
                        logPath = paths[i];
                        continue;
                    }

                    var zeroing = Files[i].SizeBytes / (ZeroingMBps * 1024 * 1024);
                    Message(0.3 + zeroing, $"Zeroing completed on {paths[i]}");
                    dataReady = Math.Max(dataReady, 0.3 + zeroing);
                }

                Message(dataReady, "Restore: Containers are ready");
                Message(dataReady, "Restore: Restoring backup set");
                Message(dataReady + 0.1, "Restore: Transferring data to " + database);
                // The log is zeroed in the background, slower than the transfer: the restore waits for it at the end (as in the sample).
                var transferEnd = seconds - 25;
                Transfer(dataReady + 0.1, transferEnd - 20, 100L << 30);
                Message(transferEnd - 20, "Restore: Waiting for log zero on " + database);
                Message(transferEnd - 10, $"Zeroing completed on {logPath}");
                Message(transferEnd - 10, "Restore: LogZero complete");
                Message(transferEnd, "Restore: Data transfer complete on " + database);
                Message(transferEnd + 0.1, "Restore: Backup set restored");
                Message(transferEnd + 0.2, "Restore-Redo begins on database " + database);
                Message(seconds - 3, "Rollforward complete on database " + database);
                Message(seconds - 2, "Restore: Done with fixups");
                break;
            case "RESTORE DATABASE differential":
                Message(1, "Restore: Transferring data to " + database);
                Transfer(1, seconds - 12, 10L << 30);
                Message(seconds - 12, "Restore: Data transfer complete on " + database);
                Message(seconds - 11.9, "Restore-Redo begins on database " + database);
                Message(seconds - 2, "Rollforward complete on database " + database);
                break;
            case "RESTORE LOG":
                Message(0.5, "Restore-Redo begins on database " + database);
                Transfer(0.5, seconds - 1, 1L << 30);
                Message(seconds - 1, "Rollforward complete on database " + database);
                break;
            default:
                Message(0.5, "Restore: Transitioning database to ONLINE");
                Message(seconds - 1, "Restore: Database is restarted");
                break;
        }

        Message(seconds - 0.5, kind + " finished");
        return events;
    }

    /// <summary>How fast the server zeroes a file without Instant File Initialization, in MB/s.</summary>
    public double ZeroingMBps { get; set; } = 1024;

    public override string ToString() => string.Join("\n", Statements.Select(s => s.Split('\n')[0]));
}
