using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Sessions;

namespace BackupXe.Testing.Tds;

/// <summary>
/// A <see cref="TdsScript"/> that answers BackupXe's own queries (sessions/*.sql and the preflight queries) the
/// way the documented catalog views shape them, from settable facts: a scripted stand-in for a server, on the
/// <see cref="TdsServerDouble"/>. The session "exists" after the install script arrives and not after the drop
/// script, so install, status and uninstall can run end to end. It is a double: it returns what a test set,
/// and proves BackupXe's client path, not SQL Server's behaviour.
/// </summary>
public sealed class ScriptedSqlServer
{
    /// <summary>
    /// What only the restore chain's backupset query (MsdbBackupChain.Query) holds: the history import's query reads the
    /// same LSN columns, so a column name no longer tells them apart.
    /// </summary>
    public const string MsdbChainFragment = "WHERE bs.backup_start_date >= @since AND bs.type IN ('D', 'I', 'L')";

    public const string ServerStateDenied = "VIEW SERVER STATE permission was denied on object 'server', database 'master'.";

    public ScriptedSqlServer()
    {
        Script = new TdsScript()
            .On("fn_my_permissions", _ => Facts())
            .On("dm_xe_session_targets", _ => Status())
            .On("ADD EVENT sqlserver.backup_restore_progress_trace", r =>
            {
                SessionExists = true;
                SessionRunning = true;
                // STARTUP_STATE as the rendered script declares it.
                StartsWithServer = !r.Text.Contains("DECLARE @StartWithServer bit = 0;", StringComparison.Ordinal);
                InstalledWaitTypes = new Dictionary<int, string>(WaitTypes);
                return new TdsResponse().Info($"BackupXe: session [{SessionName}] created and running.");
            })
            .On("QUOTENAME(@session) + N' ON SERVER STATE = START;'", r => ChangeState(r, start: true))
            .On("QUOTENAME(@session) + N' ON SERVER STATE = STOP;'", r => ChangeState(r, start: false))
            .On(r => r.Text.Contains("DROP EVENT SESSION", StringComparison.Ordinal) && !r.Text.Contains("CREATE EVENT SESSION", StringComparison.Ordinal), _ =>
            {
                SessionExists = false;
                SessionRunning = false;
                return TdsResponse.Empty;
            })
            .On("o.name IN (N'backup_restore_progress_trace'", _ => Events())
            .On("DBCC TRACESTATUS", _ => TraceFlags())
            .On("backup compression default", _ => TdsResponse.Of(new TdsResultSet(TdsColumn.Int("value_in_use")).Row(CompressionDefault)))
            .On("instant_file_initialization_enabled", _ => InstantFileInitializationRows())
            .On("dm_os_sys_memory", _ => TdsResponse.Of(new TdsResultSet(TdsColumn.BigInt("available_physical_memory_kb"), TdsColumn.BigInt("total_physical_memory_kb")).Row(AvailableMemoryKb, 16L * 1024 * 1024)))
            .On("sys.dm_exec_requests", _ => Requests())
            .On("msdb.dbo.backupset", _ => TdsResponse.Of(new TdsResultSet(TdsColumn.BigInt("backup_sets"), TdsColumn.DateTime("oldest")).Row(HistoryRows, new DateTime(2023, 1, 1))))
            .On("url_families", _ => UrlBackups.Aggregate(
                new TdsResultSet(TdsColumn.NVarChar("database_name", 128), TdsColumn.NVarChar("type", 1), TdsColumn.DateTime("backup_finish_date"),
                    TdsColumn.BigInt("written_bytes"), TdsColumn.Int("url_families"), TdsColumn.NVarChar("device", 260)),
                (set, b) => set.Row(b.Database, b.Type, b.Finished, b.WrittenBytes, b.Urls, b.Device)) is var urls ? TdsResponse.Of(urls) : TdsResponse.Empty)
            .On(MsdbChainFragment, BackupChain)
            .On("AS data_pages", _ => Files())
            .On("t.target_name = N'ring_buffer'", _ => RingBuffer())
            .On("COL_LENGTH(N'msdb.dbo.backupset'", _ => ColumnLengths(MajorVersion))
            .On("msdb.dbo.restorehistory", _ => { lock (Restores) { return RestoresResponse(Restores); } })
            .On("sys.server_event_session_events", _ => Drift())
            .On(HadrFactsFragment, _ => HadrFactsResponse(HadrEnabled, Permissions.Contains("VIEW SERVER STATE") ? 1 : 0));
    }

    /// <summary>
    /// MsdbBackupHistory.ColumnsQuery answered as COL_LENGTH does for <paramref name="majorVersion"/>: the column's length in
    /// bytes, NULL for a column that version's backupset lacks (compressed_backup_size from 2008, key_algorithm and
    /// encryptor_type nvarchar(32) from 2014, compression_algorithm from 2022).
    /// </summary>
    public static TdsResponse ColumnLengths(int majorVersion) => TdsResponse.Of(
        new TdsResultSet(TdsColumn.Int("compressed_backup_size"), TdsColumn.Int("key_algorithm"), TdsColumn.Int("compression_algorithm"), TdsColumn.Int("encryptor_type"))
            .Row(majorVersion >= 10 ? 9 : null, majorVersion >= 12 ? 64 : null, majorVersion >= 16 ? 64 : null, majorVersion >= 12 ? 64 : null));

    /// <summary>The session's target as the status query names it (package.name).</summary>
    public string Target { get; set; } = "package0.event_file";

    /// <summary>
    /// What successive reads of the session's ring_buffer target return (sys.dm_xe_session_targets.target_data,
    /// nvarchar(max)): each read takes the next document, and the last one stays. No row while the session is not
    /// running or <see cref="Target"/> is not the ring_buffer, as the query's join gives.
    /// </summary>
    public Queue<string> RingBufferReads { get; } = new();

    public TdsScript Script { get; }

    public int MajorVersion { get; set; } = 15;

    public string Edition { get; set; } = "Developer Edition (64-bit)";

    /// <summary>SERVERPROPERTY('EngineEdition'): 3 Enterprise/Developer, 5 Azure SQL Database, 8 Managed Instance.</summary>
    public int EngineEdition { get; set; } = 3;

    public string Login { get; set; } = TdsClient.User;

    public List<string> Permissions { get; } = ["ALTER ANY EVENT SESSION", "VIEW SERVER STATE", "CONNECT SQL"];

    public string SessionName { get; set; } = BackupXe.SqlServer.Sessions.SessionName.Default;

    public bool SessionExists { get; set; }

    public bool SessionRunning { get; set; }

    /// <summary>STARTUP_STATE of the session (sys.server_event_sessions.startup_state); set by the install script's declaration.</summary>
    public bool StartsWithServer { get; set; } = true;

    public long DroppedEvents { get; set; }

    public List<string> EventNames { get; } = ["backup_restore_progress_trace", "databases_backup_restore_throughput"];

    public List<int> GlobalTraceFlags { get; } = [];

    /// <summary>
    /// This build's sqlos wait_types map (sys.dm_xe_map_values: map_key int, map_value nvarchar(2048)). The keys are a
    /// test's input: Microsoft documents only that they differ between builds, so none here stands for a real build's.
    /// </summary>
    public Dictionary<int, string> WaitTypes { get; set; } = new()
    {
        [66] = "IO_COMPLETION", [98] = "ASYNC_IO_COMPLETION", [101] = "BACKUP", [102] = "BACKUPBUFFER", [103] = "BACKUPIO",
        [104] = "BACKUPTHREAD", [140] = "LATCH_EX", [512] = "PREEMPTIVE_OS_WRITEFILEGATHER", [513] = "PREEMPTIVE_OS_WRITEFILE",
    };

    /// <summary>The map as it was when the session was installed, which its predicates were built from; null: this build's.</summary>
    public Dictionary<int, string>? InstalledWaitTypes { get; set; }

    public int CompressionDefault { get; set; }

    /// <summary>'Y', 'N', or null for a build without the column (no row).</summary>
    public string? InstantFileInitialization { get; set; } = "Y";

    public long AvailableMemoryKb { get; set; } = 8L * 1024 * 1024;

    /// <summary>PreflightQueries.UrlBackups' rows: each database's latest backup to URL, as msdb records it.</summary>
    public List<UrlBackupRow> UrlBackups { get; } = [];

    public long HistoryRows { get; set; } = 1234;

    /// <summary>What sys.dm_exec_requests shows as running BACKUP/RESTORE requests; read anew on every query.</summary>
    public List<ScriptedRequest> RunningRequests { get; } = [];

    /// <summary>The server's UTC clock for the requests query (server_utc).</summary>
    public DateTime ServerUtc { get; set; } = new(2024, 5, 1, 1, 30, 8, DateTimeKind.Utc);

    /// <summary>Requests containing <paramref name="fragment"/> fail with 300 (VIEW SERVER STATE denied), as a DMV read without it does.</summary>
    public ScriptedSqlServer Deny(string fragment)
    {
        Script.On(fragment, new TdsResponse().Error(300, 14, ServerStateDenied).Error(297, 16, "The user does not have permission to perform this action."));
        return this;
    }

    /// <summary>
    /// Requests containing <paramref name="fragment"/> get the start of a result (its column metadata, no row), then
    /// the connection is reset. No row: SqlClient 6.1.8 hands a complete row to the reader before it sees the reset,
    /// and a row of a shape the query never returns is nothing a server sends.
    /// </summary>
    public ScriptedSqlServer DropConnectionOn(string fragment)
    {
        Script.On(fragment, new TdsResponse().PartialRows(new TdsResultSet(TdsColumn.Int("partial"))).Disconnect());
        return this;
    }

    /// <summary>Error 25602's text (Database engine errors 25000 to 25999) as it reads for an event_file target.</summary>
    public const string TargetConfigurationError =
        "The target, \"5B2DA06D-898A-43C8-9309-39BBBE93EBBD.package0.event_file\", encountered a configuration error during initialization.  Object cannot be added to the event session. (null)";

    /// <summary>
    /// The install batch gets past CREATE EVENT SESSION and fails at ALTER EVENT SESSION ... STATE = START with 25602
    /// (class 17), as for a folder the service account cannot write. The script's CATCH drops the session again and
    /// THROW raises 25602 unchanged (TRY...CATCH and THROW pages). With <paramref name="dropDenied"/> the drop is refused
    /// with 15151, as on 2022+ without DROP ANY EVENT SESSION: the script prints that, and the stopped session stays.
    /// </summary>
    public ScriptedSqlServer FailStart(bool dropDenied = false)
    {
        Script.On("ADD EVENT sqlserver.backup_restore_progress_trace", _ =>
        {
            SessionExists = dropDenied;
            SessionRunning = false;
            var response = new TdsResponse();
            if (dropDenied)
            {
                response.Info($"BackupXe: the session [{SessionName}] could not start and could not be dropped again: "
                    + $"Cannot drop the event session '{SessionName}', because it does not exist or you do not have permission.");
            }

            return response.Error(SqlErrorNumbers.TargetConfigurationError, 17, TargetConfigurationError);
        });
        return this;
    }

    /// <summary>
    /// The connection is reset while the install batch runs, after CREATE EVENT SESSION and before START: the created
    /// session stays, stopped, and the script's CATCH never runs (a closed connection ends the batch).
    /// </summary>
    public ScriptedSqlServer LoseConnectionAfterCreate()
    {
        Script.On("ADD EVENT sqlserver.backup_restore_progress_trace", _ =>
        {
            SessionExists = true;
            SessionRunning = false;
            return new TdsResponse().Disconnect();
        });
        return this;
    }

    /// <summary>
    /// ALTER EVENT SESSION ... STATE = START / STOP as the ALTER EVENT SESSION page gives them: ALTER ANY EVENT SESSION,
    /// or on SQL Server 2022+ ALTER ANY EVENT SESSION ENABLE (start) / DISABLE (stop); without it, or for a session that is
    /// not there, 15151; 25705 for a session already started, 25704 for one already stopped (errors 25000 to 25999).
    /// </summary>
    private TdsResponse ChangeState(TdsRequest request, bool start)
    {
        var name = request.Parameters.TryGetValue("@session", out var value) ? value as string : null;
        var granular = MajorVersion >= 16 || EngineEdition == 8;
        var allowed = Permissions.Contains("ALTER ANY EVENT SESSION")
            || (granular && Permissions.Contains(start ? "ALTER ANY EVENT SESSION ENABLE" : "ALTER ANY EVENT SESSION DISABLE"));
        if (!allowed || !SessionExists || name != SessionName)
        {
            return new TdsResponse().Error(SqlErrorNumbers.DoesNotExistOrNoPermission, 16,
                $"Cannot alter the event session '{name}', because it does not exist or you do not have permission.");
        }

        if (SessionRunning == start)
        {
            return start
                ? new TdsResponse().Error(SqlErrorNumbers.EventSessionAlreadyStarted, 16, "The event session has already been started.")
                : new TdsResponse().Error(SqlErrorNumbers.EventSessionAlreadyStopped, 16, "The event session has already been stopped.");
        }

        SessionRunning = start;
        return TdsResponse.Empty;
    }

    private TdsResponse RingBuffer()
    {
        var set = new TdsResultSet(TdsColumn.NVarChar("target_data", null));
        lock (RingBufferReads)
        {
            if (SessionRunning && Target == "package0.ring_buffer" && RingBufferReads.Count > 0)
            {
                set.Row(RingBufferReads.Count > 1 ? RingBufferReads.Dequeue() : RingBufferReads.Peek());
            }
        }

        return TdsResponse.Of(set);
    }

    /// <summary>
    /// sessions/backupxe-session-drift.sql answered with the documented column types: sys.server_event_session_events
    /// package and name sysname, predicate nvarchar(3000), stored as ([opcode]=(1) AND ([wait_type]=(k) OR ...));
    /// sys.dm_xe_map_values map_key int, map_value nvarchar(2048); sys.dm_xe_objects and sys.dm_xe_object_columns names
    /// nvarchar(256), sys.dm_xe_packages name nvarchar(256).
    /// </summary>
    private TdsResponse Drift()
    {
        var installed = InstalledWaitTypes ?? WaitTypes;
        string Predicate(bool preemptive) => "([opcode]=(1) AND ("
            + string.Join(" OR ", installed.Where(m => CapturedWaits.Names.Contains(m.Value) && CapturedWaits.IsPreemptive(m.Value) == preemptive)
                .Select(m => m.Key).Order().Select(k => $"[wait_type]=({k})"))
            + "))";
        var events = new TdsResultSet(TdsColumn.NVarChar("package", 128), TdsColumn.NVarChar("name", 128), TdsColumn.NVarChar("predicate", 3000));
        if (SessionExists)
        {
            events.Row("sqlos", "wait_info", Predicate(preemptive: false)).Row("sqlos", "wait_info_external", Predicate(preemptive: true));
            foreach (var name in EventNames)
            {
                events.Row("sqlserver", name, null);
            }
        }

        var map = WaitTypes.Aggregate(new TdsResultSet(TdsColumn.Int("map_key"), TdsColumn.NVarChar("map_value", 2048)), (set, m) => set.Row(m.Key, m.Value));
        var offered = EventNames.Aggregate(
            new TdsResultSet(TdsColumn.NVarChar("package", 256), TdsColumn.NVarChar("name", 256)).Row("sqlos", "wait_info").Row("sqlos", "wait_info_external"),
            (set, name) => set.Row("sqlserver", name));
        var fields = new TdsResultSet(TdsColumn.NVarChar("object_name", 256), TdsColumn.NVarChar("name", 256))
            .Row("wait_info", "wait_type").Row("wait_info", "opcode").Row("wait_info_external", "wait_type").Row("wait_info_external", "opcode");
        return TdsResponse.Of(events, map, offered, fields);
    }

    private TdsResponse Facts() => TdsResponse.Of(
        new TdsResultSet(TdsColumn.Int("product_major_version"), TdsColumn.NVarChar("edition", 128), TdsColumn.Int("engine_edition"), TdsColumn.NVarChar("login_name", 128))
            .Row(MajorVersion, Edition, EngineEdition, Login),
        Permissions.Aggregate(new TdsResultSet(TdsColumn.NVarChar("permission_name", 128)), (set, p) => set.Row(p)));

    private TdsResponse Status()
    {
        var set = new TdsResultSet(
            TdsColumn.NVarChar("session_name", 128), TdsColumn.Bit("is_defined"), TdsColumn.Bit("is_running"), TdsColumn.Bit("starts_with_server"),
            TdsColumn.NVarChar("targets", null), TdsColumn.BigInt("dropped_event_count"), TdsColumn.BigInt("dropped_buffer_count"),
            TdsColumn.BigInt("buffer_memory_bytes"), TdsColumn.NVarChar("configured_file", 4000), TdsColumn.NVarChar("current_file", 4000));
        return TdsResponse.Of(SessionExists
            ? set.Row(SessionName, true, SessionRunning, StartsWithServer, Target,
                SessionRunning ? DroppedEvents : null, SessionRunning ? 0L : null, SessionRunning ? 4_194_304L : null,
                "BackupXe.xel", SessionRunning ? @"C:\MSSQL\Log\BackupXe_0_133589000000000000.xel" : null)
            : set.Row(SessionName, false, false, null, null, null, null, null, null, null));
    }

    /// <summary>
    /// The requests query's result with the documented column types of sys.dm_exec_requests: session_id smallint,
    /// command nvarchar(32), DB_NAME() nvarchar(128), percent_complete real, estimated_completion_time bigint,
    /// start_time datetime (here already moved to UTC, as the query does), wait_type nvarchar(60), wait_time int.
    /// </summary>
    private TdsResponse Requests()
    {
        var set = new TdsResultSet(
            TdsColumn.SmallInt("session_id"), TdsColumn.NVarChar("command", 32), TdsColumn.NVarChar("database_name", 128),
            TdsColumn.Real("percent_complete"), TdsColumn.BigInt("estimated_completion_time"), TdsColumn.DateTime("start_time_utc"),
            TdsColumn.DateTime("server_utc"), TdsColumn.NVarChar("wait_type", 60), TdsColumn.Int("wait_time"), TdsColumn.NVarChar("last_wait_type", 60),
            TdsColumn.NVarChar("statement_text", 4000));
        lock (RunningRequests)
        {
            foreach (var r in RunningRequests)
            {
                set.Row((short)r.SessionId, r.Command, r.RunsIn ?? r.Database, r.PercentComplete, r.EstimatedCompletionMs, r.StartUtc, ServerUtc, r.WaitType, r.WaitTimeMs, r.LastWaitType,
                    r.Statement ?? (r.Database is null ? null : $"{r.Command} [{r.Database.Replace("]", "]]", StringComparison.Ordinal)}] TO DISK = N'X:\\backup.bak'"));
            }
        }

        return TdsResponse.Of(set);
    }

    /// <summary>What msdb.dbo.backupset holds for the restore chain query; read anew on every query.</summary>
    public List<ScriptedBackupSet> BackupSets { get; } = [];

    /// <summary>
    /// The restore chain query's rows with the types the backupset page documents: database_name nvarchar(128), type
    /// char(1) (sent as nvarchar(1), as the query casts it), is_copy_only bit, the four LSNs numeric(25,0) (sent as
    /// nvarchar(25), as the query converts them), recovery_model nvarchar(60), backup_start_date and backup_finish_date datetime,
    /// backup_size and compressed_backup_size numeric(20,0) (sent as bigint, as the query casts them; compressed NULL when not set),
    /// key_algorithm and encryptor_type nvarchar(32) (NULL when the query asks for NULL, on a server before 2014), and the
    /// media families' device_type (tinyint, sent as int: 2 disk, 9 URL...).
    /// </summary>
    private TdsResponse BackupChain(TdsRequest request)
    {
        lock (BackupSets)
        {
            return ChainResponse(BackupSets, !request.Text.Contains("CAST(NULL AS nvarchar(32)) AS key_algorithm", StringComparison.Ordinal));
        }
    }

    /// <summary>The restore chain query's answer for <paramref name="sets"/>, for scripts of other tests.</summary>
    public static TdsResponse ChainResponse(IEnumerable<ScriptedBackupSet> sets, bool encryptionColumns = true)
    {
        var set = new TdsResultSet(
            TdsColumn.NVarChar("database_name", 128), TdsColumn.NVarChar("backup_type", 1), TdsColumn.Bit("is_copy_only"),
            TdsColumn.NVarChar("first_lsn", 25), TdsColumn.NVarChar("last_lsn", 25), TdsColumn.NVarChar("database_backup_lsn", 25),
            TdsColumn.NVarChar("checkpoint_lsn", 25), TdsColumn.NVarChar("recovery_model", 60), TdsColumn.DateTime("backup_start_date"),
            TdsColumn.DateTime("backup_finish_date"), TdsColumn.BigInt("backup_size"), TdsColumn.BigInt("compressed_backup_size"),
            TdsColumn.NVarChar("key_algorithm", 32), TdsColumn.NVarChar("encryptor_type", 32), TdsColumn.Int("device_type"));
        foreach (var b in sets)
        {
            set.Row(b.Database, b.Type, b.IsCopyOnly, b.FirstLsn, b.LastLsn, b.DatabaseBackupLsn, b.CheckpointLsn, b.RecoveryModel, b.Start, b.Finish, b.BackupSize, b.CompressedSize,
                encryptionColumns ? b.KeyAlgorithm : null, encryptionColumns ? b.EncryptorType : null, b.DeviceType);
        }

        return TdsResponse.Of(set);
    }

    /// <summary>What only MsdbBackupHistory.GroupDatabasesQuery holds.</summary>
    public const string GroupDatabasesFragment = "WHERE d.group_database_id IS NOT NULL";

    /// <summary>
    /// MsdbBackupHistory.GroupDatabasesQuery answered for <paramref name="databases"/>, as the sys.databases page documents
    /// the columns: name (sysname) and group_database_id (uniqueidentifier, sent as nvarchar(36) as the query casts it),
    /// the database's id within its availability group, the same on every replica where it joined. Only databases of a
    /// group: the column is NULL outside one, which the query's WHERE leaves out. No argument: a server with no group.
    /// </summary>
    public static TdsResponse GroupDatabasesResponse(params (string Name, string GroupDatabaseId)[] databases) => TdsResponse.Of(databases.Aggregate(
        new TdsResultSet(TdsColumn.NVarChar("name", 128), TdsColumn.NVarChar("group_database_id", 36)),
        (set, d) => set.Row(d.Name, d.GroupDatabaseId)));

    /// <summary>SERVERPROPERTY('IsHadrEnabled') as the facts query reads it: 0 (a standalone server) unless a test says otherwise.</summary>
    public int? HadrEnabled { get; set; } = 0;

    /// <summary>What only AvailabilityReplicaReader.FactsQuery holds.</summary>
    public const string HadrFactsFragment = "SERVERPROPERTY('IsHadrEnabled')";

    /// <summary>
    /// AvailabilityReplicaReader.FactsQuery answered: SERVERPROPERTY('IsHadrEnabled') (sql_variant of int, cast to int by
    /// the query: 1 enabled, 0 disabled, NULL before SQL Server 2012, which does not know the property) and
    /// HAS_PERMS_BY_NAME's int (1 held, 0 not) for each permission the query names.
    /// </summary>
    public static TdsResponse HadrFactsResponse(int? hadrEnabled, int? viewServerState, int? viewAnyDefinition = 1) => TdsResponse.Of(
        new TdsResultSet(TdsColumn.Int("is_hadr_enabled"), TdsColumn.Int("view_server_state"), TdsColumn.Int("view_any_definition"))
            .Row(hadrEnabled, viewServerState, viewAnyDefinition));

    /// <summary>What only AvailabilityReplicaReader.RolesQuery holds.</summary>
    public const string ReplicaRolesFragment = "JOIN sys.availability_replicas AS ar";

    /// <summary>
    /// AvailabilityReplicaReader.RolesQuery answered for <paramref name="databases"/>, each column with the type its page
    /// documents: sys.databases.name sysname (nvarchar(128)) and group_database_id (uniqueidentifier, sent as nvarchar(36)
    /// as the query casts it); sys.availability_groups.name sysname and automated_backup_preference_desc nvarchar(60)
    /// (PRIMARY, SECONDARY_ONLY, SECONDARY, NONE); sys.availability_replicas.backup_priority int (0 to 100);
    /// sys.dm_hadr_availability_replica_states.role_desc nvarchar(60) (RESOLVING, PRIMARY, SECONDARY; NULL when the
    /// LEFT JOIN finds no local row); sys.fn_hadr_backup_is_preferred_replica's 1 or 0, as int because the query casts it.
    /// </summary>
    public static TdsResponse ReplicaRolesResponse(params ScriptedReplicaRole[] databases) => TdsResponse.Of(databases.Aggregate(
        new TdsResultSet(
            TdsColumn.NVarChar("database_name", 128), TdsColumn.NVarChar("group_database_id", 36), TdsColumn.NVarChar("group_name", 128),
            TdsColumn.NVarChar("automated_backup_preference_desc", 60), TdsColumn.Int("backup_priority"), TdsColumn.NVarChar("role_desc", 60),
            TdsColumn.Int("is_preferred_replica")),
        (set, d) => set.Row(d.Database, d.GroupDatabaseId, d.GroupName, d.Preference, d.BackupPriority, d.Role, d.Preferred is { } preferred ? preferred ? 1 : 0 : null)));

    /// <summary>What msdb.dbo.restorehistory holds (full database restores), with the backup set each read; read anew on every query.</summary>
    public List<ScriptedRestore> Restores { get; } = [];

    /// <summary>
    /// The restores query's answer for <paramref name="restores"/> (also for scripts of other tests), with the types the restorehistory page documents: destination_database_name
    /// nvarchar(128), restore_date datetime, replace bit; then the backup set it read (restorehistory.backup_set_id to
    /// backupset) in the chain query's columns and types, the encryption and device columns NULL as the query asks.
    /// </summary>
    public static TdsResponse RestoresResponse(IEnumerable<ScriptedRestore> restores)
    {
        var set = new TdsResultSet(
            TdsColumn.NVarChar("destination_database_name", 128), TdsColumn.DateTime("restore_date"), TdsColumn.Bit("replace"),
            TdsColumn.NVarChar("database_name", 128), TdsColumn.NVarChar("backup_type", 1), TdsColumn.Bit("is_copy_only"),
            TdsColumn.NVarChar("first_lsn", 25), TdsColumn.NVarChar("last_lsn", 25), TdsColumn.NVarChar("database_backup_lsn", 25),
            TdsColumn.NVarChar("checkpoint_lsn", 25), TdsColumn.NVarChar("recovery_model", 60), TdsColumn.DateTime("backup_start_date"),
            TdsColumn.DateTime("backup_finish_date"), TdsColumn.BigInt("backup_size"), TdsColumn.BigInt("compressed_backup_size"),
            TdsColumn.NVarChar("key_algorithm", 32), TdsColumn.NVarChar("encryptor_type", 32), TdsColumn.Int("device_type"));
        foreach (var r in restores)
        {
            var b = r.Source;
            set.Row(r.Destination, r.RestoreDate, r.Replace, b.Database, b.Type, b.IsCopyOnly, b.FirstLsn, b.LastLsn, b.DatabaseBackupLsn, b.CheckpointLsn,
                b.RecoveryModel, b.Start, b.Finish, b.BackupSize, b.CompressedSize, null, null, null);
        }

        return TdsResponse.Of(set);
    }

    /// <summary>What sys.master_files holds per database, in 8 KB pages (a login without VIEW ANY DEFINITION sees none).</summary>
    public List<ScriptedDatabaseFiles> DatabaseFiles { get; } = [];

    /// <summary>
    /// The restore estimate's file query: DB_NAME() nvarchar(128), the sums of sys.master_files.size (int, 8 KB pages)
    /// cast to bigint, SERVERPROPERTY('ProductMajorVersion') cast to int, sys.databases.is_encrypted (bit) cast to int, NULL
    /// when the database's row is not visible.
    /// </summary>
    private TdsResponse Files()
    {
        lock (DatabaseFiles)
        {
            return FilesResponse(DatabaseFiles, MajorVersion);
        }
    }

    /// <summary>The restore estimate's file query answered for <paramref name="files"/>, for scripts of other tests.</summary>
    public static TdsResponse FilesResponse(IEnumerable<ScriptedDatabaseFiles> files, int majorVersion)
    {
        var set = new TdsResultSet(TdsColumn.NVarChar("database_name", 128), TdsColumn.BigInt("data_pages"), TdsColumn.BigInt("log_pages"), TdsColumn.Int("product_major_version"), TdsColumn.Int("is_encrypted"));
        foreach (var f in files)
        {
            set.Row(f.Database, f.DataPages, f.LogPages, majorVersion, f.Encrypted is { } encrypted ? (encrypted ? 1 : 0) : null);
        }

        return TdsResponse.Of(set);
    }

    private TdsResponse Events() =>
        TdsResponse.Of(EventNames.Aggregate(new TdsResultSet(TdsColumn.NVarChar("name", 256)), (set, n) => set.Row(n)));

    private TdsResponse TraceFlags()
    {
        // DBCC TRACESTATUS's result shape: TraceFlag, Status, Global, Session (one row per flag asked for).
        var set = new TdsResultSet(TdsColumn.Int("TraceFlag"), TdsColumn.Int("Status"), TdsColumn.Int("Global"), TdsColumn.Int("Session"));
        foreach (var flag in new[] { 3004, 3014, 3213, 3605 })
        {
            var on = GlobalTraceFlags.Contains(flag) ? 1 : 0;
            set.Row(flag, on, on, 0);
        }

        return TdsResponse.Of(set);
    }

    private TdsResponse InstantFileInitializationRows() => InstantFileInitializationResponse(InstantFileInitialization);

    /// <summary>The IFI query answered with <paramref name="state"/> (Y, N; null: a build without the column, no row), for scripts of other tests.</summary>
    public static TdsResponse InstantFileInitializationResponse(string? state) => state is null
        ? TdsResponse.Empty
        : TdsResponse.Of(new TdsResultSet(TdsColumn.NVarChar("servicename", 256), TdsColumn.NVarChar("service_account", 256), TdsColumn.NVarChar("instant_file_initialization_enabled", 1))
            .Row("SQL Server (MSSQLSERVER)", @"NT Service\MSSQLSERVER", state));
}

/// <summary>
/// One row of the scripted sys.dm_exec_requests. <see cref="Database"/> is the database backed up; the request runs in it
/// unless <see cref="RunsIn"/> says otherwise (a job step in master: database_id is the database the request executes
/// in, sys.dm_exec_requests' page), and its statement (sys.dm_exec_sql_text) names it unless <see cref="Statement"/> is set.
/// </summary>
public sealed record ScriptedRequest(
    int SessionId,
    string Command,
    string? Database,
    float PercentComplete,
    long EstimatedCompletionMs,
    DateTime StartUtc,
    string? WaitType,
    int WaitTimeMs,
    string? LastWaitType)
{
    /// <summary>DB_NAME(database_id): the database the request runs in; <see cref="Database"/> when not set.</summary>
    public string? RunsIn { get; init; }

    /// <summary>The running statement's text; "COMMAND [Database] TO DISK = ..." when not set.</summary>
    public string? Statement { get; init; }
}

/// <summary>One backupset row for the restore chain query (LSNs as the digits the server's CONVERT gives).</summary>
public sealed record ScriptedBackupSet(
    string Database, string Type, bool IsCopyOnly, string FirstLsn, string LastLsn, string? DatabaseBackupLsn, string? CheckpointLsn,
    string RecoveryModel, DateTime Start, DateTime Finish, long BackupSize = 1L << 30, long? CompressedSize = null)
{
    /// <summary>backupset.key_algorithm: NO_Encryption for an unencrypted backup (the backupset page), as msdb writes it from 2014.</summary>
    public string? KeyAlgorithm { get; init; } = "NO_Encryption";

    /// <summary>backupset.encryptor_type: NULL when not encrypted.</summary>
    public string? EncryptorType { get; init; }

    /// <summary>backupmediafamily.device_type: 2 disk.</summary>
    public int? DeviceType { get; init; } = 2;
}

/// <summary>One full database restore in the scripted msdb.dbo.restorehistory, and the backupset row it read.</summary>
public sealed record ScriptedRestore(string Destination, DateTime RestoreDate, bool? Replace, ScriptedBackupSet Source);

/// <summary>One database's files in the scripted sys.master_files: data (ROWS) and log pages of 8 KB.</summary>
public sealed record ScriptedDatabaseFiles(string Database, long DataPages, long LogPages, bool? Encrypted = false);

/// <summary>One row of PreflightQueries.UrlBackups.</summary>
public sealed record UrlBackupRow(string Database, string Type, DateTime Finished, long WrittenBytes, int Urls, string Device);

/// <summary>One availability group database's row of AvailabilityReplicaReader.RolesQuery on one replica.</summary>
public sealed record ScriptedReplicaRole(string Database, string GroupDatabaseId, string GroupName, string Preference, int BackupPriority, string? Role, bool Preferred);
