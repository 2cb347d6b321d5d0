using System.Globalization;
using System.Text.RegularExpressions;
using BackupXe.Core.Tuning;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;

namespace BackupXe.Tests.Tuning;

/// <summary>
/// The TDS double answering what <c>tune --execute</c> sends, as the pages in docs/server-conformance.md describe the
/// results, with trial "backups" that follow <see cref="ServerModel"/>: the BACKUP's options are read back from the
/// statement text, the model gives its rate, effective options and limiting side, and the capture session's event file
/// receives the events a real capture holds for such a backup (the message vocabulary of samples/buffer-starved-backup.xml:
/// buffer configuration, Effective options, devices, percent progress every second, BACKUPBUFFER and BACKUPIO waits
/// shaped as <see cref="SimulatedServer"/> shapes them). Every trial here outlasts its window: the BACKUP answers nothing
/// until the driver's ATTENTION (a cancel), as a long backup does. It is a double: it proves BackupXe's client path.
/// </summary>
internal sealed partial class TuneOverTds
{
    private readonly ServerModel _model;
    private readonly IReadOnlyList<string> _directories;
    private readonly Random _random;
    private readonly Lock _gate = new();
    private int _nextSessionId = 60;
    private int _sessionId;

    public TuneOverTds(ServerModel model, IReadOnlyList<string> directories, int seed = 1)
    {
        _model = model;
        _directories = directories;
        _random = new Random(seed);
        BackupFiles.AddRange([new BackupFileEntry("Sales", "D", model.DatabaseBytes), new BackupFileEntry("Sales_log", "L", 1L << 30)]);
        Sql.SessionExists = true;
        Sql.SessionRunning = true;
        Sql.Script.Serve(Events);
        Sql.Script
            .On("AS major_version", _ => TdsResponse.Of(new TdsResultSet(
                    TdsColumn.Int("major_version"), TdsColumn.Int("engine_edition"), TdsColumn.NVarChar("path_separator", 1), TdsColumn.Int("view_server_state"),
                    TdsColumn.Int("view_any_definition"), TdsColumn.BigInt("data_bytes"), TdsColumn.BigInt("log_bytes"), TdsColumn.Int("compression_default"), TdsColumn.Int("is_encrypted"))
                .Row(15, 3, "\\", 1, 1, model.DatabaseBytes, 1L << 30, model.CompressionDefault ? 1 : 0, model.Encrypted ? 1 : 0)))
            .On("r.command LIKE N'RESTORE%'", _ => TdsResponse.Of(new TdsResultSet(TdsColumn.Int("running")).Row(0)))
            .On("AS can_see_credentials", _ =>
            {
                // sys.credentials as the login sees it: nothing without VIEW ANY DEFINITION (or ALTER ANY CREDENTIAL).
                var set = new TdsResultSet(TdsColumn.Int("can_see_credentials"), TdsColumn.NVarChar("credential_name", 128), TdsColumn.NVarChar("credential_identity", 4000));
                var visible = CanSeeCredentials ? Credentials : [];
                return TdsResponse.Of(visible.Count == 0
                    ? set.Row(CanSeeCredentials ? 1 : 0, null, null)
                    : visible.Aggregate(set, (rows, c) => rows.Row(1, c.Name, c.Identity)));
            })
            .On("AS backup_database", _ => TdsResponse.Of(new TdsResultSet(TdsColumn.Int("backup_database")).Row(BackupPermission ? 1 : 0)))
            .On("SELECT @@SPID", _ =>
            {
                lock (_gate)
                {
                    _sessionId = ++_nextSessionId;
                    return TdsResponse.Of(new TdsResultSet(TdsColumn.SmallInt("session_id"), TdsColumn.DateTime2("server_utc")).Row((short)_sessionId, Now));
                }
            })
            .On("r.session_id = @session_id", request =>
            {
                lock (_gate)
                {
                    StopChecks++;
                    StopCheckTimes.Add(Now);
                    return TdsResponse.Of(new TdsResultSet(TdsColumn.Int("running")).Row(0));
                }
            })
            .On("r.percent_complete", request =>
            {
                // sys.dm_exec_requests.percent_complete of the trial's BACKUP as it runs: its share of the database so far.
                lock (_gate)
                {
                    var set = new TdsResultSet(TdsColumn.Real("percent_complete"), TdsColumn.DateTime2("server_utc"));
                    PercentQueries++;
                    PercentQueriesOfThisTrial++;
                    var session = Convert.ToInt32(request.Parameters["@session_id"], CultureInfo.InvariantCulture);
                    return TdsResponse.Of(_running.TryGetValue(session, out var backup)
                        ? set.Row((float)Math.Min(100, (Now - backup.Started).TotalSeconds * backup.Rate * ServerModel.MB * 100 / _model.DatabaseBytes), Now)
                        : set);
                }
            })
            .On("sys.dm_os_volume_stats", _ => Volumes.Aggregate(
                new TdsResultSet(TdsColumn.NVarChar("volume_mount_point", 512), TdsColumn.BigInt("available_bytes")),
                (set, v) => set.Row(v.MountPoint, v.Available)) is var volumes ? TdsResponse.Of(volumes) : TdsResponse.Empty)
            .On(r => r.Text.StartsWith("BACKUP DATABASE", StringComparison.Ordinal), Answer)
            .On("AS create_database", _ => TdsResponse.Of(new TdsResultSet(TdsColumn.Int("create_database")).Row(RestorePermission ? 1 : 0)))
            .On("RESTORE FILELISTONLY", _ => BackupFiles.Aggregate(
                new TdsResultSet(TdsColumn.NVarChar("LogicalName", 128), TdsColumn.NVarChar("PhysicalName", 260), TdsColumn.NVarChar("Type", 1), TdsColumn.NVarChar("FileGroupName", 128), TdsColumn.BigInt("Size")),
                (set, f) => set.Row(f.LogicalName, @"D:\Data\" + f.LogicalName + (f.Type == "L" ? ".ldf" : ".mdf"), f.Type, f.Type == "L" ? null : "PRIMARY", f.SizeBytes)) is var files ? TdsResponse.Of(files) : TdsResponse.Empty)
            .On("AS present", request =>
            {
                lock (_gate)
                {
                    var name = (string)request.Parameters["@name"]!;
                    var taken = TakenScratchTrial is { } trial && name.EndsWith(string.Create(CultureInfo.InvariantCulture, $"_r{trial:00}"), StringComparison.Ordinal);
                    return TdsResponse.Of(new TdsResultSet(TdsColumn.Int("present")).Row(taken || Databases.Contains(name) ? 1 : 0));
                }
            })
            .On(r => r.Text.StartsWith("RESTORE DATABASE", StringComparison.Ordinal), Restore)
            .On("AS table_exists", _ =>
            {
                lock (_gate)
                {
                    // HAS_PERMS_BY_NAME: NULL (here 0) on an object that does not exist; USER_NAME() and DB_NAME() of the repository.
                    Order.Add("ready");
                    int Has(string permission, bool onTable = false) => (!onTable || TuneTableExists) && RepositoryGrants.Contains(permission) ? 1 : 0;
                    return TdsResponse.Of(new TdsResultSet(
                            TdsColumn.Int("table_exists"), TdsColumn.Int("can_insert"), TdsColumn.Int("can_select"), TdsColumn.Int("can_create_table"),
                            TdsColumn.Int("can_alter_schema"), TdsColumn.NVarChar("user_name", 128), TdsColumn.NVarChar("database_name", 128),
                            TdsColumn.Int("restore_columns"), TdsColumn.Int("can_alter_table"))
                        .Row(TuneTableExists ? 1 : 0, Has("INSERT", onTable: true), Has("SELECT", onTable: true), Has("CREATE TABLE"), Has("ALTER"), "tuner]x", "BackupXe History",
                            TuneTableExists && TuneTableRestoreColumns ? 1 : 0, Has("ALTER TABLE", onTable: true)));
                }
            })
            .On("CREATE TABLE [dbo].[tune_runs]", request =>
            {
                lock (_gate)
                {
                    Order.Add("create");
                    TuneTableDdl.Add(request.Text);
                    TuneTableExists = true;
                    TuneTableRestoreColumns = request.Text.Contains("[restore_best_mbps]", StringComparison.Ordinal) && request.Text.Contains("[restore_defaults_mbps]", StringComparison.Ordinal);
                    return TdsResponse.Empty;
                }
            })
            .On("ALTER TABLE [dbo].[tune_runs] ADD", request =>
            {
                lock (_gate)
                {
                    // Migration 3 on an existing table: ALTER TABLE ... ADD of the two nullable columns, each while missing (COL_LENGTH).
                    Order.Add("alter");
                    TuneTableDdl.Add(request.Text);
                    TuneTableRestoreColumns = true;
                    return TdsResponse.Empty;
                }
            })
            .On("INSERT INTO dbo.tune_runs", request =>
            {
                lock (_gate)
                {
                    Order.Add("insert");
                    if (TuneTableExists && !TuneTableRestoreColumns && request.Text.Contains("restore_best_mbps", StringComparison.Ordinal))
                    {
                        // A batch naming a column the table lacks fails to compile: error 207, nothing inserted.
                        return new TdsResponse().Error(207, 16, "Invalid column name 'restore_best_mbps'.");
                    }

                    if (TuneTableExists)
                    {
                        TuneRows.Add(request.Parameters);
                    }

                    return TdsResponse.Of(new TdsResultSet(TdsColumn.Int("inserted")).Row(TuneTableExists ? 1 : -1));
                }
            })
            .On(r => r.Text.StartsWith("DROP DATABASE", StringComparison.Ordinal), request =>
            {
                lock (_gate)
                {
                    var name = NamePattern().Match(request.Text).Groups[1].Value.Replace("]]", "]", StringComparison.Ordinal);
                    Dropped.Add(name);
                    Databases.Remove(name);
                    return TdsResponse.Empty;
                }
            });
    }

    /// <summary>Whether the central repository holds dbo.tune_runs (its CREATE TABLE makes it so).</summary>
    public bool TuneTableExists { get; set; }

    /// <summary>Whether dbo.tune_runs has migration 3's restore columns (a table from before them has not; CREATE TABLE and ALTER TABLE ADD give them).</summary>
    public bool TuneTableRestoreColumns { get; set; } = true;

    /// <summary>
    /// The repository login's permissions as HAS_PERMS_BY_NAME answers them: INSERT, SELECT, "ALTER TABLE" (ALTER on the
    /// table), CREATE TABLE, ALTER (schema dbo).
    /// </summary>
    public HashSet<string> RepositoryGrants { get; } = new(StringComparer.Ordinal) { "INSERT", "SELECT", "ALTER TABLE", "CREATE TABLE", "ALTER" };

    /// <summary>The repository's DDL as received.</summary>
    public List<string> TuneTableDdl { get; } = [];

    /// <summary>The parameters of each tune row inserted.</summary>
    public List<IReadOnlyDictionary<string, object?>> TuneRows { get; } = [];

    /// <summary>What the double received, in order: "ready", "create", "alter", "insert", "backup".</summary>
    public List<string> Order { get; } = [];

    /// <summary>RESTORE's CREATE DATABASE permission, as the double's HAS_PERMS_BY_NAME answers it.</summary>
    public bool RestorePermission { get; set; } = true;

    /// <summary>A restore trial whose scratch name DB_ID finds taken (another database of that name), or null.</summary>
    public int? TakenScratchTrial { get; set; }

    /// <summary>The databases DB_ID finds: a restore trial adds its scratch database, DROP DATABASE removes it.</summary>
    public HashSet<string> Databases { get; } = new(StringComparer.OrdinalIgnoreCase) { "Sales" };

    /// <summary>What RESTORE FILELISTONLY lists for the backup restored: a data file the database's size and a 1 GB log.</summary>
    public List<BackupFileEntry> BackupFiles { get; } = [];

    public List<string> Restores { get; } = [];

    public List<string> Dropped { get; } = [];

    /// <summary>
    /// A restore trial: its scratch database created, its capture written (the buffer configuration with its Total
    /// buffer space and memory limit, zeroing of the log, and of the data file without Instant File Initialization,
    /// then the copy at a rate that grows with buffer memory up to a ceiling, with the waits of what limits it), then
    /// nothing until the cancel, as a long restore does.
    /// </summary>
    public TdsResponse Restore(TdsRequest request)
    {
        var sql = request.Text;
        var database = NamePattern().Match(sql).Groups[1].Value.Replace("]]", "]", StringComparison.Ordinal);
        var moves = MovePattern().Matches(sql).Select(m => m.Groups[1].Value.Replace("''", "'", StringComparison.Ordinal)).ToList();
        var count = Number(sql, "BUFFERCOUNT") ?? RestoreModel.DefaultBufferCount;
        var size = Number(sql, "MAXTRANSFERSIZE") ?? ServerModel.MB;
        var memory = count * size;
        var (rate, limit) = RestoreCurve.Rate((int)count, size);
        rate *= Math.Max(0.5, 1 + (_model.Noise * Gaussian()));
        int session;
        lock (_gate)
        {
            session = _sessionId;
            BackupRunning = false;
            Restores.Add(sql);
            Databases.Add(database);
        }

        var events = new List<string>();
        var at = Now;
        void Message(double seconds, string text) => events.Add(Trace(at.AddSeconds(seconds), session, text, database, restore: true));
        Message(0, "RESTORE DATABASE started");
        Message(0.01, "Backup/Restore buffer configuration parameters");
        Message(0.01, string.Create(CultureInfo.InvariantCulture, $"Memory limit: {_model.MemoryLimitBytes / ServerModel.MB} MB"));
        Message(0.01, string.Create(CultureInfo.InvariantCulture, $"BufferCount:                {count}"));
        Message(0.01, string.Create(CultureInfo.InvariantCulture, $"MaxTransferSize:            {size / 1024} KB"));
        Message(0.01, string.Create(CultureInfo.InvariantCulture, $"Total buffer space:         {(long)(memory * RestoreBufferRatio) / ServerModel.MB} MB"));
        var zeroAt = 0.05;
        foreach (var path in moves.Where(p => p.EndsWith(".ldf", StringComparison.Ordinal) || Sql.InstantFileInitialization != "Y"))
        {
            Message(zeroAt, $"Zeroing {path} from page 1 to 131072 (0x2000 to 0x40000000)");
            Message(zeroAt + 0.4, $"Zeroing completed on {path}");
            zeroAt += 0.5;
        }

        Message(zeroAt, "Transferring data to " + database);
        var bytes = 0.0;
        for (var second = 1; second <= WindowSeconds; second++)
        {
            bytes += rate * ServerModel.MB * Math.Max(0.5, 1 + (0.02 * Gaussian()));
            var done = Math.Min((long)bytes, _model.DatabaseBytes - 1);
            Message(zeroAt + second, string.Create(CultureInfo.InvariantCulture, $"{done * 100 / _model.DatabaseBytes} percent ({done}/{_model.DatabaseBytes} bytes) processed"));
            events.AddRange(RestoreWaits(at.AddSeconds(zeroAt + second - 0.5), session, limit));
        }

        Events.Append(events);
        return new TdsResponse().Stall();
    }

    /// <summary>
    /// A restore's copy rate against its buffers, up to its ceiling, and what limits it there: "backup-read" (the device
    /// reader waits on the backup, BACKUPIO) or "data-file-write" (the reader idles while the buffers wait for the data
    /// file writer, BACKUPBUFFER).
    /// </summary>
    public RestoreModel RestoreCurve { get; init; } = new();

    /// <summary>A restore's Total buffer space over BUFFERCOUNT x MAXTRANSFERSIZE.</summary>
    public double RestoreBufferRatio { get; init; } = 1;

    /// <summary>
    /// One second of a restore's waits over its two threads (one device reader, one data file writer): below its ceiling
    /// many short BACKUPBUFFER waits (the buffers cycle, too few), at it the side that limits it.
    /// </summary>
    private static IEnumerable<string> RestoreWaits(DateTime at, int session, string limit)
    {
        switch (limit)
        {
            case "buffers":
                // 150 waits of 5 ms: 37% of each of the two threads' time, each wait short.
                return Enumerable.Range(0, 150).Select(i => Wait(at.AddMilliseconds(i * 3), session, 187, "BACKUPBUFFER", 5, 0));
            case "data-file-write":
                return [Wait(at, session, 187, "BACKUPBUFFER", 1100, 50), Wait(at, session, 188, "BACKUPIO", 50, 2)];
            default:
                return [Wait(at, session, 188, "BACKUPIO", 650, 30), Wait(at, session, 187, "BACKUPBUFFER", 300, 15)];
        }
    }

    public ScriptedSqlServer Sql { get; } = new();

    /// <summary>The server's clock (SYSUTCDATETIME, the events' timestamps, percent_complete): the test's fake clock when the tune runs on it.</summary>
    public TimeProvider Time { get; init; } = TimeProvider.System;

    private DateTime Now => Time.GetUtcNow().UtcDateTime;

    public ScriptedEventFile Events { get; } = ScriptedEventFile.Of([], 100, 1000);

    public bool BackupPermission { get; set; } = true;

    /// <summary>The server credentials sys.credentials holds (name, identity): the URLs they serve; never a secret.</summary>
    public List<(string Name, string Identity)> Credentials { get; } = [];

    /// <summary>False: the login has neither VIEW ANY DEFINITION nor ALTER ANY CREDENTIAL, so sys.credentials shows no row.</summary>
    public bool CanSeeCredentials { get; set; } = true;

    /// <summary>How long each trial runs before the driver cancels it: the tune's --window (the events span it).</summary>
    public int WindowSeconds { get; init; } = 5;

    /// <summary>What sys.dm_os_volume_stats shows: each volume holding a database file, and its free bytes.</summary>
    public List<(string? MountPoint, long Available)> Volumes { get; } = [(@"X:\", 10L << 40), (@"Y:\", 10L << 40), (@"C:\", 50L << 30)];

    public List<string> Backups { get; } = [];

    /// <summary>The latest trial is a BACKUP (its percent_complete is sampled while it runs), not a RESTORE.</summary>
    public bool BackupRunning { get; private set; }

    /// <summary>Each trial file the double's server "created".</summary>
    public List<string> FilesWritten { get; } = [];

    public int StopChecks { get; private set; }

    /// <summary>When each stop check came, on the server's clock: right after the trial it confirms was stopped.</summary>
    public List<DateTime> StopCheckTimes { get; } = [];

    /// <summary>How many times the trial's percent_complete was read.</summary>
    public int PercentQueries { get; private set; }

    /// <summary>How many times percent_complete was read since the latest trial BACKUP started.</summary>
    public int PercentQueriesOfThisTrial { get; private set; }

    /// <summary>
    /// The capture holds percent lines only where each 1% of the database is crossed (no throughput event, as on a
    /// large database): a short window holds one or none.
    /// </summary>
    public bool SparseProgress { get; set; }

    private readonly Dictionary<int, (DateTime Started, double Rate)> _running = [];

    /// <summary>The answer to a trial BACKUP: its capture written to the event file, then nothing until the cancel.</summary>
    public TdsResponse Answer(TdsRequest request)
    {
        var sql = request.Text;
        var devices = DiskPattern().Matches(sql).Select(m => m.Groups[1].Value.Replace("''", "'", StringComparison.Ordinal)).ToList();
        var toNul = devices is ["NUL"];
        var options = new TrialOptions(
            devices.Count,
            Number(sql, "BUFFERCOUNT") is { } count ? (int)count : null,
            Number(sql, "MAXTRANSFERSIZE"),
            Number(sql, "BLOCKSIZE") is { } block ? (int)block : null,
            sql.Contains("NO_COMPRESSION", StringComparison.Ordinal) ? false : sql.Contains("COMPRESSION", StringComparison.Ordinal) ? true : null,
            AlgorithmPattern().Match(sql) is { Success: true } a ? a.Groups[1].Value : null);
        int session;
        lock (_gate)
        {
            session = _sessionId;
            BackupRunning = true;
            PercentQueriesOfThisTrial = 0;
            Backups.Add(sql);
            Order.Add("backup");
            if (!toNul)
            {
                FilesWritten.AddRange(devices);
            }
        }

        var (rate, limit) = _model.Rate(options, _directories, toNul);
        rate *= Math.Max(0.5, 1 + (_model.Noise * Gaussian()));
        var effective = _model.Effective(options, toNul);
        lock (_gate)
        {
            _running[session] = (Now, rate);
        }

        Events.Append(Capture(session, devices, effective, rate, limit, options.Compression ?? _model.CompressionDefault));
        // A backup longer than the window: nothing more until the driver cancels it.
        return new TdsResponse().Stall();
    }

    /// <summary>The window of the backup as the capture session records it, from now (the double's clock is the server's).</summary>
    private List<string> Capture(int session, IReadOnlyList<string> devices, (int BufferCount, long MaxTransferSize, int BlockSize, bool Compression, string Algorithm) effective, double rate, string limit, bool compression)
    {
        var events = new List<string>();
        var at = Now;
        void Message(double seconds, string text) => events.Add(Trace(at.AddSeconds(seconds), session, text));
        var total = (long)(effective.BufferCount * effective.MaxTransferSize * _model.ReportedBufferRatio);
        Message(0, "BACKUP DATABASE started");
        Message(0.01, "Backup/Restore buffer configuration parameters");
        Message(0.01, string.Create(CultureInfo.InvariantCulture, $"Memory limit: {_model.MemoryLimitBytes / ServerModel.MB} MB"));
        Message(0.01, string.Create(CultureInfo.InvariantCulture, $"BufferCount:                {effective.BufferCount}"));
        Message(0.01, string.Create(CultureInfo.InvariantCulture, $"MaxTransferSize:            {effective.MaxTransferSize / 1024} KB"));
        Message(0.01, string.Create(CultureInfo.InvariantCulture, $"Total buffer space:         {total / ServerModel.MB} MB"));
        Message(0.02, string.Create(CultureInfo.InvariantCulture,
            $"Effective options: Checksum=0, Compression={(effective.Compression ? 1 : 0)}, Encryption=0, BufferCount={effective.BufferCount}, MaxTransferSize={effective.MaxTransferSize / 1024} KB"));
        Message(0.03, string.Create(CultureInfo.InvariantCulture,
            $"Estimated total size = {_model.DatabaseBytes} bytes (data size = {_model.DatabaseBytes - 65536} bytes, log size = 65536 bytes)"));
        for (var i = 0; i < devices.Count; i++)
        {
            Message(0.04, string.Create(CultureInfo.InvariantCulture, $"BackupStream({i}): Writing leading metadata to the device {devices[i]}"));
        }

        Message(0.05, "Copying data files");
        Message(0.05, "Number of data file readers = 1");
        var bytes = 0.0;
        for (var second = 1; second <= WindowSeconds; second++)
        {
            var before = (long)bytes * 100 / _model.DatabaseBytes;
            bytes += rate * ServerModel.MB * Math.Max(0.5, 1 + (0.02 * Gaussian()));
            var done = Math.Min((long)bytes, _model.DatabaseBytes - 1);
            if (!SparseProgress || done * 100 / _model.DatabaseBytes > before)
            {
                Message(second, string.Create(CultureInfo.InvariantCulture, $"{done * 100 / _model.DatabaseBytes} percent ({done}/{_model.DatabaseBytes} bytes) processed"));
            }

            foreach (var wait in Waits(limit, devices.Count, compression))
            {
                events.Add(Wait(at.AddSeconds(second - 0.5), session, wait.Key, wait.Name, wait.Ms, wait.Signal));
            }
        }

        return events;
    }

    /// <summary>One second's BACKUPBUFFER and BACKUPIO waits, in the shares <see cref="SimulatedServer"/> gives each limit.</summary>
    private static (int Key, string Name, long Ms, long Signal)[] Waits(string limit, int devices, bool compression)
    {
        var threads = devices + 1;
        (double bufferShare, double ioShare, double signal) = limit switch
        {
            "buffers" => (0.45, 0.30, 0.05),
            "write" => (0.30, 0.65, 0.05),
            "cpu" => (0.55, 0.05, compression ? 0.40 : 0.05),
            _ => (0.55, 0.05, 0.05),
        };
        var bufferMs = (long)(bufferShare * threads * 1000);
        var ioMs = (long)(ioShare * devices * 1000);
        return [(187, "BACKUPBUFFER", bufferMs, (long)(bufferMs * signal)), (188, "BACKUPIO", ioMs, (long)(ioMs * signal))];
    }

    /// <summary>One backup_restore_progress_trace event as the capture session's file holds it (also the drill double's, <c>DrillOverTds</c>).</summary>
    internal static string Trace(DateTime at, int session, string message, string database = "Sales", bool restore = false) => $"""
        <event name="backup_restore_progress_trace" package="sqlserver" timestamp="{Stamp(at)}"><data name="operation_type"><type name="backup_restore_operation_type" package="sqlserver" /><value>{(restore ? 1 : 0)}</value><text>{(restore ? "Restore" : "Backup")}</text></data><data name="trace_level"><type name="uint16" package="package0" /><value>0</value></data><data name="database_name"><type name="unicode_string" package="package0" /><value><![CDATA[{database}]]></value></data><data name="trace_message"><type name="unicode_string" package="package0" /><value><![CDATA[{message}]]></value></data><action name="session_id" package="sqlserver"><type name="uint16" package="package0" /><value>{session}</value></action></event>
        """;

    private static string Wait(DateTime at, int session, int key, string name, long ms, long signal) => $"""
        <event name="wait_info" package="sqlos" timestamp="{Stamp(at)}"><data name="wait_type"><type name="wait_types" package="sqlos" /><value>{key}</value><text>{name}</text></data><data name="opcode"><type name="event_opcode" package="sqlos" /><value>1</value><text>End</text></data><data name="duration"><type name="uint64" package="package0" /><value>{ms}</value></data><data name="signal_duration"><type name="uint64" package="package0" /><value>{signal}</value></data><action name="session_id" package="sqlserver"><type name="uint16" package="package0" /><value>{session}</value></action></event>
        """;

    private static string Stamp(DateTime at) => at.ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'", CultureInfo.InvariantCulture);

    private static long? Number(string sql, string option) =>
        Regex.Match(sql, option + @" = (\d+)") is { Success: true } m ? long.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture) : null;

    private double Gaussian()
    {
        lock (_gate)
        {
            var u1 = 1.0 - _random.NextDouble();
            var u2 = _random.NextDouble();
            return Math.Sqrt(-2.0 * Math.Log(u1)) * Math.Cos(2.0 * Math.PI * u2);
        }
    }

    [GeneratedRegex(@"(?:DISK|URL) = N'((?:[^']|'')*)'")]
    private static partial Regex DiskPattern();

    [GeneratedRegex(@"ALGORITHM = (\w+)")]
    private static partial Regex AlgorithmPattern();

    [GeneratedRegex(@"^(?:RESTORE|DROP) DATABASE \[((?:[^\]]|\]\])*)\]")]
    private static partial Regex NamePattern();

    [GeneratedRegex(@"MOVE N'(?:[^']|'')*' TO N'((?:[^']|'')*)'")]
    private static partial Regex MovePattern();
}
