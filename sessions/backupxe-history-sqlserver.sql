-- BackupXe central history repository (SQL Server 2016+), the counterpart of the daemon's SQLite table.
-- Re-runnable: every object is created only when missing. Run it in the repository database.
-- Note: BackupXe does not write here yet (the SQL Server history store is not built; the client library is);
-- History:Provider "sqlserver" is rejected at start-up until it is. See docs/history.md.

IF OBJECT_ID(N'dbo.operations', N'U') IS NULL
BEGIN
    CREATE TABLE dbo.operations (
        id               bigint IDENTITY(1, 1) NOT NULL CONSTRAINT pk_operations PRIMARY KEY,
        instance_name    nvarchar(128)  NOT NULL,
        database_name    sysname        NULL,
        kind             varchar(16)    NOT NULL,   -- backup | restore
        scope            varchar(16)    NULL,       -- database | log | differential | file
        start_time       datetime2(7)   NOT NULL,
        end_time         datetime2(7)   NULL,
        session_id       int            NULL,
        status           varchar(16)    NOT NULL,   -- completed | failed | incomplete
        duration_seconds float          NULL,
        throughput_mbps  float          NULL,
        bottleneck       varchar(32)    NULL,
        confidence       varchar(16)    NULL,
        report_json      nvarchar(max)  NOT NULL,   -- the full OperationReport (ReportJson)
        recorded_at      datetime2(7)   NOT NULL CONSTRAINT df_operations_recorded_at DEFAULT SYSUTCDATETIME(),
        -- Persisted so that the unique index below can treat NULL parts of the key as equal values.
        database_key     AS ISNULL(database_name, N'') PERSISTED,
        session_key      AS ISNULL(session_id, -1) PERSISTED
    );
END;
GO

IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'dbo.operations') AND name = N'ux_operations_identity')
    -- IGNORE_DUP_KEY: a restarted daemon re-sends what it had already stored; those rows are dropped, not errors.
    CREATE UNIQUE INDEX ux_operations_identity
        ON dbo.operations (instance_name, database_key, kind, start_time, session_key)
        WITH (IGNORE_DUP_KEY = ON);
GO

IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'dbo.operations') AND name = N'ix_operations_series')
    CREATE INDEX ix_operations_series
        ON dbo.operations (instance_name, database_name, kind, scope, start_time)
        INCLUDE (status, throughput_mbps);
GO

-- Migration 1 (history import, docs/history.md): which sources saw each operation, and the merged history record.
IF COL_LENGTH(N'dbo.operations', N'sources') IS NULL
    ALTER TABLE dbo.operations ADD sources varchar(64) NULL;   -- msdb,command-log,ola-output,capture
GO

IF COL_LENGTH(N'dbo.operations', N'history_json') IS NULL
    ALTER TABLE dbo.operations ADD history_json nvarchar(max) NULL;
GO
