using System.Data;
using System.Runtime.CompilerServices;
using BackupXe.Core.History;
using BackupXe.SqlServer.Client;
using Microsoft.Data.SqlClient;

namespace BackupXe.SqlServer.Msdb;

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

    /// <summary>The whole history in one list: for a small one (a test, a chain check); an import streams it (<see cref="ReadAsync(ServerHistoryRequest, Func{string, IAsyncEnumerable{HistoryOperation}, Task}, CancellationToken)"/>).</summary>
    public async Task<ServerHistory> ReadAsync(ServerHistoryRequest request, CancellationToken cancellationToken)
    {
        var operations = new List<HistoryOperation>();
        var read = await ReadAsync(request, async (_, records) =>
        {
            await foreach (var record in records.WithCancellation(cancellationToken))
            {
                operations.Add(record);
            }
        }, cancellationToken);
        return read with { Operations = operations };
    }

    /// <summary>
    /// Reads the history and hands its operations to <paramref name="store"/> as the rows arrive, msdb's then each
    /// CommandLog's, with the server's name: memory holds the row being stored, not the history. The counts and notes
    /// of the result are whole once <paramref name="store"/> has taken every operation; its Operations is empty.
    /// </summary>
    public async Task<ServerHistory> ReadAsync(
        ServerHistoryRequest request, Func<string, IAsyncEnumerable<HistoryOperation>, Task> store, CancellationToken cancellationToken)
    {
        await using var connection = await factory.OpenAsync(cancellationToken);
        var serverName = (string?)await ScalarAsync(connection, ServerNameQuery, cancellationToken) ?? factory.Settings.Server;
        var counts = new Counts();
        await store(serverName, OperationsAsync(connection, request, counts, cancellationToken));
        return new ServerHistory(serverName, [], counts.FromMsdb, counts.CommandLogs, counts.Notes);
    }

    private async IAsyncEnumerable<HistoryOperation> OperationsAsync(
        SqlConnection connection, ServerHistoryRequest request, Counts counts, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        var notes = counts.Notes;
        var columns = await ColumnsAsync(connection, cancellationToken);
        var currentNames = await CurrentNamesAsync(connection, notes, cancellationToken);
        var groups = await GroupDatabasesAsync(connection, notes, cancellationToken);
        var guids = currentNames.Where(n => request.Databases.Contains(n.Value, StringComparer.OrdinalIgnoreCase)).Select(n => n.Key).ToList();
        await using (var command = Command(connection, MsdbBackupHistory.Query(columns, request.Databases.Count, guids.Count), request, SqlDbType.DateTime))
        {
            for (var i = 0; i < guids.Count; i++)
            {
                command.Parameters.Add($"@g{i}", SqlDbType.UniqueIdentifier).Value = guids[i];
            }

            await using var reader = await command.ExecuteReaderAsync(cancellationToken);
            await foreach (var operation in MsdbBackupHistory.ReadAsync(reader, columns, currentNames, cancellationToken, notes, groups))
            {
                counts.FromMsdb++;
                yield return operation;
            }
        }

        foreach (var database in await CommandLogDatabasesAsync(connection, request.CommandLogDatabase, notes, cancellationToken))
        {
            var thirdParty = new Dictionary<string, int>(StringComparer.OrdinalIgnoreCase);
            var read = 0;
            SqlException? failure = null;
            await using (var command = Command(connection, CommandLogHistory.Query(database, request.Databases.Count), request, SqlDbType.DateTime2))
            {
                SqlDataReader? reader = null;
                try
                {
                    reader = await command.ExecuteReaderAsync(cancellationToken);
                }
                catch (SqlException exception) when (IsStatementError(exception))
                {
                    failure = exception;
                }

                if (reader is not null)
                {
                    await using (reader)
                    {
                        var rows = CommandLogHistory.ReadAsync(reader, thirdParty, cancellationToken).GetAsyncEnumerator(cancellationToken);
                        await using (rows)
                        {
                            while (true)
                            {
                                var (more, error) = await NextAsync(rows);
                                if (!more)
                                {
                                    failure = error;
                                    break;
                                }

                                read++;
                                yield return rows.Current;
                            }
                        }
                    }
                }
            }

            if (failure is not null)
            {
                // One database this replica cannot read (a non-readable availability-group secondary) is skipped, not the import.
                notes.Add(NotRead(database, failure, read));
                continue;
            }

            counts.CommandLogs.Add((database, read));
            if (CommandLogHistory.ThirdPartyNote(database, thirdParty) is { } note)
            {
                notes.Add(note);
            }
        }
    }

    // A statement error part-way through a CommandLog ends that database's rows, not the import.
    private static async Task<(bool More, SqlException? Failure)> NextAsync(IAsyncEnumerator<HistoryOperation> rows)
    {
        try
        {
            return (await rows.MoveNextAsync(), null);
        }
        catch (SqlException exception) when (IsStatementError(exception))
        {
            return (false, exception);
        }
    }

    /// <summary>What the rows streamed so far came from.</summary>
    private sealed class Counts
    {
        public int FromMsdb { get; set; }

        public List<(string Database, int Operations)> CommandLogs { get; } = [];

        public List<string> Notes { get; } = [];
    }

    /// <summary>How many AUTO_CLOSE databases a note names before it says "and N more".</summary>
    private const int NamedInNote = 5;

    /// <summary>
    /// Today's name of every online database by its GUID, leaving out those with AUTO_CLOSE on (reading
    /// sys.database_recovery_status starts a database that is not open; the page says so): their backups keep the
    /// name msdb recorded, and a note names them.
    /// </summary>
    private async Task<IReadOnlyDictionary<Guid, string>> CurrentNamesAsync(SqlConnection connection, List<string> notes, CancellationToken cancellationToken)
    {
        var open = new List<(int Id, string Name)>();
        var autoClose = new List<string>();
        await using (var command = factory.Command(connection, MsdbBackupHistory.DatabasesQuery))
        await using (var reader = await command.ExecuteReaderAsync(cancellationToken))
        {
            while (await reader.ReadAsync(cancellationToken))
            {
                var name = reader.GetString(1);
                if (reader.GetInt32(2) == 1)
                {
                    autoClose.Add(name);
                }
                else
                {
                    open.Add((reader.GetInt32(0), name));
                }
            }
        }

        var names = new Dictionary<Guid, string>();
        foreach (var (id, name) in open)
        {
            await using var command = factory.Command(connection, MsdbBackupHistory.GuidQuery);
            command.Parameters.Add("@database_id", SqlDbType.Int).Value = id;
            if (await command.ExecuteScalarAsync(cancellationToken) is string text && Guid.TryParse(text, out var guid))
            {
                names[guid] = name;
            }
        }

        if (autoClose.Count > 0)
        {
            notes.Add(AutoCloseNote(autoClose, "renamed databases are matched to their current names except in {0}: "
                + "their backups keep the name msdb recorded (reading their GUID would open them)"));
        }

        return names;
    }

    /// <summary>SQL Server's error for a column name it does not know: group_database_id before SQL Server 2012, which had no availability groups.</summary>
    private const int InvalidColumnName = 207;

    /// <summary>
    /// The availability group databases on this server by name, with their group_database_id; none before SQL Server 2012.
    /// A login that cannot read them gets a note: its group databases are then judged per replica.
    /// </summary>
    private async Task<IReadOnlyDictionary<string, Guid>> GroupDatabasesAsync(SqlConnection connection, List<string> notes, CancellationToken cancellationToken)
    {
        var groups = new Dictionary<string, Guid>(StringComparer.OrdinalIgnoreCase);
        try
        {
            await using var command = factory.Command(connection, MsdbBackupHistory.GroupDatabasesQuery);
            await using var reader = await command.ExecuteReaderAsync(cancellationToken);
            while (await reader.ReadAsync(cancellationToken))
            {
                if (!reader.IsDBNull(0) && DatabaseIdentity.Parse(reader.IsDBNull(1) ? null : reader.GetString(1)) is { } id)
                {
                    groups[reader.GetString(0)] = id;
                }
            }
        }
        catch (SqlException failure) when (IsStatementError(failure))
        {
            if (failure.Number != InvalidColumnName)
            {
                notes.Add($"sys.databases.group_database_id not read (error {failure.Number}: {FirstLine(failure.Message)}): availability group databases are judged per replica");
            }
        }

        if (groups.Count > 0)
        {
            var named = string.Join(", ", groups.Keys.Order(StringComparer.OrdinalIgnoreCase).Take(NamedInNote).Select(CommandLogHistory.QuoteName));
            var more = groups.Count > NamedInNote ? $" and {groups.Count - NamedInNote} more" : string.Empty;
            notes.Add($"{groups.Count} database(s) in an availability group ({named}{more}): their backups keep its group_database_id, so `fleet` takes them with the other replicas' backups imported into the same history");
        }

        return groups;
    }

    private static string AutoCloseNote(IReadOnlyList<string> databases, string format)
    {
        var named = string.Join(", ", databases.Take(NamedInNote).Select(CommandLogHistory.QuoteName));
        var more = databases.Count > NamedInNote ? $" and {databases.Count - NamedInNote} more" : string.Empty;
        return string.Format(System.Globalization.CultureInfo.InvariantCulture, format,
            $"{databases.Count} database(s) with AUTO_CLOSE on ({named}{more})");
    }

    private static string NotRead(string database, SqlException failure, int rowsRead = 0) => rowsRead == 0
        ? $"{CommandLogHistory.QuoteName(database)}.dbo.CommandLog not read (error {failure.Number}: {FirstLine(failure.Message)}); the other sources were imported"
        : $"{CommandLogHistory.QuoteName(database)}.dbo.CommandLog read in part, {rowsRead} operation(s) before error {failure.Number} ({FirstLine(failure.Message)}); the other sources were imported";

    private static string FirstLine(string text) => text.Split('\n', 2)[0].Trim();

    // A statement error leaves the connection usable for the next database; class 20+ has closed it.
    private static bool IsStatementError(SqlException failure) => failure.Class < 20;

    private async Task<MsdbColumns> ColumnsAsync(SqlConnection connection, CancellationToken cancellationToken)
    {
        await using var command = factory.Command(connection, MsdbBackupHistory.ColumnsQuery);
        await using var reader = await command.ExecuteReaderAsync(cancellationToken);
        if (!await reader.ReadAsync(cancellationToken))
        {
            return new MsdbColumns(false, false, false);
        }

        return new MsdbColumns(!reader.IsDBNull(0), !reader.IsDBNull(1), !reader.IsDBNull(2), !reader.IsDBNull(3));
    }

    private async Task<IReadOnlyList<string>> CommandLogDatabasesAsync(
        SqlConnection connection, string? named, List<string> notes, CancellationToken cancellationToken)
    {
        if (named is not null)
        {
            if (!await HasCommandLogAsync(connection, named, notes, cancellationToken))
            {
                if (!notes.Any(n => n.StartsWith(CommandLogHistory.QuoteName(named), StringComparison.Ordinal)))
                {
                    notes.Add($"no dbo.CommandLog in {CommandLogHistory.QuoteName(named)} (or no access to it)");
                }

                return [];
            }

            return [named];
        }

        var candidates = new List<string>();
        var autoClose = new List<string>();
        await using (var command = factory.Command(connection, CommandLogHistory.FindQuery))
        await using (var reader = await command.ExecuteReaderAsync(cancellationToken))
        {
            while (await reader.ReadAsync(cancellationToken))
            {
                if (reader.GetInt32(1) == 1)
                {
                    autoClose.Add(reader.GetString(0));
                }
                else if (!reader.IsDBNull(2) && reader.GetInt32(2) == 1)
                {
                    candidates.Add(reader.GetString(0));
                }
            }
        }

        var found = new List<string>();
        foreach (var database in candidates)
        {
            if (await HasCommandLogAsync(connection, database, notes, cancellationToken))
            {
                found.Add(database);
            }
        }

        if (autoClose.Count > 0)
        {
            notes.Add(AutoCloseNote(autoClose, "{0} not looked into for a dbo.CommandLog (looking would open them): name one with --command-log (the daemon: HistoryImport:CommandLogDatabase)"));
        }

        if (found.Count == 0)
        {
            notes.Add("no dbo.CommandLog in any database this login can use: msdb only");
        }

        return found;
    }

    /// <summary>Whether <paramref name="database"/> has a dbo.CommandLog; a database this replica cannot read is a note, not a failure.</summary>
    private async Task<bool> HasCommandLogAsync(SqlConnection connection, string database, List<string> notes, CancellationToken cancellationToken)
    {
        await using var exists = factory.Command(connection, CommandLogHistory.ExistsQuery);
        exists.Parameters.Add("@database", SqlDbType.NVarChar, 128).Value = database;
        try
        {
            return await exists.ExecuteScalarAsync(cancellationToken) is not (null or DBNull);
        }
        catch (SqlException failure) when (IsStatementError(failure))
        {
            notes.Add(NotRead(database, failure));
            return false;
        }
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
