namespace BackupXe.SqlServer.Preflight;

/// <summary>
/// The read-only queries behind <c>backupxe check</c>, besides sessions/backupxe-server-facts.sql and the session
/// status script. Each runs on its own so that one the login may not run only costs its own line.
/// </summary>
internal static class PreflightQueries
{
    /// <summary>
    /// Which of the events BackupXe captures this build has (the throughput event's name varies); a private object
    /// cannot be added to a session (sys.dm_xe_objects, capabilities_desc), so it does not count.
    /// </summary>
    public const string Events = """
        SELECT o.name
        FROM sys.dm_xe_objects AS o
        JOIN sys.dm_xe_packages AS p ON p.guid = o.package_guid
        WHERE o.object_type = N'event'
          AND p.name = N'sqlserver'
          AND o.name IN (N'backup_restore_progress_trace', N'databases_backup_restore_throughput', N'database_backup_restore_throughput')
          AND (o.capabilities_desc IS NULL OR o.capabilities_desc NOT LIKE N'%private%');
        """;

    /// <summary>The errorlog route's trace flags (pre-2016 servers); one row per flag: TraceFlag, Status, Global, Session.</summary>
    public const string TraceFlags = "DBCC TRACESTATUS(3004, 3014, 3213, 3605) WITH NO_INFOMSGS;";

    /// <summary>The instance's 'backup compression default' (1 = BACKUP compresses unless told NO_COMPRESSION).</summary>
    public const string CompressionDefault = """
        SELECT value_in_use = CONVERT(int, value_in_use)
        FROM sys.configurations
        WHERE name = N'backup compression default';
        """;

    /// <summary>
    /// Instant File Initialization for the engine's service account. The column arrived in SQL Server 2016 SP1
    /// (and 2012 SP4); on builds without it the query returns no row rather than failing to compile.
    /// </summary>
    public const string InstantFileInitialization = """
        IF EXISTS (SELECT 1 FROM sys.all_columns
                   WHERE object_id = OBJECT_ID(N'sys.dm_server_services') AND name = N'instant_file_initialization_enabled')
            EXEC sys.sp_executesql N'SELECT servicename, service_account, instant_file_initialization_enabled
                FROM sys.dm_server_services
                WHERE servicename LIKE N''SQL Server (%'';';
        """;

    /// <summary>Physical memory the operating system still has: backup buffers are allocated outside the buffer pool.</summary>
    public const string Memory = """
        SELECT available_physical_memory_kb = CONVERT(bigint, available_physical_memory_kb),
               total_physical_memory_kb = CONVERT(bigint, total_physical_memory_kb)
        FROM sys.dm_os_sys_memory;
        """;

    /// <summary>Size and age of msdb's backup history, which every backup appends to and nothing trims by default.</summary>
    public const string BackupHistory = """
        SELECT backup_sets = COUNT_BIG(*), oldest = MIN(backup_start_date)
        FROM msdb.dbo.backupset;
        """;

    /// <summary>
    /// Each database's latest full, differential and log backup to URL (device_type 9) of the last 35 days: what it
    /// wrote (compressed_backup_size, else backup_size), to how many URLs (the media set's families of mirror 0), and
    /// the first URL, which names the target's kind. Backup to URL exists from SQL Server 2012 SP1 CU2 on.
    /// </summary>
    public const string UrlBackups = """
        WITH url_backups AS (
            SELECT bs.database_name, bs.type, bs.backup_finish_date,
                   written_bytes = CONVERT(bigint, COALESCE(bs.compressed_backup_size, bs.backup_size)),
                   url_families = (SELECT COUNT(*) FROM msdb.dbo.backupmediafamily AS mf
                                   WHERE mf.media_set_id = bs.media_set_id AND mf.mirror = 0),
                   device = (SELECT TOP (1) mf.physical_device_name FROM msdb.dbo.backupmediafamily AS mf
                             WHERE mf.media_set_id = bs.media_set_id AND mf.mirror = 0 ORDER BY mf.family_sequence_number),
                   newest = ROW_NUMBER() OVER (PARTITION BY bs.database_name, bs.type ORDER BY bs.backup_finish_date DESC)
            FROM msdb.dbo.backupset AS bs
            WHERE bs.backup_finish_date >= DATEADD(DAY, -35, GETDATE())
              AND bs.type IN ('D', 'I', 'L')
              AND EXISTS (SELECT 1 FROM msdb.dbo.backupmediafamily AS mf
                          WHERE mf.media_set_id = bs.media_set_id AND mf.device_type = 9)
        )
        SELECT database_name, type, backup_finish_date, written_bytes, url_families, device
        FROM url_backups
        WHERE newest = 1
        ORDER BY database_name, type;
        """;

    /// <summary>Every query above, for the tests that parse what BackupXe sends.</summary>
    public static IReadOnlyList<string> All { get; } =
        [Events, TraceFlags, CompressionDefault, InstantFileInitialization, Memory, BackupHistory, UrlBackups];
}
