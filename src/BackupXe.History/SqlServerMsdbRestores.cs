using System.Data;
using System.Globalization;
using BackupXe.Core.Restores;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using Microsoft.Data.SqlClient;

namespace BackupXe.History;

/// <summary>
/// msdb's full database restores in the central store's dbo.msdb_restores (migration 6 of
/// sessions/backupxe-history-sqlserver.sql), as <see cref="SqliteMsdbRestores"/> keeps them in the SQLite history:
/// each once on instance, database and restore_date, so an import read again adds nothing.
/// </summary>
public sealed class SqlServerMsdbRestores(SqlConnectionFactory connections, TransientRetry? retry = null) : IMsdbRestoreStore
{
    /// <summary>One restore, inserted when its key is absent (UPDLOCK, HOLDLOCK; the key's IGNORE_DUP_KEY a second guard).</summary>
    public const string InsertRestoreIfAbsent = """
        SET NOCOUNT ON;
        INSERT INTO dbo.msdb_restores (instance_name, database_name, restored_at, is_replace, source_database, source_type, source_copy_only,
            source_first_lsn, source_last_lsn, source_database_backup_lsn, source_checkpoint_lsn, source_recovery_model, source_start, source_finish,
            source_backup_size, source_compressed_size)
        SELECT @instance, @database, @restored, @replace, @sourceDatabase, @type, @copyOnly, @first, @last, @base, @checkpoint, @model, @start, @finish,
            @size, @compressed
        WHERE NOT EXISTS (
            SELECT 1 FROM dbo.msdb_restores WITH (UPDLOCK, HOLDLOCK)
            WHERE instance_name = @instance AND database_name = @database AND restored_at = @restored);
        """;

    /// <summary>Every instance's kept restores.</summary>
    public const string RestoresQuery = """
        SELECT instance_name, database_name, restored_at, is_replace, source_database, source_type, source_copy_only, source_first_lsn, source_last_lsn,
               source_database_backup_lsn, source_checkpoint_lsn, source_recovery_model, source_start, source_finish, source_backup_size, source_compressed_size
        FROM dbo.msdb_restores ORDER BY instance_name, database_name, restored_at;
        """;

    private readonly TransientRetry _retry = retry ?? new TransientRetry();

    public async Task SaveAsync(string instance, IReadOnlyList<DatabaseRestore> restores, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(restores);
        await _retry.RunAsync(async token =>
        {
            await using var connection = await connections.OpenAsync(token);
            foreach (var restore in restores)
            {
                var source = restore.Source;
                await using var insert = connections.Command(connection, InsertRestoreIfAbsent);
                var p = insert.Parameters;
                p.Add(new SqlParameter("@instance", SqlDbType.NVarChar, 128) { Value = instance });
                p.Add(new SqlParameter("@database", SqlDbType.NVarChar, 128) { Value = restore.Database });
                p.Add(new SqlParameter("@restored", SqlDbType.DateTime2) { Value = restore.RestoredAt });
                p.Add(new SqlParameter("@replace", SqlDbType.Bit) { Value = (object?)restore.Replace ?? DBNull.Value });
                p.Add(new SqlParameter("@sourceDatabase", SqlDbType.NVarChar, 128) { Value = source.Database });
                p.Add(new SqlParameter("@type", SqlDbType.VarChar, 1) { Value = source.Type.ToString() });
                p.Add(new SqlParameter("@copyOnly", SqlDbType.Bit) { Value = source.IsCopyOnly });
                p.Add(new SqlParameter("@first", SqlDbType.VarChar, 25) { Value = Digits(source.FirstLsn) });
                p.Add(new SqlParameter("@last", SqlDbType.VarChar, 25) { Value = Digits(source.LastLsn) });
                p.Add(new SqlParameter("@base", SqlDbType.VarChar, 25) { Value = source.DatabaseBackupLsn is { } lsn ? Digits(lsn) : DBNull.Value });
                p.Add(new SqlParameter("@checkpoint", SqlDbType.VarChar, 25) { Value = source.CheckpointLsn is { } checkpoint ? Digits(checkpoint) : DBNull.Value });
                p.Add(new SqlParameter("@model", SqlDbType.NVarChar, 60) { Value = (object?)source.RecoveryModel ?? DBNull.Value });
                p.Add(new SqlParameter("@start", SqlDbType.DateTime2) { Value = source.Start });
                p.Add(new SqlParameter("@finish", SqlDbType.DateTime2) { Value = source.Finish });
                p.Add(new SqlParameter("@size", SqlDbType.BigInt) { Value = (object?)source.BackupSize ?? DBNull.Value });
                p.Add(new SqlParameter("@compressed", SqlDbType.BigInt) { Value = (object?)source.CompressedSize ?? DBNull.Value });
                await insert.ExecuteNonQueryAsync(token);
            }
        }, cancellationToken);
    }

    public async Task<IReadOnlyList<StoredMsdbRestore>> ReadAsync(CancellationToken cancellationToken)
    {
        return await _retry.RunAsync(async token =>
        {
            await using var connection = await connections.OpenAsync(token);
            await using var command = connections.Command(connection, RestoresQuery);
            var restores = new List<StoredMsdbRestore>();
            await using var reader = await command.ExecuteReaderAsync(token);
            while (await reader.ReadAsync(token))
            {
                if (Lsn(reader.GetString(7)) is not { } first || Lsn(reader.GetString(8)) is not { } last || reader.GetString(5) is not { Length: 1 } type)
                {
                    // A row edited by hand: skipped, as the SQLite history skips one.
                    continue;
                }

                var source = new BackupSetRow(
                    reader.GetString(4), type[0], reader.GetBoolean(6), first, last,
                    reader.IsDBNull(9) ? null : Lsn(reader.GetString(9)), reader.IsDBNull(10) ? null : Lsn(reader.GetString(10)),
                    reader.IsDBNull(11) ? null : reader.GetString(11), reader.GetDateTime(12), reader.GetDateTime(13),
                    reader.IsDBNull(14) ? null : reader.GetInt64(14), reader.IsDBNull(15) ? null : reader.GetInt64(15));
                restores.Add(new StoredMsdbRestore(
                    reader.GetString(0), new DatabaseRestore(reader.GetString(1), reader.GetDateTime(2), reader.IsDBNull(3) ? null : reader.GetBoolean(3), source)));
            }

            return (IReadOnlyList<StoredMsdbRestore>)restores;
        }, cancellationToken);
    }

    // An LSN is numeric(25,0): kept as its digits, as migration 4 keeps a backup's.
    private static string Digits(decimal lsn) => lsn.ToString("0", CultureInfo.InvariantCulture);

    private static decimal? Lsn(string digits)
        => decimal.TryParse(digits, NumberStyles.None, CultureInfo.InvariantCulture, out var lsn) ? lsn : null;

}
