/*
    BackupXe capture session: what `backupxe watch` streams and what the .xel files keep.

    Re-runnable. It drops and re-creates the session instead of leaving an existing one alone, because
    the wait_type predicate holds numeric map keys that are only valid for the build they were looked up
    on (sys.dm_xe_map_values: map keys differ between builds): after a CU or an upgrade, re-running this
    script re-resolves them. Everything is looked up and built before the old session is dropped, so a
    failed lookup leaves the existing session in place.

    Needs ALTER ANY EVENT SESSION, or on SQL Server 2022+ CREATE ANY EVENT SESSION and ALTER ANY EVENT SESSION
    ENABLE (to start it), plus DROP ANY EVENT SESSION when it replaces an existing session; and VIEW SERVER STATE
    to read the DMVs (2022+: VIEW SERVER PERFORMANCE STATE).

    One batch on purpose (no GO): RETURN after an error then stops the whole script in SSMS as well.
    (SQL Server 2005 cannot even parse it, because of DECLARE with an initial value; that server needs the
    errorlog route anyway.)
*/
SET NOCOUNT ON;

-- Edit these two (BackupXe substitutes them when it runs this file itself).
DECLARE @SessionName sysname = N'BackupXe';
-- A bare file name lands in the instance's LOG directory; the service account needs write access to a
-- full path. The event_file target adds _0_<timestamp> before .xel on every rollover.
DECLARE @FilePath nvarchar(260) = N'BackupXe.xel';
DECLARE @MaxFileSizeMb int = 64;
DECLARE @MaxRolloverFiles int = 4;
-- 1: the session starts again with the server (a permanent capture); 0: it runs until stopped, as for a watch.
DECLARE @StartWithServer bit = 1;

/*
    backup_restore_progress_trace exists from SQL Server 2016 (major version 13) on.
    ProductMajorVersion is NULL before 2012, so fall back to the first part of ProductVersion.
*/
DECLARE @MajorVersion int = COALESCE(
    CONVERT(int, SERVERPROPERTY('ProductMajorVersion')),
    CONVERT(int, PARSENAME(CONVERT(nvarchar(128), SERVERPROPERTY('ProductVersion')), 4)));
-- 8 = Azure SQL Managed Instance, whose version numbers are Azure's and not comparable with SQL Server's.
DECLARE @EngineEdition int = CONVERT(int, SERVERPROPERTY('EngineEdition'));

IF @EngineEdition <> 8 AND (@MajorVersion IS NULL OR @MajorVersion < 13)
BEGIN
    RAISERROR(N'BackupXe: this server (major version %d) is older than SQL Server 2016 and has no backup_restore_progress_trace event. Use the errorlog route instead: DBCC TRACEON(3004, 3014, 3213, 3605, -1); run the backup or restore; then backupxe analyze ERRORLOG (the instance''s ERRORLOG file).', 16, 1, @MajorVersion);
    RETURN;
END;

/*
    Wait types worth capturing for a backup or restore, with the preemptive ones that
    say where a restore spends time zeroing files or a backup reads, and a restore's recovery waiting for
    memory-optimized data to load: Microsoft documents that wait as WAIT_XTP_RECOVERY (sys.dm_os_wait_types), and
    XTP_RECOVERY is the map value seen in XE, so both are listed. Names missing on this build simply match nothing. The predicate compares wait_type with numeric map keys looked up here, never typed in:
    keys differ between builds (sys.dm_xe_map_values). map_key is converted to text because its type is not
    the same on every build. The names are literals, not a table variable, so that no collation conflict
    can arise between the DMV and the current database. Preemptive waits are only raised by
    wait_info_external and the others only by wait_info, so each event gets just its own keys. FOR XML PATH
    rather than STRING_AGG: STRING_AGG needs 2017 and this script must run on 2016.
*/
DECLARE @WaitKeys TABLE (map_key_text nvarchar(40) NOT NULL, is_preemptive bit NOT NULL);
INSERT INTO @WaitKeys (map_key_text, is_preemptive)
SELECT DISTINCT
    CONVERT(nvarchar(40), mv.map_key),
    CASE WHEN mv.map_value LIKE N'PREEMPTIVE[_]%' THEN 1 ELSE 0 END
FROM sys.dm_xe_map_values AS mv
JOIN sys.dm_xe_packages AS p ON p.guid = mv.object_package_guid
WHERE mv.name = N'wait_types'
  AND p.name = N'sqlos'
  AND mv.map_value IN (
      N'BACKUPBUFFER', N'BACKUPIO', N'BACKUPTHREAD', N'BACKUP',
      N'ASYNC_IO_COMPLETION', N'IO_COMPLETION', N'XTP_RECOVERY', N'WAIT_XTP_RECOVERY',
      N'PREEMPTIVE_OS_WRITEFILEGATHER', N'PREEMPTIVE_OS_BACKUPREAD',
      N'PREEMPTIVE_OS_WRITEFILE', N'PREEMPTIVE_OS_FLUSHFILEBUFFERS',
      N'PREEMPTIVE_OS_SETFILEVALIDDATA', N'PREEMPTIVE_OS_CREATEFILE');

DECLARE @WaitPredicate nvarchar(max) = STUFF((
    SELECT N' OR [wait_type] = (' + k.map_key_text + N')'
    FROM @WaitKeys AS k
    WHERE k.is_preemptive = 0
    ORDER BY k.map_key_text
    FOR XML PATH(''), TYPE).value('.', 'nvarchar(max)'), 1, 4, N'');

DECLARE @ExternalWaitPredicate nvarchar(max) = STUFF((
    SELECT N' OR [wait_type] = (' + k.map_key_text + N')'
    FROM @WaitKeys AS k
    WHERE k.is_preemptive = 1
    ORDER BY k.map_key_text
    FOR XML PATH(''), TYPE).value('.', 'nvarchar(max)'), 1, 4, N'');

-- Without keys the wait events would capture every wait on the server, a serious overhead on a busy
-- one: refuse rather than create an unfiltered session.
IF @WaitPredicate IS NULL
BEGIN
    RAISERROR(N'BackupXe: no backup wait types found in sys.dm_xe_map_values (name = ''wait_types''); the session was not changed.', 16, 1);
    RETURN;
END;

/*
    The throughput event is spelled differently between builds and may be absent:
    take whichever name this server has, or leave the event out. A private object cannot be named in
    CREATE EVENT SESSION (sys.dm_xe_objects, capabilities_desc), so a private one counts as absent.
*/
-- The name comes from a fixed list below, so it is safe to splice into the DDL as is.
DECLARE @ThroughputEvent sysname;
SELECT TOP (1) @ThroughputEvent = o.name
FROM sys.dm_xe_objects AS o
JOIN sys.dm_xe_packages AS p ON p.guid = o.package_guid
WHERE o.object_type = N'event'
  AND p.name = N'sqlserver'
  AND o.name IN (N'databases_backup_restore_throughput', N'database_backup_restore_throughput')
  AND (o.capabilities_desc IS NULL OR o.capabilities_desc NOT LIKE N'%private%')
ORDER BY o.name DESC;

DECLARE @NewLine nchar(2) = NCHAR(13) + NCHAR(10);
DECLARE @Create nvarchar(max) =
    N'CREATE EVENT SESSION ' + QUOTENAME(@SessionName) + N' ON SERVER' + @NewLine
    -- No session_id field on this event: the action supplies it. No database_name action:
    -- the event's own database_name field names the database; the action would be the session's current one.
    + N'ADD EVENT sqlserver.backup_restore_progress_trace(' + @NewLine
    + N'    ACTION(sqlserver.session_id))' + @NewLine
    -- opcode 1 = End: duration is only filled in on End.
    + N', ADD EVENT sqlos.wait_info(' + @NewLine
    + N'    ACTION(sqlserver.session_id)' + @NewLine
    + N'    WHERE ([opcode] = (1) AND (' + @WaitPredicate + N')))' + @NewLine
    + CASE WHEN @ExternalWaitPredicate IS NULL THEN N'' ELSE
        N', ADD EVENT sqlos.wait_info_external(' + @NewLine
      + N'    ACTION(sqlserver.session_id)' + @NewLine
      + N'    WHERE ([opcode] = (1) AND (' + @ExternalWaitPredicate + N')))' + @NewLine END
    + CASE WHEN @ThroughputEvent IS NULL THEN N'' ELSE
        N', ADD EVENT sqlserver.' + @ThroughputEvent + N'(' + @NewLine
      + N'    ACTION(sqlserver.session_id))' + @NewLine END
    + N'ADD TARGET package0.event_file(SET filename = N''' + REPLACE(@FilePath, N'''', N'''''') + N''''
    + N', max_file_size = (' + CONVERT(nvarchar(12), @MaxFileSizeMb) + N')'
    + N', max_rollover_files = (' + CONVERT(nvarchar(12), @MaxRolloverFiles) + N'))' + @NewLine
    + N'WITH (' + @NewLine
    -- Losing one event beats stalling the server's own threads (NO_EVENT_LOSS would block them).
    + N'    EVENT_RETENTION_MODE = ALLOW_SINGLE_EVENT_LOSS,' + @NewLine
    -- The default is 30 seconds; a live view wants events within 1-3 seconds.
    + N'    MAX_DISPATCH_LATENCY = 2 SECONDS,' + @NewLine
    + N'    MAX_MEMORY = 4096 KB,' + @NewLine
    -- Each backup stripe reports its own activity id with causality tracking.
    + N'    TRACK_CAUSALITY = ON,' + @NewLine
    -- A backup at 2 a.m. after a reboot is exactly the one someone will ask about; a session made for one
    -- watch (backupxe watch --start-session) must not come back after a restart, when nobody removes it.
    + N'    STARTUP_STATE = ' + CASE WHEN @StartWithServer = 1 THEN N'ON' ELSE N'OFF' END + N');';

DECLARE @Drop nvarchar(max) = N'DROP EVENT SESSION ' + QUOTENAME(@SessionName) + N' ON SERVER;';
DECLARE @Start nvarchar(max) = N'ALTER EVENT SESSION ' + QUOTENAME(@SessionName) + N' ON SERVER STATE = START;';

IF EXISTS (SELECT 1 FROM sys.server_event_sessions WHERE name = @SessionName)
    EXEC sys.sp_executesql @Drop;

EXEC sys.sp_executesql @Create;

/*
    A session that was created but cannot start (error 25602: a target failed its configuration, such as a
    folder the service account cannot write; or a missing start permission) is dropped again, so that a failed
    install leaves no stopped session behind; the start's error is then raised again unchanged (THROW). When
    even the drop fails (on 2022+ it needs DROP ANY EVENT SESSION), its message is printed and the stopped
    session stays: BackupXe then says so. A session this script replaced was dropped before CREATE and is not
    brought back. An error that ends the connection or the batch (a cancel, a timeout) skips this block;
    BackupXe then checks what is left and drops it when the login may.
*/
BEGIN TRY
    IF NOT EXISTS (SELECT 1 FROM sys.dm_xe_sessions WHERE name = @SessionName)
        EXEC sys.sp_executesql @Start;
END TRY
BEGIN CATCH
    BEGIN TRY
        IF EXISTS (SELECT 1 FROM sys.server_event_sessions WHERE name = @SessionName)
            EXEC sys.sp_executesql @Drop;
    END TRY
    BEGIN CATCH
        PRINT N'BackupXe: the session ' + QUOTENAME(@SessionName) + N' could not start and could not be dropped again: '
            + ERROR_MESSAGE();
    END CATCH;
    THROW;
END CATCH;

PRINT N'BackupXe: session ' + QUOTENAME(@SessionName) + N' created and running'
    + CASE WHEN @ThroughputEvent IS NULL THEN N' (no throughput event on this build).' ELSE N'.' END;
