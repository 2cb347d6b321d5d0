using System.Collections.Immutable;
using System.Globalization;
using System.Text.Json;
using BackupXe.Core.Formatting;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using Microsoft.Data.Sqlite;

namespace BackupXe.History;

/// <summary>History in a local SQLite file (docs/history.md describes the schema and the dedup key).</summary>
public sealed class SqliteHistoryStore : IHistoryStore
{
    /// <summary>The file's name when none is configured: the daemon's, and what <c>--history</c> alone reads.</summary>
    public const string DefaultPath = "backupxe-history.db";

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
        -- Imports match database names as SQL Server compares them, without case; the index above cannot serve that.
        CREATE INDEX IF NOT EXISTS ix_operations_match
            ON operations (instance_name, database_name COLLATE NOCASE, kind, start_time);
        """;

    // The columns a reader needs; a file without them is some other program's database.
    private static readonly ImmutableArray<string> ReadColumns = ["id", "instance_name", "database_name", "kind", "start_time", "report_json"];

    private readonly string _connectionString;
    private readonly bool _readOnly;
    private readonly string _path;
    private readonly TimeProvider _time;

    public SqliteHistoryStore(string path, TimeProvider time)
        : this(path, time, SqliteOpenMode.ReadWriteCreate)
    {
    }

    private SqliteHistoryStore(string path, TimeProvider time, SqliteOpenMode mode)
    {
        _path = Path.GetFullPath(path);
        _time = time;
        _readOnly = mode == SqliteOpenMode.ReadOnly;
        _connectionString = new SqliteConnectionStringBuilder
        {
            DataSource = _path,
            Mode = mode,
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
            await RefuseForeignAsync(connection, cancellationToken);
            await using (var command = connection.CreateCommand())
            {
                command.CommandText = Schema;
                await command.ExecuteNonQueryAsync(cancellationToken);
            }

            // A read-only file (or folder) would otherwise open, pass and then fail every write, one operation at
            // a time, forever: take the write lock once now so that it fails at start-up instead.
            await using (var probe = connection.CreateCommand())
            {
                probe.CommandText = "BEGIN IMMEDIATE; ROLLBACK;";
                await probe.ExecuteNonQueryAsync(cancellationToken);
            }
        }
        catch (Exception exception) when (exception is SqliteException or IOException or UnauthorizedAccessException)
        {
            throw new HistoryStoreException(
                $"The history file '{_path}' (BackupXe:History:Path) cannot be opened or created: {exception.Message}", exception);
        }
    }

    // Another program's SQLite file named by mistake: adding our tables to it (and switching it to WAL) would
    // change a database we do not own.
    private async Task RefuseForeignAsync(SqliteConnection connection, CancellationToken cancellationToken)
    {
        await using var command = connection.CreateCommand();
        command.CommandText = """
            SELECT COUNT(*), COALESCE(SUM(name = 'operations'), 0) FROM sqlite_master
            WHERE type = 'table' AND name NOT LIKE 'sqlite_%';
            """;
        long tables = 0, ours = 0;
        await using (var reader = await command.ExecuteReaderAsync(cancellationToken))
        {
            if (await reader.ReadAsync(cancellationToken))
            {
                (tables, ours) = (reader.GetInt64(0), reader.GetInt64(1));
            }
        }

        if (tables > 0 && ours == 0)
        {
            throw new HistoryStoreException(
                $"The history file '{_path}' (BackupXe:History:Path) is another program's SQLite database (it has tables but no operations table); it was left unchanged.");
        }

        if (ours == 1)
        {
            command.CommandText = "SELECT name FROM pragma_table_info('operations');";
            var columns = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
            await using (var reader = await command.ExecuteReaderAsync(cancellationToken))
            {
                while (await reader.ReadAsync(cancellationToken))
                {
                    columns.Add(reader.GetString(0));
                }
            }

            if (ReadColumns.Any(column => !columns.Contains(column)))
            {
                throw new HistoryStoreException(
                    $"The history file '{_path}' (BackupXe:History:Path) has an operations table that is not BackupXe's; it was left unchanged.");
            }
        }
    }

    /// <summary>
    /// A history opened only to be read (the CLI's <c>history</c>): never created, never given tables, never
    /// switched to WAL, so that naming another program's SQLite file by mistake changes nothing in it.
    /// </summary>
    public static SqliteHistoryStore ForReading(string path, TimeProvider time) => new(path, time, SqliteOpenMode.ReadOnly);

    /// <summary>Checks that the file is a SQLite database holding BackupXe's operations table, without writing.</summary>
    /// <exception cref="HistoryStoreException">Not a database, damaged, or another program's schema.</exception>
    public async Task VerifyAsync(CancellationToken cancellationToken)
    {
        var columns = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        try
        {
            await using var connection = await OpenAsync(cancellationToken);
            await using var command = connection.CreateCommand();
            command.CommandText = "SELECT name FROM pragma_table_info('operations');";
            await using var reader = await command.ExecuteReaderAsync(cancellationToken);
            while (await reader.ReadAsync(cancellationToken))
            {
                columns.Add(reader.GetString(0));
            }
        }
        catch (SqliteException exception)
        {
            throw new HistoryStoreException($"not a readable SQLite database (damaged, or another kind of file): {exception.Message}", exception);
        }

        var missing = ReadColumns.Where(column => !columns.Contains(column)).ToList();
        if (missing.Count > 0)
        {
            throw new HistoryStoreException(columns.Count == 0
                ? "a SQLite database, but not a BackupXe history: it has no operations table. Nothing was changed in it."
                : $"a SQLite database, but not a BackupXe history: its operations table lacks {string.Join(", ", missing)}. Nothing was changed in it.");
        }
    }

    /// <summary>
    /// Like <see cref="QueryAsync"/>, but a row whose report cannot be read is skipped and named in
    /// <see cref="HistoryRead.Problems"/> instead of failing the whole listing.
    /// </summary>
    /// <exception cref="HistoryStoreException">The file cannot be read at all.</exception>
    public async Task<HistoryRead> ReadAsync(HistoryQuery query, CancellationToken cancellationToken)
    {
        var problems = new List<string>();
        try
        {
            await using var connection = await OpenAsync(cancellationToken);
            await using var command = QueryCommand(connection, query);
            return new HistoryRead(await ReadAsync(command, problems, cancellationToken), problems);
        }
        catch (SqliteException exception)
        {
            throw new HistoryStoreException($"reading stopped: {exception.Message}", exception);
        }
    }

    /// <exception cref="HistoryStoreException">The file turned out damaged, not a database or read-only.</exception>
    public Task<HistoryWrite> SaveAsync(string instance, OperationReport report, CancellationToken cancellationToken)
        => UsableAsync(() => SaveCoreAsync(instance, report, cancellationToken));

    /// <exception cref="HistoryStoreException">The file turned out damaged, not a database or read-only.</exception>
    public Task<IReadOnlyList<StoredOperation>> RecentCompletedAsync(
        OperationSeries series, DateTime before, int count, CancellationToken cancellationToken)
        => UsableAsync(() => RecentCompletedCoreAsync(series, before, count, cancellationToken));

    /// <exception cref="HistoryStoreException">The file turned out damaged, not a database or read-only.</exception>
    public Task<IReadOnlyList<StoredOperation>> QueryAsync(HistoryQuery query, CancellationToken cancellationToken)
        => UsableAsync(() => QueryCoreAsync(query, cancellationToken));

    // A damaged page is found only when a statement reaches it, long after start-up: it fails every later
    // statement the same way, so it is reported as the file's state, not as one operation's failure.
    private async Task<T> UsableAsync<T>(Func<Task<T>> work)
    {
        try
        {
            return await work();
        }
        catch (SqliteException exception) when (HistoryStoreException.FileUnusable(exception))
        {
            throw HistoryStoreException.Damaged(_path, exception);
        }
    }

    private async Task<HistoryWrite> SaveCoreAsync(string instance, OperationReport report, CancellationToken cancellationToken)
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

    private async Task<IReadOnlyList<StoredOperation>> RecentCompletedCoreAsync(
        OperationSeries series, DateTime before, int count, CancellationToken cancellationToken)
    {
        await using var connection = await OpenAsync(cancellationToken);
        await using var command = connection.CreateCommand();
        command.CommandText = """
            SELECT id, instance_name, report_json FROM operations
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
        return await ReadAsync(command, null, cancellationToken);
    }

    private async Task<IReadOnlyList<StoredOperation>> QueryCoreAsync(HistoryQuery query, CancellationToken cancellationToken)
    {
        await using var connection = await OpenAsync(cancellationToken);
        await using var command = QueryCommand(connection, query);
        return await ReadAsync(command, null, cancellationToken);
    }

    private static SqliteCommand QueryCommand(SqliteConnection connection, HistoryQuery query)
    {
        var command = connection.CreateCommand();
        command.CommandText = """
            SELECT id, instance_name, report_json FROM operations
            WHERE ($instance IS NULL OR instance_name = $instance)
              AND ($database IS NULL OR database_name = $database)
              AND ($databases IS NULL OR database_name COLLATE NOCASE IN (SELECT value FROM json_each($databases)))
              AND ($since IS NULL OR start_time >= $since)
              AND ($until IS NULL OR start_time <= $until)
              AND ($kind IS NULL OR kind = $kind)
            ORDER BY start_time DESC, id DESC
            LIMIT $limit;
            """;
        command.Parameters.AddWithValue("$databases", query.Databases is { } names ? JsonSerializer.Serialize(names, HistoryQueryJson.Default.IReadOnlyListString) : DBNull.Value);
        command.Parameters.AddWithValue("$since", query.Since is { } since ? Format(since) : DBNull.Value);
        command.Parameters.AddWithValue("$until", query.Until is { } until ? Format(until) : DBNull.Value);
        command.Parameters.AddWithValue("$instance", Nullable(query.Instance));
        command.Parameters.AddWithValue("$database", Nullable(query.Database));
        command.Parameters.AddWithValue("$kind", query.Kind is { } kind ? Kebab.Of(kind) : DBNull.Value);
        command.Parameters.AddWithValue("$limit", query.Limit);
        return command;
    }

    private async Task<SqliteConnection> OpenAsync(CancellationToken cancellationToken)
    {
        if (_readOnly)
        {
            return await ReadOnlyHistoryFile.OpenAsync(_path, cancellationToken);
        }

        var connection = new SqliteConnection(_connectionString);
        await connection.OpenAsync(cancellationToken);
        return connection;
    }

    /// <summary>
    /// The rows as operations. A row whose report does not read back (edited by hand, written by a future
    /// version, damaged) is skipped: named in <paramref name="problems"/> when given, so that one bad row
    /// never hides the others nor stops the daemon's baseline.
    /// </summary>
    private static async Task<IReadOnlyList<StoredOperation>> ReadAsync(SqliteCommand command, List<string>? problems, CancellationToken cancellationToken)
    {
        var operations = new List<StoredOperation>();
        await using var reader = await command.ExecuteReaderAsync(cancellationToken);
        while (await reader.ReadAsync(cancellationToken))
        {
            var id = reader.GetInt64(0);
            try
            {
                var instance = reader.IsDBNull(1) ? throw new JsonException("instance_name is NULL.") : reader.GetString(1);
                var json = reader.IsDBNull(2) ? throw new JsonException("report_json is NULL.") : reader.GetString(2);
                operations.Add(new StoredOperation(instance, ReportJson.Deserialize<OperationReport>(json)));
            }
            catch (Exception exception) when (exception is JsonException or NotSupportedException or InvalidOperationException or ArgumentException or InvalidCastException)
            {
                problems?.Add($"row id {id}: the stored report cannot be read ({exception.Message}); row skipped");
            }
        }

        return operations;
    }

    private static object Nullable(string? value) => value is null ? DBNull.Value : value;

    private static string Format(DateTime time) => time.ToString(TimeFormat, CultureInfo.InvariantCulture);
}

/// <summary>Compile-time JSON for the database list a history query passes to SQLite's json_each.</summary>
[System.Text.Json.Serialization.JsonSerializable(typeof(IReadOnlyList<string>))]
internal sealed partial class HistoryQueryJson : System.Text.Json.Serialization.JsonSerializerContext;
