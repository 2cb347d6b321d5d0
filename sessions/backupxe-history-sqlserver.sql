-- BackupXe central history repository (SQL Server 2016+), the counterpart of the daemon's SQLite table.
-- Re-runnable: every object is created only when missing. Run it in the repository database.
-- Versioned: dbo.backupxe_schema holds the last migration applied (docs/history.md, "Storage: migrations"); every
-- migration only adds, so a daemon built before one keeps working.

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

-- Migration 2 (tune runs, docs/history.md): one row per `backupxe tune`, the full result in tune_json.
IF OBJECT_ID(N'dbo.tune_runs', N'U') IS NULL
BEGIN
    CREATE TABLE dbo.tune_runs (
        id                bigint IDENTITY(1, 1) NOT NULL CONSTRAINT pk_tune_runs PRIMARY KEY,
        instance_name     nvarchar(128)  NOT NULL,
        database_name     sysname        NOT NULL,
        tuned_at          datetime2(7)   NOT NULL,   -- UTC
        best_mbps         float          NULL,
        baseline_mbps     float          NULL,
        read_ceiling_mbps float          NULL,
        tune_json         nvarchar(max)  NOT NULL,   -- the TuneRecord (ReportJson)
        recorded_at       datetime2(7)   NOT NULL CONSTRAINT df_tune_runs_recorded_at DEFAULT SYSUTCDATETIME()
    );
END;
GO

IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'dbo.tune_runs') AND name = N'ux_tune_runs_identity')
    CREATE UNIQUE INDEX ux_tune_runs_identity
        ON dbo.tune_runs (instance_name, database_name, tuned_at)
        WITH (IGNORE_DUP_KEY = ON);
GO

-- Migration 3 (restore trials of a tune, docs/history.md): their best and defaults rates; the trials are in tune_json.
-- Nullable, so rows stored before keep NULL and a build before it keeps inserting without them.
IF COL_LENGTH(N'dbo.tune_runs', N'restore_best_mbps') IS NULL
    ALTER TABLE dbo.tune_runs ADD restore_best_mbps float NULL;
GO

IF COL_LENGTH(N'dbo.tune_runs', N'restore_defaults_mbps') IS NULL
    ALTER TABLE dbo.tune_runs ADD restore_defaults_mbps float NULL;
GO

-- Migration 4 (the fleet, docs/fleet.md): the counterpart of the SQLite history's migration 5 (a backup's LSNs as
-- digits, its recovery model and its availability group's group_database_id, indexed where not NULL), and one lease per
-- instance, so that several daemons sharing this store never poll the same instance ("Several daemons, one store").
IF COL_LENGTH(N'dbo.operations', N'first_lsn') IS NULL
    ALTER TABLE dbo.operations ADD first_lsn varchar(25) NULL;   -- numeric(25,0) as digits, as msdb gives it
GO

IF COL_LENGTH(N'dbo.operations', N'last_lsn') IS NULL
    ALTER TABLE dbo.operations ADD last_lsn varchar(25) NULL;
GO

IF COL_LENGTH(N'dbo.operations', N'recovery_model') IS NULL
    ALTER TABLE dbo.operations ADD recovery_model varchar(16) NULL;   -- FULL | BULK_LOGGED | SIMPLE
GO

IF COL_LENGTH(N'dbo.operations', N'group_database_id') IS NULL
    ALTER TABLE dbo.operations ADD group_database_id uniqueidentifier NULL;
GO

IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'dbo.operations') AND name = N'ix_operations_group_database')
    CREATE INDEX ix_operations_group_database
        ON dbo.operations (group_database_id) WHERE group_database_id IS NOT NULL;
GO

IF OBJECT_ID(N'dbo.instance_leases', N'U') IS NULL
BEGIN
    CREATE TABLE dbo.instance_leases (
        instance_name nvarchar(128) NOT NULL CONSTRAINT pk_instance_leases PRIMARY KEY,
        holder        nvarchar(256) NOT NULL,   -- the daemon holding it (a random part, host, process)
        expires_at    datetime2(7)  NOT NULL,   -- UTC, on this server's clock (SYSUTCDATETIME())
        renewed_at    datetime2(7)  NOT NULL
    );
END;
GO

-- Migration 5 (restore drills, docs/history.md; 4 is the fleet's): one row per drill, the phases in drill_json, as
-- the SQLite history's restore_drills.
IF OBJECT_ID(N'dbo.restore_drills', N'U') IS NULL
BEGIN
    CREATE TABLE dbo.restore_drills (
        id              bigint IDENTITY(1, 1) NOT NULL CONSTRAINT pk_restore_drills PRIMARY KEY,
        instance_name   nvarchar(128)  NOT NULL,   -- the source instance
        database_name   nvarchar(128)  NOT NULL,
        scratch_name    nvarchar(128)  NOT NULL,
        drilled_at      datetime2(7)   NOT NULL,   -- UTC
        status          nvarchar(16)   NOT NULL,   -- completed, failed, cancelled
        restore_seconds float          NOT NULL,
        total_seconds   float          NOT NULL,
        drill_json      nvarchar(max)  NOT NULL,   -- the StoredDrill (ReportJson)
        recorded_at     datetime2(7)   NOT NULL CONSTRAINT df_restore_drills_recorded_at DEFAULT SYSUTCDATETIME()
    );
END;
GO

IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'dbo.restore_drills') AND name = N'ux_restore_drills_identity')
    CREATE UNIQUE INDEX ux_restore_drills_identity
        ON dbo.restore_drills (instance_name, database_name, drilled_at)
        WITH (IGNORE_DUP_KEY = ON);
GO

-- Migration 6 (msdb imports into this store, docs/fleet.md): the counterparts of the SQLite history's replica_roles and
-- msdb_restores, so that `fleet` judges the same things here. A backup set's LSNs and recovery model already have
-- migration 4's columns on dbo.operations, its whole record migration 1's history_json.
IF OBJECT_ID(N'dbo.replica_roles', N'U') IS NULL
BEGIN
    -- The newest role each replica gave: one row per instance and group database, replaced at each import.
    CREATE TABLE dbo.replica_roles (
        instance_name     nvarchar(128)    NOT NULL,
        database_name     nvarchar(128)    NOT NULL,
        group_database_id uniqueidentifier NOT NULL,
        group_name        nvarchar(128)    NOT NULL,
        role              nvarchar(60)     NULL,   -- PRIMARY | SECONDARY | RESOLVING
        backup_preference nvarchar(60)     NULL,   -- the group's automated_backup_preference_desc
        backup_priority   int              NULL,
        is_preferred      bit              NULL,   -- sys.fn_hadr_backup_is_preferred_replica
        read_at           datetime2(7)     NOT NULL,   -- UTC
        CONSTRAINT pk_replica_roles PRIMARY KEY (instance_name, group_database_id)
    );
END;
GO

IF OBJECT_ID(N'dbo.msdb_restores', N'U') IS NULL
BEGIN
    -- msdb restorehistory's full database restores with the backup set each read; when, never how long.
    CREATE TABLE dbo.msdb_restores (
        instance_name              nvarchar(128)  NOT NULL,
        database_name              nvarchar(128)  NOT NULL,
        restored_at                datetime2(7)   NOT NULL,   -- restore_date, the server's local time
        is_replace                 bit            NULL,
        source_database            nvarchar(128)  NOT NULL,
        source_type                char(1)        NOT NULL,
        source_copy_only           bit            NOT NULL,
        source_first_lsn           varchar(25)    NOT NULL,   -- numeric(25,0) as digits, as migration 4 keeps them
        source_last_lsn            varchar(25)    NOT NULL,
        source_database_backup_lsn varchar(25)    NULL,
        source_checkpoint_lsn      varchar(25)    NULL,
        source_recovery_model      nvarchar(60)   NULL,
        source_start               datetime2(7)   NOT NULL,   -- the server's local time
        source_finish              datetime2(7)   NOT NULL,
        source_backup_size         bigint         NULL,
        source_compressed_size     bigint         NULL,
        imported_at                datetime2(7)   NOT NULL CONSTRAINT df_msdb_restores_imported_at DEFAULT SYSUTCDATETIME(),
        -- IGNORE_DUP_KEY: an import read again adds nothing.
        CONSTRAINT pk_msdb_restores PRIMARY KEY (instance_name, database_name, restored_at) WITH (IGNORE_DUP_KEY = ON)
    );
END;
GO

-- The version of this script last applied: 6 (migration 1, history import; migration 2, tune runs; migration 3,
-- restore trials; migration 4, the fleet's columns and instance leases; migration 5, restore drills; migration 6,
-- replica roles and msdb's restores).
IF OBJECT_ID(N'dbo.backupxe_schema', N'U') IS NULL
    CREATE TABLE dbo.backupxe_schema (version int NOT NULL);
GO

IF NOT EXISTS (SELECT 1 FROM dbo.backupxe_schema)
    INSERT INTO dbo.backupxe_schema (version) VALUES (6);
ELSE
    UPDATE dbo.backupxe_schema SET version = 6 WHERE version < 6;
GO
