/*
    Removes the BackupXe capture session. Re-runnable: does nothing when the session is not there.
    The .xel files it wrote stay on disk (the server never deletes event_file output); remove them by hand.
*/
SET NOCOUNT ON;

DECLARE @SessionName sysname = N'BackupXe';

DECLARE @Stop nvarchar(max) = N'ALTER EVENT SESSION ' + QUOTENAME(@SessionName) + N' ON SERVER STATE = STOP;';
DECLARE @Drop nvarchar(max) = N'DROP EVENT SESSION ' + QUOTENAME(@SessionName) + N' ON SERVER;';

-- Stopping first flushes the buffers to the file target, so the last events are kept.
IF EXISTS (SELECT 1 FROM sys.dm_xe_sessions WHERE name = @SessionName)
    EXEC sys.sp_executesql @Stop;

IF EXISTS (SELECT 1 FROM sys.server_event_sessions WHERE name = @SessionName)
    EXEC sys.sp_executesql @Drop;
