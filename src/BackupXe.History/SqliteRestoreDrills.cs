using System.Text.Json;
using BackupXe.Core.Drill;
using BackupXe.Core.Rendering;
using Microsoft.Data.Sqlite;

namespace BackupXe.History;

/// <summary>
/// Restore drills in the SQLite history's <c>restore_drills</c> table (migration 4, <see cref="SqliteHistorySchema"/>):
/// one row per drill with its measured restore time, its phases in drill_json. Saving creates and migrates the file as
/// an import does; reading opens it read-only and reads a file from before migration 4 as one without drills.
/// </summary>
public sealed class SqliteRestoreDrills(string path, TimeProvider time) : IRestoreDrillStore
{
    private readonly string _path = Path.GetFullPath(path);

    /// <summary>Stores <paramref name="drill"/>; false when the same drill (instance, database, start) is already there.</summary>
    /// <exception cref="HistoryStoreException">The file cannot be created, migrated or written.</exception>
    public async Task<bool> SaveAsync(StoredDrill drill, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(drill);
        try
        {
            await using var connection = await SqliteHistoryTables.OpenForWriteAsync(_path, time, cancellationToken);
            await using var command = connection.CreateCommand();
            command.CommandText = """
                INSERT OR IGNORE INTO restore_drills (instance_name, database_name, scratch_name, drilled_at, status, restore_seconds, total_seconds, drill_json, recorded_at)
                VALUES ($instance, $database, $scratch, $drilled, $status, $restore, $total, $json, $recorded);
                """;
            command.Parameters.AddWithValue("$instance", drill.Instance);
            command.Parameters.AddWithValue("$database", drill.Database);
            command.Parameters.AddWithValue("$scratch", drill.Scratch);
            command.Parameters.AddWithValue("$drilled", SqliteHistoryTables.Format(drill.DrilledAt));
            command.Parameters.AddWithValue("$status", drill.Status.ToString().ToLowerInvariant());
            command.Parameters.AddWithValue("$restore", drill.RestoreSeconds);
            command.Parameters.AddWithValue("$total", drill.TotalSeconds);
            command.Parameters.AddWithValue("$json", ReportJson.Serialize(drill));
            command.Parameters.AddWithValue("$recorded", SqliteHistoryTables.Format(time.GetUtcNow().UtcDateTime));
            return await command.ExecuteNonQueryAsync(cancellationToken) == 1;
        }
        catch (SqliteException exception)
        {
            throw new HistoryStoreException($"The history file '{_path}' cannot store the restore drill: {exception.Message}", exception);
        }
    }

    /// <summary>
    /// The latest completed drill of <paramref name="database"/> (compared without case) on <paramref name="instance"/>
    /// (null: any), or null when there is none or no file. A row whose drill_json cannot be read is skipped.
    /// </summary>
    /// <exception cref="HistoryStoreException">The file cannot be read.</exception>
    public async Task<StoredDrill?> LatestAsync(string? instance, string database, CancellationToken cancellationToken)
    {
        // No file yet (a daemon's first drill): no drill, as a file from before migration 4.
        if (!File.Exists(_path))
        {
            return null;
        }

        try
        {
            await using var connection = await SqliteHistoryTables.OpenForReadAsync(_path, "restore_drills", cancellationToken);
            if (connection is null)
            {
                return null;
            }

            await using var command = connection.CreateCommand();
            command.CommandText = """
                SELECT drill_json FROM restore_drills
                WHERE ($instance IS NULL OR instance_name = $instance)
                  AND database_name = $database COLLATE NOCASE AND status = 'completed'
                ORDER BY drilled_at DESC, id DESC;
                """;
            command.Parameters.AddWithValue("$instance", (object?)instance ?? DBNull.Value);
            command.Parameters.AddWithValue("$database", database);
            await using var reader = await command.ExecuteReaderAsync(cancellationToken);
            while (await reader.ReadAsync(cancellationToken))
            {
                try
                {
                    return ReportJson.Deserialize<StoredDrill>(reader.GetString(0));
                }
                catch (JsonException)
                {
                    // A damaged row is passed over for the one before it.
                }
            }

            return null;
        }
        catch (SqliteException exception)
        {
            throw new HistoryStoreException($"The history file '{_path}' cannot be read: {exception.Message}", exception);
        }
    }

}
