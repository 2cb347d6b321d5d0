using System.Data;
using BackupXe.Core.History;
using Microsoft.Data.SqlClient;

namespace BackupXe.SqlServer.History;

/// <summary>What to read from a server's own history.</summary>
/// <param name="Since">Backups that started at or after this server-local time.</param>
/// <param name="Databases">Only these databases (empty: all).</param>
/// <param name="CommandLogDatabase">The database holding dbo.CommandLog; null to look in every database the login can use.</param>
public sealed record ServerHistoryRequest(DateTime Since, IReadOnlyList<string> Databases, string? CommandLogDatabase);

/// <summary>A server's history: its name as SERVERPROPERTY('ServerName') gives it (as DatabaseBackup's "Server:" line does), and what each source held.</summary>
public sealed record ServerHistory(string ServerName, IReadOnlyList<HistoryOperation> Operations, int FromMsdb, IReadOnlyList<(string Database, int Operations)> CommandLogs, IReadOnlyList<string> Notes);

/// <summary>
/// Reads msdb's backup history and every dbo.CommandLog over one connection, read-only: SELECTs only, every
/// value passed as a typed parameter, the one database name that goes into query text quoted as QUOTENAME does.
/// </summary>
public sealed class ServerHistoryReader(SqlConnectionFactory factory)
{
    public const string ServerNameQuery = "SELECT CAST(SERVERPROPERTY('ServerName') AS nvarchar(128)) AS server_name;";

    public async Task<ServerHistory> ReadAsync(ServerHistoryRequest request, CancellationToken cancellationToken)
    {
        await using var connection = await factory.OpenAsync(cancellationToken);
        var serverName = (string?)await ScalarAsync(connection, ServerNameQuery, cancellationToken) ?? factory.Settings.Server;
        var operations = new List<HistoryOperation>();
        var notes = new List<string>();

        var columns = await ColumnsAsync(connection, cancellationToken);
        await using (var command = Command(connection, MsdbBackupHistory.Query(columns, request.Databases.Count), request, SqlDbType.DateTime))
        await using (var reader = await command.ExecuteReaderAsync(cancellationToken))
        {
            await foreach (var operation in MsdbBackupHistory.ReadAsync(reader, columns, cancellationToken))
            {
                operations.Add(operation);
            }
        }

        var fromMsdb = operations.Count;
        var logs = new List<(string, int)>();
        foreach (var database in await CommandLogDatabasesAsync(connection, request.CommandLogDatabase, notes, cancellationToken))
        {
            var before = operations.Count;
            await using var command = Command(connection, CommandLogHistory.Query(database, request.Databases.Count), request, SqlDbType.DateTime2);
            await using var reader = await command.ExecuteReaderAsync(cancellationToken);
            await foreach (var operation in CommandLogHistory.ReadAsync(reader, cancellationToken))
            {
                operations.Add(operation);
            }

            logs.Add((database, operations.Count - before));
        }

        return new ServerHistory(serverName, operations, fromMsdb, logs, notes);
    }

    private async Task<MsdbColumns> ColumnsAsync(SqlConnection connection, CancellationToken cancellationToken)
    {
        await using var command = factory.Command(connection, MsdbBackupHistory.ColumnsQuery);
        await using var reader = await command.ExecuteReaderAsync(cancellationToken);
        if (!await reader.ReadAsync(cancellationToken))
        {
            return new MsdbColumns(false, false, false);
        }

        return new MsdbColumns(!reader.IsDBNull(0), !reader.IsDBNull(1), !reader.IsDBNull(2));
    }

    private async Task<IReadOnlyList<string>> CommandLogDatabasesAsync(
        SqlConnection connection, string? named, List<string> notes, CancellationToken cancellationToken)
    {
        if (named is not null)
        {
            await using var exists = factory.Command(connection, CommandLogHistory.ExistsQuery);
            exists.Parameters.Add("@database", SqlDbType.NVarChar, 128).Value = named;
            if (await exists.ExecuteScalarAsync(cancellationToken) is null or DBNull)
            {
                notes.Add($"no dbo.CommandLog in [{named}] (or no access to it)");
                return [];
            }

            return [named];
        }

        var found = new List<string>();
        await using var command = factory.Command(connection, CommandLogHistory.FindQuery);
        await using var reader = await command.ExecuteReaderAsync(cancellationToken);
        while (await reader.ReadAsync(cancellationToken))
        {
            found.Add(reader.GetString(0));
        }

        if (found.Count == 0)
        {
            notes.Add("no dbo.CommandLog in any database this login can use: msdb only");
        }

        return found;
    }

    /// <param name="sinceType">
    /// The type of the column @since is compared with (msdb's backup_start_date is datetime, CommandLog's StartTime
    /// datetime2): a parameter of the column's own type keeps the comparison a plain seek, without a conversion.
    /// </param>
    private SqlCommand Command(SqlConnection connection, string text, ServerHistoryRequest request, SqlDbType sinceType)
    {
        var command = factory.Command(connection, text);
        command.Parameters.Add("@since", sinceType).Value = request.Since;
        for (var i = 0; i < request.Databases.Count; i++)
        {
            command.Parameters.Add($"@d{i}", SqlDbType.NVarChar, 128).Value = request.Databases[i];
        }

        return command;
    }

    private async Task<object?> ScalarAsync(SqlConnection connection, string text, CancellationToken cancellationToken)
    {
        await using var command = factory.Command(connection, text);
        var value = await command.ExecuteScalarAsync(cancellationToken);
        return value is DBNull ? null : value;
    }
}
