using System.Globalization;
using Microsoft.Data.Sqlite;

namespace BackupXe.History;

/// <summary>
/// The SQLite history's versioned migrations (docs/history.md, "Storage: migrations"), applied in order in one write
/// transaction, the file's <c>PRAGMA user_version</c> then set to the last one. Every migration only adds (a nullable
/// column, a table), so a build that knows fewer still reads and writes the file, and a file of a later version is
/// left as it is. A file from before the numbering has user_version 0 and may already hold migration 1's columns:
/// each step checks before it changes anything, so applying one twice changes nothing.
/// </summary>
internal static class SqliteHistorySchema
{
    /// <summary>
    /// 1: <c>sources</c> and <c>history_json</c> on operations (history import); 2: the <c>tune_runs</c> table; 3: the
    /// restore trials' best and defaults rates on tune_runs (the trials themselves are in tune_json); 4: the
    /// <c>restore_drills</c> table (<c>restore-drill --execute</c>, its phases in drill_json); 5: a backup's LSNs, recovery
    /// model and availability group database id on operations (first_lsn, last_lsn as digits, recovery_model,
    /// group_database_id), with an index on the last, so a group's rows are found across instances; 6: the
    /// <c>replica_roles</c> table (each availability group replica's role and backup preference, <see cref="SqliteReplicaRoles"/>);
    /// 7: the <c>msdb_restores</c> table (msdb restorehistory's full database restores, <see cref="SqliteMsdbRestores"/>).
    /// </summary>
    public const int Version = 7;

    private const string MsdbRestores = """
        CREATE TABLE IF NOT EXISTS msdb_restores (
            instance_name              TEXT    NOT NULL,
            database_name              TEXT    NOT NULL,
            restored_at                TEXT    NOT NULL,
            is_replace                 INTEGER NULL,
            source_database            TEXT    NOT NULL,
            source_type                TEXT    NOT NULL,
            source_copy_only           INTEGER NOT NULL,
            source_first_lsn           TEXT    NOT NULL,
            source_last_lsn            TEXT    NOT NULL,
            source_database_backup_lsn TEXT    NULL,
            source_checkpoint_lsn      TEXT    NULL,
            source_recovery_model      TEXT    NULL,
            source_start               TEXT    NOT NULL,
            source_finish              TEXT    NOT NULL,
            source_backup_size         INTEGER NULL,
            source_compressed_size     INTEGER NULL,
            imported_at                TEXT    NOT NULL,
            PRIMARY KEY (instance_name, database_name, restored_at)
        );
        """;

    private const string ReplicaRoles = """
        CREATE TABLE IF NOT EXISTS replica_roles (
            instance_name     TEXT    NOT NULL,
            database_name     TEXT    NOT NULL,
            group_database_id TEXT    NOT NULL,
            group_name        TEXT    NOT NULL,
            role              TEXT    NULL,
            backup_preference TEXT    NULL,
            backup_priority   INTEGER NULL,
            is_preferred      INTEGER NULL,
            read_at           TEXT    NOT NULL,
            PRIMARY KEY (instance_name, group_database_id)
        );
        """;

    private const string GroupDatabaseIndex = """
        CREATE INDEX IF NOT EXISTS ix_operations_group_database
            ON operations (group_database_id) WHERE group_database_id IS NOT NULL;
        """;

    private const string RestoreDrills = """
        CREATE TABLE IF NOT EXISTS restore_drills (
            id              INTEGER PRIMARY KEY,
            instance_name   TEXT    NOT NULL,
            database_name   TEXT    NOT NULL,
            scratch_name    TEXT    NOT NULL,
            drilled_at      TEXT    NOT NULL,
            status          TEXT    NOT NULL,
            restore_seconds REAL    NOT NULL,
            total_seconds   REAL    NOT NULL,
            drill_json      TEXT    NOT NULL,
            recorded_at     TEXT    NOT NULL
        );
        CREATE UNIQUE INDEX IF NOT EXISTS ux_restore_drills_identity
            ON restore_drills (instance_name, database_name COLLATE NOCASE, drilled_at);
        """;

    private const string TuneRuns = """
        CREATE TABLE IF NOT EXISTS tune_runs (
            id                INTEGER PRIMARY KEY,
            instance_name     TEXT    NOT NULL,
            database_name     TEXT    NOT NULL,
            tuned_at          TEXT    NOT NULL,
            best_mbps         REAL    NULL,
            baseline_mbps     REAL    NULL,
            read_ceiling_mbps REAL    NULL,
            tune_json         TEXT    NOT NULL,
            recorded_at       TEXT    NOT NULL
        );
        CREATE UNIQUE INDEX IF NOT EXISTS ux_tune_runs_identity
            ON tune_runs (instance_name, database_name COLLATE NOCASE, tuned_at);
        """;

    /// <summary>The file's version: 0 before the numbering began.</summary>
    public static async Task<int> VersionAsync(SqliteConnection connection, CancellationToken cancellationToken)
    {
        await using var command = connection.CreateCommand();
        command.CommandText = "PRAGMA user_version;";
        return Convert.ToInt32(await command.ExecuteScalarAsync(cancellationToken), CultureInfo.InvariantCulture);
    }

    /// <summary>Applies the migrations the file lacks, all or none; a no-op on a file at this version or later.</summary>
    public static async Task MigrateAsync(SqliteConnection connection, CancellationToken cancellationToken)
    {
        if (await VersionAsync(connection, cancellationToken) >= Version)
        {
            return;
        }

        // BEGIN IMMEDIATE: two processes migrating at once serialise here, and the second finds the work done.
        await using var transaction = (SqliteTransaction)await connection.BeginTransactionAsync(cancellationToken);
        var version = await VersionAsync(connection, cancellationToken);
        if (version < 1)
        {
            var columns = await ColumnsAsync(connection, transaction, "operations", cancellationToken);
            var migration = (columns.Contains("sources") ? string.Empty : "ALTER TABLE operations ADD COLUMN sources TEXT NULL;")
                + (columns.Contains("history_json") ? string.Empty : "ALTER TABLE operations ADD COLUMN history_json TEXT NULL;");
            await ExecuteAsync(connection, transaction, migration, cancellationToken);
        }

        if (version < 2)
        {
            await ExecuteAsync(connection, transaction, TuneRuns, cancellationToken);
        }

        if (version < 3)
        {
            // Existing rows keep NULL here: a tune stored before restore trials were kept had none in its tune_json either.
            var columns = await ColumnsAsync(connection, transaction, "tune_runs", cancellationToken);
            var migration = (columns.Contains("restore_best_mbps") ? string.Empty : "ALTER TABLE tune_runs ADD COLUMN restore_best_mbps REAL NULL;")
                + (columns.Contains("restore_defaults_mbps") ? string.Empty : "ALTER TABLE tune_runs ADD COLUMN restore_defaults_mbps REAL NULL;");
            await ExecuteAsync(connection, transaction, migration, cancellationToken);
        }

        if (version < 4)
        {
            await ExecuteAsync(connection, transaction, RestoreDrills, cancellationToken);
        }

        if (version < 5)
        {
            // Existing rows keep NULL: their history_json has no LSNs either (nothing read them before this migration).
            var columns = await ColumnsAsync(connection, transaction, "operations", cancellationToken);
            var migration = string.Concat(
                new[] { "first_lsn", "last_lsn", "recovery_model", "group_database_id" }
                    .Where(c => !columns.Contains(c))
                    .Select(c => $"ALTER TABLE operations ADD COLUMN {c} TEXT NULL;"));
            await ExecuteAsync(connection, transaction, migration + GroupDatabaseIndex, cancellationToken);
        }

        if (version < 6)
        {
            await ExecuteAsync(connection, transaction, ReplicaRoles, cancellationToken);
        }

        if (version < 7)
        {
            await ExecuteAsync(connection, transaction, MsdbRestores, cancellationToken);
        }

        if (version < Version)
        {
            await ExecuteAsync(connection, transaction, string.Create(CultureInfo.InvariantCulture, $"PRAGMA user_version = {Version};"), cancellationToken);
        }

        await transaction.CommitAsync(cancellationToken);
    }

    /// <summary>Whether the file has the table of <paramref name="name"/>, for a reader that must not migrate.</summary>
    public static async Task<bool> HasTableAsync(SqliteConnection connection, string name, CancellationToken cancellationToken)
    {
        await using var command = connection.CreateCommand();
        command.CommandText = "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = $name;";
        command.Parameters.AddWithValue("$name", name);
        return Convert.ToInt64(await command.ExecuteScalarAsync(cancellationToken), CultureInfo.InvariantCulture) > 0;
    }

    private static async Task ExecuteAsync(SqliteConnection connection, SqliteTransaction transaction, string sql, CancellationToken cancellationToken)
    {
        if (sql.Length == 0)
        {
            return;
        }

        await using var command = connection.CreateCommand();
        command.Transaction = transaction;
        command.CommandText = sql;
        await command.ExecuteNonQueryAsync(cancellationToken);
    }

    private static async Task<HashSet<string>> ColumnsAsync(SqliteConnection connection, SqliteTransaction transaction, string table, CancellationToken cancellationToken)
    {
        await using var command = connection.CreateCommand();
        command.Transaction = transaction;
        command.CommandText = "SELECT name FROM pragma_table_info($table);";
        command.Parameters.AddWithValue("$table", table);
        var columns = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        await using var reader = await command.ExecuteReaderAsync(cancellationToken);
        while (await reader.ReadAsync(cancellationToken))
        {
            columns.Add(reader.GetString(0));
        }

        return columns;
    }
}
