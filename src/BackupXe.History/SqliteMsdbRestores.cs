using System.Globalization;
using BackupXe.Core.Restores;
using BackupXe.SqlServer.Client;
using Microsoft.Data.Sqlite;

namespace BackupXe.History;

/// <summary>
/// The full database restores of msdb's restorehistory (with the backup set each read) in the SQLite history's
/// <c>msdb_restores</c> table (migration 7, <see cref="SqliteHistorySchema"/>; docs/fleet.md, "Never restored"), so that
/// `fleet` knows a database was restored though no capture saw it. restorehistory keeps when a restore ran, never how
/// long it took: these rows say that a database was restored, not how fast. Keyed on instance, database and
/// restore_date, so an import read again adds nothing. Reading opens the file read-only and reads a file from before
/// migration 7 as one without them.
/// </summary>
public sealed class SqliteMsdbRestores(string path, TimeProvider time) : IMsdbRestoreStore
{
    private readonly string _path = Path.GetFullPath(path);

    /// <summary>Reads <paramref name="server"/>'s full database restores and keeps them as <paramref name="instance"/>'s (<see cref="MsdbRestoreImport"/>).</summary>
    /// <exception cref="HistoryStoreException">The restores were read but the file cannot be written.</exception>
    public Task<MsdbRestoresImport> ImportAsync(
        string instance, SqlConnectionFactory server, DateTime since, IReadOnlyCollection<string> databases, CancellationToken cancellationToken)
        => MsdbRestoreImport.RunAsync(this, instance, server, since, databases, cancellationToken);

    /// <summary>Keeps <paramref name="restores"/> as <paramref name="instance"/>'s, each once, in one transaction.</summary>
    /// <exception cref="HistoryStoreException">The file cannot be created, migrated or written.</exception>
    public async Task SaveAsync(string instance, IReadOnlyList<DatabaseRestore> restores, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(restores);
        try
        {
            await using var connection = await SqliteHistoryTables.OpenForWriteAsync(_path, time, cancellationToken);
            await using var transaction = (SqliteTransaction)await connection.BeginTransactionAsync(cancellationToken);
            foreach (var restore in restores)
            {
                var source = restore.Source;
                await using var insert = connection.CreateCommand();
                insert.Transaction = transaction;
                insert.CommandText = """
                    INSERT OR IGNORE INTO msdb_restores (instance_name, database_name, restored_at, is_replace, source_database, source_type, source_copy_only,
                        source_first_lsn, source_last_lsn, source_database_backup_lsn, source_checkpoint_lsn, source_recovery_model, source_start, source_finish,
                        source_backup_size, source_compressed_size, imported_at)
                    VALUES ($instance, $database, $restored, $replace, $sourceDatabase, $type, $copyOnly, $first, $last, $base, $checkpoint, $model, $start, $finish,
                        $size, $compressed, $imported);
                    """;
                insert.Parameters.AddWithValue("$instance", instance);
                insert.Parameters.AddWithValue("$database", restore.Database);
                insert.Parameters.AddWithValue("$restored", SqliteHistoryTables.Format(restore.RestoredAt));
                insert.Parameters.AddWithValue("$replace", restore.Replace is { } replace ? (replace ? 1 : 0) : DBNull.Value);
                insert.Parameters.AddWithValue("$sourceDatabase", source.Database);
                insert.Parameters.AddWithValue("$type", source.Type.ToString());
                insert.Parameters.AddWithValue("$copyOnly", source.IsCopyOnly ? 1 : 0);
                insert.Parameters.AddWithValue("$first", Digits(source.FirstLsn));
                insert.Parameters.AddWithValue("$last", Digits(source.LastLsn));
                insert.Parameters.AddWithValue("$base", source.DatabaseBackupLsn is { } lsn ? Digits(lsn) : DBNull.Value);
                insert.Parameters.AddWithValue("$checkpoint", source.CheckpointLsn is { } checkpoint ? Digits(checkpoint) : DBNull.Value);
                insert.Parameters.AddWithValue("$model", (object?)source.RecoveryModel ?? DBNull.Value);
                insert.Parameters.AddWithValue("$start", SqliteHistoryTables.Format(source.Start));
                insert.Parameters.AddWithValue("$finish", SqliteHistoryTables.Format(source.Finish));
                insert.Parameters.AddWithValue("$size", (object?)source.BackupSize ?? DBNull.Value);
                insert.Parameters.AddWithValue("$compressed", (object?)source.CompressedSize ?? DBNull.Value);
                insert.Parameters.AddWithValue("$imported", SqliteHistoryTables.Format(time.GetUtcNow().UtcDateTime));
                await insert.ExecuteNonQueryAsync(cancellationToken);
            }

            await transaction.CommitAsync(cancellationToken);
        }
        catch (SqliteException exception)
        {
            throw new HistoryStoreException($"The history file '{_path}' cannot store msdb's restores: {exception.Message}", exception);
        }
    }

    /// <summary>Every instance's kept restores; none in a file from before migration 7. A row that does not read back (edited) is skipped.</summary>
    /// <exception cref="HistoryStoreException">The file cannot be read.</exception>
    public async Task<IReadOnlyList<StoredMsdbRestore>> ReadAsync(CancellationToken cancellationToken)
    {
        try
        {
            await using var connection = await SqliteHistoryTables.OpenForReadAsync(_path, "msdb_restores", cancellationToken);
            if (connection is null)
            {
                return [];
            }

            await using var command = connection.CreateCommand();
            command.CommandText = """
                SELECT instance_name, database_name, restored_at, is_replace, source_database, source_type, source_copy_only, source_first_lsn, source_last_lsn,
                       source_database_backup_lsn, source_checkpoint_lsn, source_recovery_model, source_start, source_finish, source_backup_size, source_compressed_size
                FROM msdb_restores ORDER BY instance_name, database_name, restored_at;
                """;
            var restores = new List<StoredMsdbRestore>();
            await using var reader = await command.ExecuteReaderAsync(cancellationToken);
            while (await reader.ReadAsync(cancellationToken))
            {
                if (Time(reader.GetString(2)) is not { } restored || Time(reader.GetString(12)) is not { } start || Time(reader.GetString(13)) is not { } finish
                    || Lsn(reader.GetString(7)) is not { } first || Lsn(reader.GetString(8)) is not { } last || reader.GetString(5) is not { Length: 1 } type)
                {
                    continue;
                }

                var source = new BackupSetRow(
                    reader.GetString(4), type[0], reader.GetInt64(6) == 1, first, last,
                    reader.IsDBNull(9) ? null : Lsn(reader.GetString(9)), reader.IsDBNull(10) ? null : Lsn(reader.GetString(10)),
                    reader.IsDBNull(11) ? null : reader.GetString(11), start, finish,
                    reader.IsDBNull(14) ? null : reader.GetInt64(14), reader.IsDBNull(15) ? null : reader.GetInt64(15));
                restores.Add(new StoredMsdbRestore(reader.GetString(0), new DatabaseRestore(reader.GetString(1), restored, reader.IsDBNull(3) ? null : reader.GetInt64(3) == 1, source)));
            }

            return restores;
        }
        catch (SqliteException exception)
        {
            throw new HistoryStoreException($"The history file '{_path}' cannot be read for msdb's restores: {exception.Message}", exception);
        }
    }

    // An LSN is numeric(25,0): kept as its digits, as migration 5 keeps a backup's.
    private static string Digits(decimal lsn) => lsn.ToString("0", CultureInfo.InvariantCulture);

    private static decimal? Lsn(string digits)
        => decimal.TryParse(digits, NumberStyles.None, CultureInfo.InvariantCulture, out var lsn) ? lsn : null;

    private static DateTime? Time(string text)
        => DateTime.TryParseExact(text, "yyyy-MM-dd'T'HH:mm:ss.fffffff", CultureInfo.InvariantCulture, DateTimeStyles.None, out var at) ? at : null;
}
