using System.Globalization;
using BackupXe.Core.Reporting;
using Microsoft.Data.Sqlite;

namespace BackupXe.Worker.History;

/// <summary>History in a local SQLite file (docs/history.md describes the schema and the dedup key).</summary>
public sealed class SqliteHistoryStore : IHistoryStore
{
    // Sortable as text, so ORDER BY and < compare chronologically; no zone suffix because an ERRORLOG
    // timestamp has none (the report JSON keeps the DateTimeKind).
    private const string TimeFormat = "yyyy-MM-dd'T'HH:mm:ss.fffffff";

    private const string Schema = """
        PRAGMA journal_mode = WAL;
        CREATE TABLE IF NOT EXISTS operations (
            id               INTEGER PRIMARY KEY,
            instance_name    TEXT    NOT NULL,
            database_name    TEXT    NULL,
            kind             TEXT    NOT NULL,
            scope            TEXT    NULL,
            start_time       TEXT    NOT NULL,
            end_time         TEXT    NULL,
            session_id       INTEGER NULL,
            status           TEXT    NOT NULL,
            duration_seconds REAL    NULL,
            throughput_mbps  REAL    NULL,
            bottleneck       TEXT    NULL,
            confidence       TEXT    NULL,
            report_json      TEXT    NOT NULL,
            recorded_at      TEXT    NOT NULL
        );
        -- SQLite treats NULLs as distinct in a UNIQUE index, so the nullable parts of the key are coalesced.
        CREATE UNIQUE INDEX IF NOT EXISTS ux_operations_identity
            ON operations (instance_name, IFNULL(database_name, ''), kind, start_time, IFNULL(session_id, -1));
        CREATE INDEX IF NOT EXISTS ix_operations_series
            ON operations (instance_name, database_name, kind, scope, start_time);
        """;

    private readonly string _connectionString;
    private readonly string _path;
    private readonly TimeProvider _time;

    public SqliteHistoryStore(string path, TimeProvider time)
    {
        _path = Path.GetFullPath(path);
        _time = time;
        _connectionString = new SqliteConnectionStringBuilder
        {
            DataSource = _path,
            Mode = SqliteOpenMode.ReadWriteCreate,
            // A row per finished backup does not need pooled connections, and unpooled ones release the
            // file as soon as they close (a pooled handle keeps it open after the daemon is done with it).
            Pooling = false,
        }.ToString();
    }

    public async Task InitializeAsync(CancellationToken cancellationToken)
    {
        try
        {
            var directory = Path.GetDirectoryName(_path);
            if (!string.IsNullOrEmpty(directory))
            {
                Directory.CreateDirectory(directory);
            }

            await using var connection = await OpenAsync(cancellationToken);
            await using var command = connection.CreateCommand();
            command.CommandText = Schema;
            await command.ExecuteNonQueryAsync(cancellationToken);
        }
        catch (Exception exception) when (exception is SqliteException or IOException or UnauthorizedAccessException)
        {
            throw new HistoryStoreException(
                $"The history file '{_path}' (BackupXe:History:Path) cannot be opened or created: {exception.Message}", exception);
        }
    }

    public async Task<HistoryWrite> SaveAsync(string instance, OperationReport report, CancellationToken cancellationToken)
    {
        if (report.Start is not { } start)
        {
            return HistoryWrite.NoIdentity;
        }

        await using var connection = await OpenAsync(cancellationToken);
        await using var command = connection.CreateCommand();
        command.CommandText = """
            INSERT OR IGNORE INTO operations (
                instance_name, database_name, kind, scope, start_time, end_time, session_id, status,
                duration_seconds, throughput_mbps, bottleneck, confidence, report_json, recorded_at)
            VALUES (
                $instance, $database, $kind, $scope, $start, $end, $session, $status,
                $duration, $throughput, $bottleneck, $confidence, $json, $recorded);
            """;
        command.Parameters.AddWithValue("$instance", instance);
        command.Parameters.AddWithValue("$database", Nullable(report.Database));
        command.Parameters.AddWithValue("$kind", Kebab.Of(report.Kind));
        command.Parameters.AddWithValue("$scope", report.Scope is { } scope ? Kebab.Of(scope) : DBNull.Value);
        command.Parameters.AddWithValue("$start", Format(start));
        command.Parameters.AddWithValue("$end", report.End is { } end ? Format(end) : DBNull.Value);
        command.Parameters.AddWithValue("$session", report.SessionId is { } session ? session : DBNull.Value);
        command.Parameters.AddWithValue("$status", Kebab.Of(report.Status));
        command.Parameters.AddWithValue("$duration", report.DurationSeconds is { } duration ? duration : DBNull.Value);
        command.Parameters.AddWithValue("$throughput", report.ThroughputMBps is { } throughput ? throughput : DBNull.Value);
        command.Parameters.AddWithValue("$bottleneck", report.Verdict is { } verdict ? Kebab.Of(verdict.Bottleneck) : DBNull.Value);
        command.Parameters.AddWithValue("$confidence", report.Verdict is { } v ? Kebab.Of(v.Confidence) : DBNull.Value);
        command.Parameters.AddWithValue("$json", ReportJson.Serialize(report));
        command.Parameters.AddWithValue("$recorded", _time.GetUtcNow().UtcDateTime.ToString(TimeFormat, CultureInfo.InvariantCulture));

        var inserted = await command.ExecuteNonQueryAsync(cancellationToken);
        return inserted == 1 ? HistoryWrite.Added : HistoryWrite.AlreadyStored;
    }

    public async Task<IReadOnlyList<StoredOperation>> RecentCompletedAsync(
        OperationSeries series, DateTime before, int count, CancellationToken cancellationToken)
    {
        await using var connection = await OpenAsync(cancellationToken);
        await using var command = connection.CreateCommand();
        command.CommandText = """
            SELECT instance_name, report_json FROM operations
            WHERE instance_name = $instance AND database_name IS $database AND kind = $kind AND scope IS $scope
              AND status = 'completed' AND throughput_mbps IS NOT NULL AND start_time < $before
            ORDER BY start_time DESC
            LIMIT $count;
            """;
        command.Parameters.AddWithValue("$instance", series.Instance);
        command.Parameters.AddWithValue("$database", Nullable(series.Database));
        command.Parameters.AddWithValue("$kind", Kebab.Of(series.Kind));
        command.Parameters.AddWithValue("$scope", series.Scope is { } scope ? Kebab.Of(scope) : DBNull.Value);
        command.Parameters.AddWithValue("$before", Format(before));
        command.Parameters.AddWithValue("$count", count);
        return await ReadAsync(command, cancellationToken);
    }

    public async Task<IReadOnlyList<StoredOperation>> QueryAsync(HistoryQuery query, CancellationToken cancellationToken)
    {
        await using var connection = await OpenAsync(cancellationToken);
        await using var command = connection.CreateCommand();
        command.CommandText = """
            SELECT instance_name, report_json FROM operations
            WHERE ($instance IS NULL OR instance_name = $instance)
              AND ($database IS NULL OR database_name = $database)
              AND ($kind IS NULL OR kind = $kind)
            ORDER BY start_time DESC, id DESC
            LIMIT $limit;
            """;
        command.Parameters.AddWithValue("$instance", Nullable(query.Instance));
        command.Parameters.AddWithValue("$database", Nullable(query.Database));
        command.Parameters.AddWithValue("$kind", query.Kind is { } kind ? Kebab.Of(kind) : DBNull.Value);
        command.Parameters.AddWithValue("$limit", query.Limit);
        return await ReadAsync(command, cancellationToken);
    }

    private async Task<SqliteConnection> OpenAsync(CancellationToken cancellationToken)
    {
        var connection = new SqliteConnection(_connectionString);
        await connection.OpenAsync(cancellationToken);
        return connection;
    }

    private static async Task<IReadOnlyList<StoredOperation>> ReadAsync(SqliteCommand command, CancellationToken cancellationToken)
    {
        var operations = new List<StoredOperation>();
        await using var reader = await command.ExecuteReaderAsync(cancellationToken);
        while (await reader.ReadAsync(cancellationToken))
        {
            operations.Add(new StoredOperation(reader.GetString(0), ReportJson.Deserialize<OperationReport>(reader.GetString(1))));
        }

        return operations;
    }

    private static object Nullable(string? value) => value is null ? DBNull.Value : value;

    private static string Format(DateTime time) => time.ToString(TimeFormat, CultureInfo.InvariantCulture);
}
