using System.Globalization;
using BackupXe.SqlServer.Client;
using Microsoft.Data.SqlClient;

namespace BackupXe.History;

/// <summary>
/// The central repository's tune table (<c>dbo.tune_runs</c>, migrations 2 and 3 of
/// <c>sessions/backupxe-history-sqlserver.sql</c>) as <c>tune --history-server/--history-database</c> uses it: before
/// any trial the login's permissions are read, and only then, when the table is missing and the login may create it, is
/// it created (the script's migrations 2 and 3, the same columns and unique key); a tune with restore trials whose table
/// predates migration 3 gets the restore columns added only when the login has ALTER on the table. A login that may not
/// gets the GRANT or the script named and nothing runs. The row itself is written by
/// <see cref="SqlServerHistoryStore.SaveTuneAsync"/>.
/// </summary>
public sealed class SqlServerTuneRepository(SqlConnectionFactory connections)
{
    /// <summary>
    /// Whether the table exists, and the login's permissions for what comes next: INSERT and SELECT on it (the insert's
    /// NOT EXISTS reads it), or CREATE TABLE in the database and ALTER on the dbo schema to create it; whether it has
    /// migration 3's restore columns (COL_LENGTH, NULL for a missing column) and ALTER on it to add them.
    /// HAS_PERMS_BY_NAME answers NULL for an object that does not exist, taken as 0.
    /// </summary>
    public const string ReadyQuery = """
        SET NOCOUNT ON;
        SELECT
            CONVERT(int, CASE WHEN OBJECT_ID(N'[dbo].[tune_runs]', N'U') IS NULL THEN 0 ELSE 1 END) AS table_exists,
            CONVERT(int, ISNULL(HAS_PERMS_BY_NAME(N'[dbo].[tune_runs]', N'OBJECT', N'INSERT'), 0)) AS can_insert,
            CONVERT(int, ISNULL(HAS_PERMS_BY_NAME(N'[dbo].[tune_runs]', N'OBJECT', N'SELECT'), 0)) AS can_select,
            CONVERT(int, ISNULL(HAS_PERMS_BY_NAME(DB_NAME(), N'DATABASE', N'CREATE TABLE'), 0)) AS can_create_table,
            CONVERT(int, ISNULL(HAS_PERMS_BY_NAME(N'dbo', N'SCHEMA', N'ALTER'), 0)) AS can_alter_schema,
            USER_NAME() AS user_name,
            DB_NAME() AS database_name,
            CONVERT(int, CASE WHEN COL_LENGTH(N'dbo.tune_runs', N'restore_best_mbps') IS NULL
                OR COL_LENGTH(N'dbo.tune_runs', N'restore_defaults_mbps') IS NULL THEN 0 ELSE 1 END) AS restore_columns,
            CONVERT(int, ISNULL(HAS_PERMS_BY_NAME(N'[dbo].[tune_runs]', N'OBJECT', N'ALTER'), 0)) AS can_alter_table;
        """;

    /// <summary>
    /// Migrations 2 and 3 of the repository script in one table, run only after <see cref="ReadyQuery"/> found the table
    /// missing and the permissions granted.
    /// </summary>
    public const string CreateTuneTable = """
        SET NOCOUNT ON;
        IF OBJECT_ID(N'[dbo].[tune_runs]', N'U') IS NULL
        BEGIN
            CREATE TABLE [dbo].[tune_runs] (
                [id]                bigint IDENTITY(1, 1) NOT NULL CONSTRAINT [pk_tune_runs] PRIMARY KEY,
                [instance_name]     nvarchar(128)  NOT NULL,
                [database_name]     sysname        NOT NULL,
                [tuned_at]          datetime2(7)   NOT NULL,
                [best_mbps]         float          NULL,
                [baseline_mbps]     float          NULL,
                [read_ceiling_mbps] float          NULL,
                [restore_best_mbps]     float      NULL,
                [restore_defaults_mbps] float      NULL,
                [tune_json]         nvarchar(max)  NOT NULL,
                [recorded_at]       datetime2(7)   NOT NULL CONSTRAINT [df_tune_runs_recorded_at] DEFAULT SYSUTCDATETIME()
            );
            CREATE UNIQUE INDEX [ux_tune_runs_identity]
                ON [dbo].[tune_runs] ([instance_name], [database_name], [tuned_at])
                WITH (IGNORE_DUP_KEY = ON);
        END;
        """;

    /// <summary>
    /// Migration 3 of the repository script on an existing table: the restore trials' two nullable columns, existing rows
    /// keeping NULL; run only after <see cref="ReadyQuery"/> found them missing and ALTER on the table granted. Each is
    /// added only while missing, so a DBA's run of the script meanwhile is left alone.
    /// </summary>
    public const string AddRestoreColumns = """
        SET NOCOUNT ON;
        IF COL_LENGTH(N'dbo.tune_runs', N'restore_best_mbps') IS NULL
            ALTER TABLE [dbo].[tune_runs] ADD [restore_best_mbps] float NULL;
        IF COL_LENGTH(N'dbo.tune_runs', N'restore_defaults_mbps') IS NULL
            ALTER TABLE [dbo].[tune_runs] ADD [restore_defaults_mbps] float NULL;
        """;

    /// <summary>
    /// Makes the repository ready to take a tune: null when it is (the table created first if it was missing), else one
    /// line saying what the login lacks and the GRANT, or the script, that gives it. Nothing is changed unless every
    /// permission needed is there. With <paramref name="restoreTrials"/> the table must take the restore columns too: a
    /// table from before migration 3 gets them added (ALTER on the table checked first); without, it is used as it is.
    /// </summary>
    /// <exception cref="HistoryStoreException">The repository cannot be reached or read.</exception>
    public async Task<string?> PrepareAsync(bool restoreTrials, CancellationToken cancellationToken)
    {
        try
        {
            await using var connection = await connections.OpenAsync(cancellationToken);
            Ready ready;
            await using (var command = connections.Command(connection, ReadyQuery))
            await using (var reader = await command.ExecuteReaderAsync(cancellationToken))
            {
                if (!await reader.ReadAsync(cancellationToken))
                {
                    throw new HistoryStoreException("The central history repository did not answer its permission check.");
                }

                ready = new Ready(reader.GetInt32(0) == 1, reader.GetInt32(1) == 1, reader.GetInt32(2) == 1, reader.GetInt32(3) == 1, reader.GetInt32(4) == 1,
                    reader.IsDBNull(5) ? null : reader.GetString(5), reader.IsDBNull(6) ? connections.Settings.Database : reader.GetString(6),
                    reader.GetInt32(7) == 1, reader.GetInt32(8) == 1);
            }

            var user = ready.User is { } name ? Bracket(name) : "[<user>]";
            var where = $"in the repository database {Bracket(ready.Database)}";
            if (ready.TableExists)
            {
                if (!ready.CanInsert || !ready.CanSelect)
                {
                    return $"The login cannot write tunes to [dbo].[tune_runs] {where} (it needs INSERT and SELECT on it): GRANT INSERT, SELECT ON [dbo].[tune_runs] TO {user};";
                }

                if (!restoreTrials || ready.RestoreColumns)
                {
                    return null;
                }

                if (!ready.CanAlterTable)
                {
                    return $"[dbo].[tune_runs] {where} predates the restore trials' columns (migration 3), and the login may not add them (ALTER on the table): "
                        + $"run sessions/backupxe-history-sqlserver.sql there, or GRANT ALTER ON [dbo].[tune_runs] TO {user};";
                }

                await using var alter = connections.Command(connection, AddRestoreColumns);
                await alter.ExecuteNonQueryAsync(cancellationToken);
                return null;
            }

            if (!ready.CanCreateTable || !ready.CanAlterSchema)
            {
                return $"[dbo].[tune_runs] does not exist {where}, and the login may not create it (CREATE TABLE in the database and ALTER on the dbo schema): "
                    + $"run sessions/backupxe-history-sqlserver.sql there, or GRANT CREATE TABLE TO {user}; GRANT ALTER ON SCHEMA::[dbo] TO {user};";
            }

            await using var create = connections.Command(connection, CreateTuneTable);
            await create.ExecuteNonQueryAsync(cancellationToken);
            return null;
        }
        catch (SqlException exception)
        {
            throw new HistoryStoreException(
                string.Create(CultureInfo.InvariantCulture, $"The central history repository cannot be used: {BackupXe.SqlServer.ConnectionStringRedactor.RedactMessage(exception.Message)}"), exception);
        }
    }

    /// <summary>A name as a bracketed identifier, ']' doubled (QUOTENAME's rule), for the GRANT a DBA runs.</summary>
    private static string Bracket(string name) => "[" + name.Replace("]", "]]", StringComparison.Ordinal) + "]";

    private sealed record Ready(
        bool TableExists, bool CanInsert, bool CanSelect, bool CanCreateTable, bool CanAlterSchema, string? User, string Database, bool RestoreColumns, bool CanAlterTable);
}
