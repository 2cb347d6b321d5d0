/*
    Has the session's wait filter gone stale? Four result sets, compared by BackupXe (`check`, `session status`).

    The install script filters waits by numeric map keys looked up when it ran (sys.dm_xe_map_values); a cumulative
    update or an upgrade may give the same keys to other waits. This reads what the session stores and what the
    server's catalog says today, and changes nothing:
      1. the session's events and their stored predicates (sys.server_event_session_events.predicate);
      2. this build's wait_types map of the sqlos package (map_key to wait name);
      3. which of the events the session may hold this build offers (a private one cannot be in a session);
      4. which of the fields the wait predicates name the wait events have on this build.
    Needs VIEW SERVER STATE (2022+: VIEW SERVER PERFORMANCE STATE) for the DMVs.
*/
SET NOCOUNT ON;

DECLARE @SessionName sysname = N'BackupXe';

SELECT e.package, e.name, e.predicate
FROM sys.server_event_sessions AS s
JOIN sys.server_event_session_events AS e ON e.event_session_id = s.event_session_id
WHERE s.name = @SessionName
ORDER BY e.package, e.name;

SELECT mv.map_key, mv.map_value
FROM sys.dm_xe_map_values AS mv
JOIN sys.dm_xe_packages AS p ON p.guid = mv.object_package_guid
WHERE mv.name = N'wait_types'
  AND p.name = N'sqlos';

SELECT package = p.name, o.name
FROM sys.dm_xe_objects AS o
JOIN sys.dm_xe_packages AS p ON p.guid = o.package_guid
WHERE o.object_type = N'event'
  AND o.name IN (N'wait_info', N'wait_info_external', N'backup_restore_progress_trace',
                 N'databases_backup_restore_throughput', N'database_backup_restore_throughput')
  AND (o.capabilities_desc IS NULL OR o.capabilities_desc NOT LIKE N'%private%');

SELECT c.object_name, c.name
FROM sys.dm_xe_object_columns AS c
JOIN sys.dm_xe_packages AS p ON p.guid = c.object_package_guid
WHERE p.name = N'sqlos'
  AND c.object_name IN (N'wait_info', N'wait_info_external')
  AND c.name IN (N'wait_type', N'opcode')
  AND c.column_type = N'data';
