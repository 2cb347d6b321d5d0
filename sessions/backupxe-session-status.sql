/*
    Is the BackupXe session there, running, and losing events? One row, also when the session is missing.

    dropped_event_count / dropped_buffer_count come from sys.dm_xe_sessions and only exist while the session
    runs: under ALLOW_SINGLE_EVENT_LOSS the server drops events rather than wait for a slow reader, and these
    counters are where that loss is accounted for. Needs VIEW SERVER STATE (2022+: VIEW SERVER PERFORMANCE STATE).
*/
SET NOCOUNT ON;

DECLARE @SessionName sysname = N'BackupXe';

SELECT
    session_name = @SessionName,
    is_defined = CONVERT(bit, CASE WHEN ses.event_session_id IS NULL THEN 0 ELSE 1 END),
    is_running = CONVERT(bit, CASE WHEN xs.address IS NULL THEN 0 ELSE 1 END),
    starts_with_server = ses.startup_state,
    -- Defined targets, not running ones, so a stopped session still says where it writes.
    -- FOR XML PATH rather than STRING_AGG, which SQL Server 2016 lacks.
    targets = STUFF((
        SELECT N',' + st.package + N'.' + st.name
        FROM sys.server_event_session_targets AS st
        WHERE st.event_session_id = ses.event_session_id
        ORDER BY st.name
        FOR XML PATH(''), TYPE).value('.', 'nvarchar(max)'), 1, 1, N''),
    dropped_event_count = CONVERT(bigint, xs.dropped_event_count),
    dropped_buffer_count = CONVERT(bigint, xs.dropped_buffer_count),
    -- Memory the running session holds for its event buffers (MAX_MEMORY), in bytes.
    buffer_memory_bytes = CONVERT(bigint, xs.total_buffer_size),
    configured_file = (
        SELECT TOP (1) CONVERT(nvarchar(4000), f.value)
        FROM sys.server_event_session_fields AS f
        JOIN sys.server_event_session_targets AS st
          ON st.event_session_id = f.event_session_id AND st.target_id = f.object_id
        WHERE f.event_session_id = ses.event_session_id
          AND st.name = N'event_file'
          AND f.name = N'filename'),
    -- The file actually being written: the server adds _0_<timestamp> and may resolve a relative path.
    current_file = (
        SELECT TOP (1) CONVERT(xml, t.target_data).value('(EventFileTarget/File/@name)[1]', 'nvarchar(4000)')
        FROM sys.dm_xe_session_targets AS t
        WHERE t.event_session_address = xs.address
          AND t.target_name = N'event_file')
-- A one-row anchor so a missing session still gives a row; joined on the variable, not a derived column,
-- so the comparison takes each catalog's own collation.
FROM (VALUES (1)) AS anchor (one)
LEFT JOIN sys.server_event_sessions AS ses ON ses.name = @SessionName
LEFT JOIN sys.dm_xe_sessions AS xs ON xs.name = @SessionName;
