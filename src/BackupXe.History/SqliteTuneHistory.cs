using System.Text.Json;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.Core.Tuning;
using Microsoft.Data.Sqlite;

namespace BackupXe.History;

/// <summary>
/// Tune results, restore trials included, in the SQLite history's <c>tune_runs</c> table (migrations 2 and 3,
/// <see cref="SqliteHistorySchema"/>). Saving creates the history and applies its migrations, as an import does;
/// reading opens the file read-only, never migrates it, and reads a file from before migration 2 as one without tune
/// runs.
/// </summary>
public sealed class SqliteTuneHistory(string path, TimeProvider time)
{
    private readonly string _path = Path.GetFullPath(path);

    /// <summary>Stores <paramref name="record"/>; false when the same tune (instance, database, time) is already there.</summary>
    /// <exception cref="HistoryStoreException">The file cannot be created, migrated or written.</exception>
    public async Task<bool> SaveAsync(TuneRecord record, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(record);
        try
        {
            await using var connection = await SqliteHistoryTables.OpenForWriteAsync(_path, time, cancellationToken);
            await using var command = connection.CreateCommand();
            command.CommandText = """
                INSERT OR IGNORE INTO tune_runs (instance_name, database_name, tuned_at, best_mbps, baseline_mbps, read_ceiling_mbps, restore_best_mbps, restore_defaults_mbps, tune_json, recorded_at)
                VALUES ($instance, $database, $tuned, $best, $baseline, $ceiling, $restoreBest, $restoreDefaults, $json, $recorded);
                """;
            command.Parameters.AddWithValue("$instance", record.Instance);
            command.Parameters.AddWithValue("$database", record.Database);
            command.Parameters.AddWithValue("$tuned", SqliteHistoryTables.Format(record.TunedAt));
            command.Parameters.AddWithValue("$best", record.BestMBps is { } best ? best : DBNull.Value);
            command.Parameters.AddWithValue("$baseline", record.BaselineMBps is { } baseline ? baseline : DBNull.Value);
            command.Parameters.AddWithValue("$ceiling", record.ReadCeilingMBps is { } ceiling ? ceiling : DBNull.Value);
            command.Parameters.AddWithValue("$restoreBest", record.Restore?.BestMBps is { } restoreBest ? restoreBest : DBNull.Value);
            command.Parameters.AddWithValue("$restoreDefaults", record.Restore?.DefaultsMBps is { } restoreDefaults ? restoreDefaults : DBNull.Value);
            command.Parameters.AddWithValue("$json", ReportJson.Serialize(record));
            command.Parameters.AddWithValue("$recorded", SqliteHistoryTables.Format(time.GetUtcNow().UtcDateTime));
            return await command.ExecuteNonQueryAsync(cancellationToken) == 1;
        }
        catch (SqliteException exception)
        {
            throw new HistoryStoreException($"The history file '{_path}' cannot store the tune: {exception.Message}", exception);
        }
    }

    /// <summary>
    /// Tune runs, newest first, of <paramref name="instance"/> (null: all) and any of <paramref name="databases"/>
    /// (compared without case; null: all). A row that cannot be read is skipped and named in <see cref="TuneRead.Problems"/>.
    /// </summary>
    /// <exception cref="HistoryStoreException">The file cannot be read.</exception>
    public async Task<TuneRead> ReadAsync(string? instance, IReadOnlyList<string>? databases, int limit, CancellationToken cancellationToken)
    {
        var records = new List<TuneRecord>();
        var problems = new List<string>();
        try
        {
            await using var connection = await SqliteHistoryTables.OpenForReadAsync(_path, "tune_runs", cancellationToken);
            if (connection is null)
            {
                return new TuneRead(records, problems);
            }

            await using var command = connection.CreateCommand();
            command.CommandText = """
                SELECT id, tune_json FROM tune_runs
                WHERE ($instance IS NULL OR instance_name = $instance)
                  AND ($databases IS NULL OR database_name COLLATE NOCASE IN (SELECT value FROM json_each($databases)))
                ORDER BY tuned_at DESC, id DESC
                LIMIT $limit;
                """;
            command.Parameters.AddWithValue("$instance", (object?)instance ?? DBNull.Value);
            command.Parameters.AddWithValue("$databases", databases is { } names ? JsonSerializer.Serialize(names, HistoryQueryJson.Default.IReadOnlyListString) : DBNull.Value);
            command.Parameters.AddWithValue("$limit", limit);
            await using var reader = await command.ExecuteReaderAsync(cancellationToken);
            while (await reader.ReadAsync(cancellationToken))
            {
                var id = reader.GetInt64(0);
                try
                {
                    records.Add(ReportJson.Deserialize<TuneRecord>(reader.IsDBNull(1) ? throw new JsonException("tune_json is NULL.") : reader.GetString(1)));
                }
                catch (Exception exception) when (exception is JsonException or NotSupportedException or InvalidOperationException or ArgumentException)
                {
                    problems.Add($"tune row id {id}: the stored tune cannot be read ({exception.Message}); row skipped");
                }
            }
        }
        catch (SqliteException exception)
        {
            throw new HistoryStoreException($"reading tune runs stopped: {exception.Message}", exception);
        }

        return new TuneRead(records, problems);
    }

    /// <summary>The latest tune of the database on the instance finished before <paramref name="before"/>; null when none (or no table).</summary>
    /// <exception cref="HistoryStoreException">The file cannot be read.</exception>
    public async Task<TuneRecord?> LastAsync(string instance, string database, DateTime before, CancellationToken cancellationToken)
    {
        try
        {
            await using var connection = await SqliteHistoryTables.OpenForReadAsync(_path, "tune_runs", cancellationToken);
            if (connection is null)
            {
                return null;
            }

            await using var command = connection.CreateCommand();
            command.CommandText = """
                SELECT tune_json FROM tune_runs
                WHERE instance_name = $instance AND database_name = $database COLLATE NOCASE AND tuned_at < $before
                ORDER BY tuned_at DESC, id DESC
                LIMIT 1;
                """;
            command.Parameters.AddWithValue("$instance", instance);
            command.Parameters.AddWithValue("$database", database);
            command.Parameters.AddWithValue("$before", SqliteHistoryTables.Format(before));
            return await command.ExecuteScalarAsync(cancellationToken) is string json ? Read(json) : null;
        }
        catch (SqliteException exception)
        {
            throw new HistoryStoreException($"reading tune runs stopped: {exception.Message}", exception);
        }
    }

    // A row that does not read back (edited, from a later version) is no tune to mention: a diagnosis never fails on it.
    private static TuneRecord? Read(string json)
    {
        try
        {
            return ReportJson.Deserialize<TuneRecord>(json);
        }
        catch (Exception exception) when (exception is JsonException or NotSupportedException or InvalidOperationException or ArgumentException)
        {
            return null;
        }
    }

}

/// <summary>Tune runs read for the CLI, with the rows that could not be read named.</summary>
public sealed record TuneRead(IReadOnlyList<TuneRecord> Records, IReadOnlyList<string> Problems);
