using System.Globalization;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Live.EventFile;
using Microsoft.Data.Sqlite;

namespace BackupXe.History;

/// <summary>
/// Per-instance positions of the <c>file</c> transport, in their own table of a SQLite file beside the history
/// (docs/history.md). One row per instance, replaced in a single statement, so a kill leaves the old row or the
/// new one, never half of each.
/// </summary>
public sealed class SqliteCheckpointStore : IEventFileCheckpointStore
{
    private const string TimeFormat = "yyyy-MM-dd'T'HH:mm:ss.fffffff";

    private const string Schema = """
        PRAGMA journal_mode = WAL;
        CREATE TABLE IF NOT EXISTS live_checkpoints (
            instance_name  TEXT    NOT NULL PRIMARY KEY,
            after_file     TEXT    NULL,
            after_offset   INTEGER NULL,
            partial_file   TEXT    NULL,
            partial_offset INTEGER NULL,
            partial_rows   INTEGER NOT NULL,
            last_event_utc TEXT    NULL,
            saved_at       TEXT    NOT NULL
        );
        """;

    private readonly string _connectionString;
    private readonly TimeProvider _time;
    private bool _initialized;

    public SqliteCheckpointStore(string path, TimeProvider time)
    {
        Path = System.IO.Path.GetFullPath(path);
        _time = time;
        _connectionString = new SqliteConnectionStringBuilder { DataSource = Path, Mode = SqliteOpenMode.ReadWriteCreate, Pooling = false }.ToString();
    }

    public string Path { get; }

    public async Task<EventFileCheckpoint?> LoadAsync(string instance, CancellationToken cancellationToken)
    {
        await using var connection = await OpenAsync(cancellationToken);
        await using var command = connection.CreateCommand();
        command.CommandText = """
            SELECT after_file, after_offset, partial_file, partial_offset, partial_rows, last_event_utc
            FROM live_checkpoints WHERE instance_name = $instance;
            """;
        command.Parameters.AddWithValue("$instance", instance);
        await using var reader = await command.ExecuteReaderAsync(cancellationToken);
        if (!await reader.ReadAsync(cancellationToken))
        {
            return null;
        }

        return new EventFileCheckpoint(
            reader.IsDBNull(0) ? null : new EventFilePosition(reader.GetString(0), reader.GetInt64(1)),
            reader.IsDBNull(2) ? null : new EventFilePosition(reader.GetString(2), reader.GetInt64(3)),
            reader.GetInt32(4),
            reader.IsDBNull(5) ? null : DateTime.SpecifyKind(DateTime.ParseExact(reader.GetString(5), TimeFormat, CultureInfo.InvariantCulture), DateTimeKind.Utc));
    }

    public async Task SaveAsync(string instance, EventFileCheckpoint checkpoint, CancellationToken cancellationToken)
    {
        await using var connection = await OpenAsync(cancellationToken);
        await using var command = connection.CreateCommand();
        command.CommandText = """
            INSERT INTO live_checkpoints (instance_name, after_file, after_offset, partial_file, partial_offset, partial_rows, last_event_utc, saved_at)
            VALUES ($instance, $after_file, $after_offset, $partial_file, $partial_offset, $partial_rows, $last, $saved)
            ON CONFLICT (instance_name) DO UPDATE SET
                after_file = excluded.after_file, after_offset = excluded.after_offset,
                partial_file = excluded.partial_file, partial_offset = excluded.partial_offset,
                partial_rows = excluded.partial_rows, last_event_utc = excluded.last_event_utc, saved_at = excluded.saved_at;
            """;
        command.Parameters.AddWithValue("$instance", instance);
        command.Parameters.AddWithValue("$after_file", (object?)checkpoint.After?.FileName ?? DBNull.Value);
        command.Parameters.AddWithValue("$after_offset", (object?)checkpoint.After?.FileOffset ?? DBNull.Value);
        command.Parameters.AddWithValue("$partial_file", (object?)checkpoint.Partial?.FileName ?? DBNull.Value);
        command.Parameters.AddWithValue("$partial_offset", (object?)checkpoint.Partial?.FileOffset ?? DBNull.Value);
        command.Parameters.AddWithValue("$partial_rows", checkpoint.PartialRows);
        command.Parameters.AddWithValue("$last", checkpoint.LastEventUtc is { } last ? last.ToString(TimeFormat, CultureInfo.InvariantCulture) : DBNull.Value);
        command.Parameters.AddWithValue("$saved", _time.GetUtcNow().UtcDateTime.ToString(TimeFormat, CultureInfo.InvariantCulture));
        await command.ExecuteNonQueryAsync(cancellationToken);
    }

    private async Task<SqliteConnection> OpenAsync(CancellationToken cancellationToken)
    {
        var connection = new SqliteConnection(_connectionString);
        await connection.OpenAsync(cancellationToken);
        if (!_initialized)
        {
            await using var command = connection.CreateCommand();
            command.CommandText = Schema;
            await command.ExecuteNonQueryAsync(cancellationToken);
            _initialized = true;
        }

        return connection;
    }
}
