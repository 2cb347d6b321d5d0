using System.Globalization;
using BackupXe.SqlServer.Client;
using Microsoft.Data.SqlClient;

namespace BackupXe.History;

/// <summary>
/// The central repository's tune table (<c>dbo.tune_runs</c>, migration 2 of <c>sessions/backupxe-history-sqlserver.sql</c>)
/// as <c>tune --history-server/--history-database</c> uses it: before any trial the login's permissions are read, and
/// only then, when the table is missing and the login may create it, is it created (the script's migration 2, the same
/// columns and unique key); a login that may not gets the GRANT or the script named and nothing runs. The row itself is
/// written by <see cref="SqlServerHistoryStore.SaveTuneAsync"/>.
/// </summary>
public sealed class SqlServerTuneRepository(SqlConnectionFactory connections)
{
    /// <summary>
    /// Whether the table exists, and the login's permissions for what comes next: INSERT and SELECT on it (the insert's
    /// NOT EXISTS reads it), or CREATE TABLE in the database and ALTER on the dbo schema to create it. HAS_PERMS_BY_NAME
    /// answers NULL for an object that does not exist, taken as 0.
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
            DB_NAME() AS database_name;
        """;

    /// <summary>Migration 2 of the repository script, run only after <see cref="ReadyQuery"/> found the table missing and the permissions granted.</summary>
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
                [tune_json]         nvarchar(max)  NOT NULL,
                [recorded_at]       datetime2(7)   NOT NULL CONSTRAINT [df_tune_runs_recorded_at] DEFAULT SYSUTCDATETIME()
            );
            CREATE UNIQUE INDEX [ux_tune_runs_identity]
                ON [dbo].[tune_runs] ([instance_name], [database_name], [tuned_at])
                WITH (IGNORE_DUP_KEY = ON);
        END;
        """;

    /// <summary>
    /// Makes the repository ready to take a tune: null when it is (the table created first if it was missing), else one
    /// line saying what the login lacks and the GRANT, or the script, that gives it. Nothing is changed unless every
    /// permission needed is there.
    /// </summary>
    /// <exception cref="HistoryStoreException">The repository cannot be reached or read.</exception>
    public async Task<string?> PrepareAsync(CancellationToken cancellationToken)
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
                    reader.IsDBNull(5) ? null : reader.GetString(5), reader.IsDBNull(6) ? connections.Settings.Database : reader.GetString(6));
            }

            var user = ready.User is { } name ? Bracket(name) : "[<user>]";
            var where = $"in the repository database {Bracket(ready.Database)}";
            if (ready.TableExists)
            {
                return ready.CanInsert && ready.CanSelect
                    ? null
                    : $"The login cannot write tunes to [dbo].[tune_runs] {where} (it needs INSERT and SELECT on it): GRANT INSERT, SELECT ON [dbo].[tune_runs] TO {user};";
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

    private sealed record Ready(bool TableExists, bool CanInsert, bool CanSelect, bool CanCreateTable, bool CanAlterSchema, string? User, string Database);
}
