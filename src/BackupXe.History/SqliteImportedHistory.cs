using System.Globalization;
using System.Text.Json;
using BackupXe.Core.Formatting;
using BackupXe.Core.History;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using Microsoft.Data.Sqlite;

namespace BackupXe.History;

/// <summary>What one import did to the history.</summary>
public sealed record HistoryImportResult(int Added, int Merged, int Unchanged);

/// <summary>
/// Imported history (msdb, CommandLog, job output files) in the same SQLite file and table as the daemon's
/// captured operations (docs/history.md). Its initialisation applies the file's migrations (<see cref="SqliteHistorySchema"/>):
/// migration 1 adds two nullable columns, <c>sources</c> and <c>history_json</c>, so files written before it keep
/// working and older builds still read and write them.
/// An imported operation that matches a stored one (<see cref="HistoryMerge"/>) is merged into that row.
/// </summary>
public sealed class SqliteImportedHistory : IImportedHistory
{
    private const string TimeFormat = "yyyy-MM-dd'T'HH:mm:ss.fffffff";

    private readonly string _path;
    private readonly TimeProvider _time;

    public SqliteImportedHistory(string path, TimeProvider time)
    {
        _path = Path.GetFullPath(path);
        _time = time;
    }

    /// <summary>Creates the table if missing (as the daemon does) and applies the migration; safe to run every time.</summary>
    /// <exception cref="HistoryStoreException">The file cannot be opened, created or migrated.</exception>
    public async Task InitializeAsync(CancellationToken cancellationToken)
    {
        await new SqliteHistoryStore(_path, _time).InitializeAsync(cancellationToken);
        try
        {
            await using var connection = await OpenAsync(SqliteOpenMode.ReadWrite, cancellationToken);
            await SqliteHistorySchema.MigrateAsync(connection, cancellationToken);
        }
        catch (SqliteException exception)
        {
            throw new HistoryStoreException($"The history file '{_path}' cannot be migrated: {exception.Message}", exception);
        }
    }

    /// <summary>
    /// Stores each record, merged into the stored operation it matches when there is one. Importing the same
    /// records again changes nothing: the merge of a record with itself is the record. <paramref name="added"/>,
    /// when given, receives the records stored as new rows (not merged into a known one), in import order.
    /// </summary>
    /// <exception cref="HistoryStoreException">The file is damaged, not a database or read-only; nothing was imported.</exception>
    public Task<HistoryImportResult> ImportAsync(
        string instance, IEnumerable<HistoryOperation> records, CancellationToken cancellationToken, ICollection<HistoryOperation>? added = null)
        => ImportAsync(instance, records.ToAsyncEnumerable(), cancellationToken, added);

    /// <summary>
    /// As above, taking each record as it is read: one write transaction, written record by record, so memory holds
    /// the record being stored, the stored rows near it (<see cref="StoredRowWindow"/>) and SQLite's bounded page cache,
    /// not the file's records, and a failure part-way
    /// (a damaged history, an exception from <paramref name="records"/>, a cancellation) rolls back the whole file's import.
    /// </summary>
    /// <exception cref="HistoryStoreException">The file is damaged, not a database or read-only; nothing was imported.</exception>
    public async Task<HistoryImportResult> ImportAsync(
        string instance, IAsyncEnumerable<HistoryOperation> records, CancellationToken cancellationToken, ICollection<HistoryOperation>? added = null)
    {
        try
        {
            return await ImportCoreAsync(instance, records, cancellationToken, added);
        }
        catch (SqliteException exception) when (HistoryStoreException.FileUnusable(exception))
        {
            // The transaction is rolled back: the file is left as it was.
            throw HistoryStoreException.Damaged(_path, exception);
        }
    }

    private async Task<HistoryImportResult> ImportCoreAsync(
        string instance, IAsyncEnumerable<HistoryOperation> records, CancellationToken cancellationToken, ICollection<HistoryOperation>? added)
    {
        var stored = new StoredRowWindow();
        await using var connection = await OpenAsync(SqliteOpenMode.ReadWrite, cancellationToken);
        await using var transaction = (SqliteTransaction)await connection.BeginTransactionAsync(cancellationToken);
        var result = await ImportedRecords.StoreAsync(
            records,
            (record, token) => FindAsync(connection, transaction, instance, record, stored, token),
            (record, token) => InsertAsync(connection, transaction, instance, record, token),
            async (id, combined, json, token) =>
            {
                await UpdateAsync(connection, transaction, id, combined, json, token);
                stored.Keep(id, combined);
            },
            added,
            cancellationToken);
        await transaction.CommitAsync(cancellationToken);
        return result;
    }

    /// <summary>
    /// Every stored operation as a history record (imported ones as imported, captured ones from their
    /// report), matching ones folded together. Opens the file read-only; a file without the migration reads
    /// as captures only.
    /// </summary>
    /// <summary>Rows whose JSON could not be read by the last <see cref="ReadAsync"/>.</summary>
    public int UnreadableRows { get; private set; }

    /// <exception cref="HistoryStoreException">The file cannot be opened or is not a history file.</exception>
    public async Task<IReadOnlyList<InstanceOperation>> ReadAsync(string? instance, string? database, CancellationToken cancellationToken)
    {
        try
        {
            return await ReadRowsAsync(instance, database, cancellationToken);
        }
        catch (SqliteException exception)
        {
            throw new HistoryStoreException($"The history file '{_path}' cannot be read: {exception.Message}", exception);
        }
    }

    private async Task<IReadOnlyList<InstanceOperation>> ReadRowsAsync(string? instance, string? database, CancellationToken cancellationToken)
    {
        UnreadableRows = 0;
        await using var connection = await OpenAsync(SqliteOpenMode.ReadOnly, cancellationToken);
        var migrated = (await ColumnsAsync(connection, cancellationToken)).Contains("history_json");
        await using var command = connection.CreateCommand();
        command.CommandText = $"""
            SELECT instance_name, report_json, {(migrated ? "history_json" : "NULL")} FROM operations
            WHERE ($instance IS NULL OR instance_name = $instance)
              AND ($database IS NULL OR database_name = $database COLLATE NOCASE)
            ORDER BY start_time, id;
            """;
        command.Parameters.AddWithValue("$instance", (object?)instance ?? DBNull.Value);
        command.Parameters.AddWithValue("$database", (object?)database ?? DBNull.Value);
        var rows = new List<InstanceOperation>();
        await using var reader = await command.ExecuteReaderAsync(cancellationToken);
        while (await reader.ReadAsync(cancellationToken))
        {
            HistoryOperation? record;
            try
            {
                record = reader.IsDBNull(2)
                    ? HistoryOperation.FromReport(ReportJson.Deserialize<OperationReport>(reader.GetString(1)))
                    : ReportJson.Deserialize<HistoryOperation>(reader.GetString(2));
            }
            catch (JsonException)
            {
                // A row another tool damaged: left out and counted, the rest is still summarised.
                UnreadableRows++;
                continue;
            }

            if (record is not null)
            {
                rows.Add(new InstanceOperation(reader.GetString(0), record));
            }
        }

        return rows.GroupBy(r => r.Instance, StringComparer.Ordinal)
            .SelectMany(g => HistoryMerge.Fold(g.Select(r => r.Record)).Select(r => new InstanceOperation(g.Key, r)))
            .ToList();
    }

    private static async Task<MatchedRow?> FindAsync(
        SqliteConnection connection, SqliteTransaction transaction, string instance, HistoryOperation record, StoredRowWindow rows,
        CancellationToken cancellationToken)
    {
        if (record.Database is null)
        {
            return null;
        }

        await using var command = connection.CreateCommand();
        command.Transaction = transaction;
        // A day either side covers any UTC offset between a capture's UTC times and a local-time source.
        command.CommandText = """
            SELECT id, report_json, history_json FROM operations
            WHERE instance_name = $instance AND database_name = $database COLLATE NOCASE AND kind = $kind
              AND start_time BETWEEN $from AND $to;
            """;
        command.Parameters.AddWithValue("$instance", instance);
        command.Parameters.AddWithValue("$database", record.Database);
        command.Parameters.AddWithValue("$kind", Kebab.Of(record.Kind));
        command.Parameters.AddWithValue("$from", Format(record.Start.AddDays(-1)));
        command.Parameters.AddWithValue("$to", Format((record.End ?? record.Start).AddDays(1)));
        rows.Storing(record);
        MatchedRow? best = null;
        await using var reader = await command.ExecuteReaderAsync(cancellationToken);
        while (await reader.ReadAsync(cancellationToken))
        {
            var id = reader.GetInt64(0);
            if (!rows.TryGet(id, out var stored))
            {
                try
                {
                    stored = reader.IsDBNull(2)
                        ? HistoryOperation.FromReport(ReportJson.Deserialize<OperationReport>(reader.GetString(1)))
                        : ReportJson.Deserialize<HistoryOperation>(reader.GetString(2));
                }
                catch (JsonException)
                {
                    continue;
                }

                rows.Keep(id, stored);
            }

            if (stored is not null && HistoryMerge.SameOperation(stored, record)
                && (best is null || Distance(stored, record) < Distance(best.Value.Record, record)))
            {
                // The JSON of the row that matches only: the window keeps records, not their text.
                best = new MatchedRow(id, stored, reader.IsDBNull(2) ? null : reader.GetString(2));
            }
        }

        return best;
    }

    private async Task<int> InsertAsync(
        SqliteConnection connection, SqliteTransaction transaction, string instance, HistoryOperation record, CancellationToken cancellationToken)
    {
        await using var command = connection.CreateCommand();
        command.Transaction = transaction;
        command.CommandText = """
            INSERT OR IGNORE INTO operations (
                instance_name, database_name, kind, scope, start_time, end_time, session_id, status,
                duration_seconds, throughput_mbps, bottleneck, confidence, report_json, recorded_at, sources, history_json,
                first_lsn, last_lsn, recovery_model, group_database_id)
            VALUES (
                $instance, $database, $kind, $scope, $start, $end, NULL, $status,
                $duration, $throughput, NULL, NULL, $report, $recorded, $sources, $json,
                $first_lsn, $last_lsn, $recovery_model, $group);
            """;
        Identify(command, record);
        command.Parameters.AddWithValue("$instance", instance);
        command.Parameters.AddWithValue("$database", (object?)record.Database ?? DBNull.Value);
        command.Parameters.AddWithValue("$kind", Kebab.Of(record.Kind));
        command.Parameters.AddWithValue("$scope", Kebab.Of(record.Scope));
        command.Parameters.AddWithValue("$start", Format(record.Start));
        command.Parameters.AddWithValue("$end", record.End is { } end ? Format(end) : DBNull.Value);
        command.Parameters.AddWithValue("$status", Kebab.Of(record.Status));
        command.Parameters.AddWithValue("$duration", record.DurationSeconds is { } d ? d : DBNull.Value);
        command.Parameters.AddWithValue("$throughput", record.ThroughputMBps is { } t ? t : DBNull.Value);
        command.Parameters.AddWithValue("$report", ReportJson.Serialize(record.ToReport()));
        command.Parameters.AddWithValue("$recorded", _time.GetUtcNow().UtcDateTime.ToString(TimeFormat, CultureInfo.InvariantCulture));
        command.Parameters.AddWithValue("$sources", Sources(record));
        command.Parameters.AddWithValue("$json", ReportJson.Serialize(record));
        return await command.ExecuteNonQueryAsync(cancellationToken);
    }

    private static async Task UpdateAsync(
        SqliteConnection connection, SqliteTransaction transaction, long id, HistoryOperation combined, string json, CancellationToken cancellationToken)
    {
        await using var update = connection.CreateCommand();
        update.Transaction = transaction;
        // A captured row keeps its report (waits, phases, verdict); an imported one follows the merge.
        update.CommandText = """
            UPDATE operations SET history_json = $json, sources = $sources,
                report_json = CASE WHEN history_json IS NULL AND sources IS NULL THEN report_json ELSE $report END,
                end_time = IFNULL($end, end_time), status = $status,
                duration_seconds = IFNULL($duration, duration_seconds), throughput_mbps = IFNULL($throughput, throughput_mbps),
                first_lsn = $first_lsn, last_lsn = $last_lsn, recovery_model = $recovery_model, group_database_id = $group
            WHERE id = $id;
            """;
        Identify(update, combined);
        update.Parameters.AddWithValue("$json", json);
        update.Parameters.AddWithValue("$sources", Sources(combined));
        update.Parameters.AddWithValue("$report", ReportJson.Serialize(combined.ToReport()));
        update.Parameters.AddWithValue("$end", combined.End is { } end ? Format(end) : DBNull.Value);
        update.Parameters.AddWithValue("$status", Kebab.Of(combined.Status));
        update.Parameters.AddWithValue("$duration", combined.DurationSeconds is { } d ? d : DBNull.Value);
        update.Parameters.AddWithValue("$throughput", combined.ThroughputMBps is { } t ? t : DBNull.Value);
        update.Parameters.AddWithValue("$id", id);
        await update.ExecuteNonQueryAsync(cancellationToken);
    }

    private async Task<SqliteConnection> OpenAsync(SqliteOpenMode mode, CancellationToken cancellationToken)
    {
        if (mode == SqliteOpenMode.ReadOnly)
        {
            try
            {
                return await ReadOnlyHistoryFile.OpenAsync(_path, cancellationToken);
            }
            catch (SqliteException exception)
            {
                throw new HistoryStoreException($"The history file '{_path}' cannot be opened: {exception.Message}", exception);
            }
        }

        var connection = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = _path, Mode = mode, Pooling = false }.ToString());
        try
        {
            await connection.OpenAsync(cancellationToken);
        }
        catch (SqliteException exception)
        {
            await connection.DisposeAsync();
            throw new HistoryStoreException($"The history file '{_path}' cannot be opened: {exception.Message}", exception);
        }

        return connection;
    }

    private static async Task<HashSet<string>> ColumnsAsync(SqliteConnection connection, CancellationToken cancellationToken)
    {
        await using var command = connection.CreateCommand();
        command.CommandText = "SELECT name FROM pragma_table_info('operations');";
        var columns = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        await using var reader = await command.ExecuteReaderAsync(cancellationToken);
        while (await reader.ReadAsync(cancellationToken))
        {
            columns.Add(reader.GetString(0));
        }

        return columns;
    }

    /// <summary>Migration 5's columns: the LSNs as digits (numeric(25,0) is past SQLite's integers), the model, the group id.</summary>
    private static void Identify(SqliteCommand command, HistoryOperation record)
    {
        command.Parameters.AddWithValue("$first_lsn", record.Lsns is { } lsns ? lsns.FirstLsn.ToString(CultureInfo.InvariantCulture) : DBNull.Value);
        command.Parameters.AddWithValue("$last_lsn", record.Lsns is { } last ? last.LastLsn.ToString(CultureInfo.InvariantCulture) : DBNull.Value);
        command.Parameters.AddWithValue("$recovery_model", (object?)record.RecoveryModel ?? DBNull.Value);
        command.Parameters.AddWithValue("$group", record.Identity?.GroupDatabaseId is { } group ? group.ToString("D") : DBNull.Value);
    }

    private static double Distance(HistoryOperation a, HistoryOperation b) => Math.Abs((a.Start - b.Start).TotalSeconds);

    private static string Sources(HistoryOperation record) => string.Join(',', record.Sources.Select(Kebab.Of));

    private static string Format(DateTime time) => time.ToString(TimeFormat, CultureInfo.InvariantCulture);
}
