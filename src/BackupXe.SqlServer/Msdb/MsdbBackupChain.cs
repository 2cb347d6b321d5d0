using System.Data;
using System.Globalization;
using BackupXe.Core.Restores;
using BackupXe.SqlServer.Client;
using Microsoft.Data.SqlClient;

namespace BackupXe.SqlServer.Msdb;

/// <summary>
/// Reads the columns of msdb.dbo.backupset a restore chain rests on, read-only, and checks each database's chain
/// (<see cref="RestoreChain"/>). The LSN columns are numeric(25,0) on the server and are sent as text (CONVERT to
/// nvarchar(25)), which every client reads the same way and which parses to a decimal exactly.
/// </summary>
public sealed class MsdbBackupChain(SqlConnectionFactory factory)
{
    // The backupset columns both queries read, each into a BackupSetRow (Row).
    private const string BackupSetColumns = """
        bs.database_name,
        CAST(bs.type AS nvarchar(1)) AS backup_type,
        bs.is_copy_only,
        CONVERT(nvarchar(25), bs.first_lsn) AS first_lsn,
        CONVERT(nvarchar(25), bs.last_lsn) AS last_lsn,
        CONVERT(nvarchar(25), bs.database_backup_lsn) AS database_backup_lsn,
        CONVERT(nvarchar(25), bs.checkpoint_lsn) AS checkpoint_lsn,
        bs.recovery_model,
        bs.backup_start_date,
        bs.backup_finish_date,
        CAST(bs.backup_size AS bigint) AS backup_size,
        CAST(bs.compressed_backup_size AS bigint) AS compressed_backup_size,
        """;

    /// <summary>
    /// Database (D), differential (I) and log (L) backups since <c>@since</c> (server local time), in order, with their
    /// encryption where the server has the columns (<paramref name="encryptionColumns"/>: key_algorithm and
    /// encryptor_type, from SQL Server 2014) and the device type of their media families.
    /// </summary>
    public static string Query(bool encryptionColumns) => $"""
        SELECT {BackupSetColumns}
               {(encryptionColumns ? "CAST(bs.key_algorithm AS nvarchar(32))" : "CAST(NULL AS nvarchar(32))")} AS key_algorithm,
               {(encryptionColumns ? "CAST(bs.encryptor_type AS nvarchar(32))" : "CAST(NULL AS nvarchar(32))")} AS encryptor_type,
               (SELECT MIN(CAST(mf.device_type AS int)) FROM msdb.dbo.backupmediafamily AS mf WHERE mf.media_set_id = bs.media_set_id) AS device_type
        FROM msdb.dbo.backupset AS bs
        WHERE bs.backup_start_date >= @since AND bs.type IN ('D', 'I', 'L')
        ORDER BY bs.database_name, bs.backup_start_date, bs.first_lsn;
        """;

    /// <summary>
    /// Full database restores (restore_type D) since <c>@since</c> (restore_date, server local time) with the backup set
    /// each read, in the columns <see cref="Query"/> reads (encryption and media not asked: the chain needs the LSNs): a
    /// restore starts its destination's chain anew (docs/restore-chain.md).
    /// </summary>
    public const string RestoresQuery = $"""
        SELECT rh.destination_database_name,
               rh.restore_date,
               rh.[replace],
               {BackupSetColumns}
               CAST(NULL AS nvarchar(32)) AS key_algorithm,
               CAST(NULL AS nvarchar(32)) AS encryptor_type,
               CAST(NULL AS int) AS device_type
        FROM msdb.dbo.restorehistory AS rh
        JOIN msdb.dbo.backupset AS bs ON bs.backup_set_id = rh.backup_set_id
        WHERE rh.restore_date >= @since AND rh.restore_type = 'D'
        ORDER BY rh.destination_database_name, rh.restore_date;
        """;

    public async Task<IReadOnlyList<RestoreChainReport>> CheckAsync(DateTime since, IReadOnlyCollection<string> databases, CancellationToken cancellationToken)
    {
        await using var connection = await factory.OpenAsync(cancellationToken).ConfigureAwait(false);
        var skipped = new List<(string Database, string Reason)>();
        var sets = await ReadAsync(connection, since, databases, cancellationToken, skipped).ConfigureAwait(false);
        var (restores, unread) = await ReadRestoresAsync(connection, since, databases, cancellationToken).ConfigureAwait(false);
        return RestoreChain.Check(sets, restores, unread, skipped);
    }

    /// <summary>
    /// The full database restores into <paramref name="databases"/> (all when empty) since <paramref name="since"/>; when
    /// restorehistory cannot be read (a login with SELECT on backupset alone), none and why, so the chain is still checked.
    /// </summary>
    public async Task<(IReadOnlyList<DatabaseRestore> Restores, string? Unread)> ReadRestoresAsync(
        SqlConnection connection, DateTime since, IReadOnlyCollection<string> databases, CancellationToken cancellationToken)
    {
        try
        {
            await using var command = factory.Command(connection, RestoresQuery);
            command.Parameters.Add("@since", SqlDbType.DateTime).Value = since;
            await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
            var restores = new List<DatabaseRestore>();
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                var at = reader.GetOrdinal("restore_date");
                if (SqlRows.Text(reader, "destination_database_name") is { } destination && !reader.IsDBNull(at) && Row(reader, out _) is { } source
                    && (databases.Count == 0 || databases.Contains(destination, StringComparer.OrdinalIgnoreCase)))
                {
                    restores.Add(new DatabaseRestore(destination, reader.GetDateTime(at), SqlRows.Flag(reader, "replace"), source));
                }
            }

            return (restores, null);
        }
        catch (SqlException failure)
        {
            return ([], ConnectionStringRedactor.RedactMessage(failure.Message));
        }
    }

    /// <summary>
    /// The backup sets of <paramref name="databases"/> (all when empty) since <paramref name="since"/>, on an open
    /// connection; a row whose LSN is no LSN, or which finishes before it starts, is left out and said in <paramref name="skipped"/>.
    /// </summary>
    public async Task<IReadOnlyList<BackupSetRow>> ReadAsync(
        SqlConnection connection, DateTime since, IReadOnlyCollection<string> databases, CancellationToken cancellationToken,
        List<(string Database, string Reason)>? skipped = null)
    {
        var encryption = await EncryptionColumnsAsync(connection, cancellationToken).ConfigureAwait(false);
        await using var command = factory.Command(connection, Query(encryption));
        command.Parameters.Add("@since", SqlDbType.DateTime).Value = since;
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        var rows = new List<BackupSetRow>();
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            var row = Row(reader, out var damage);
            if (row is not null && (databases.Count == 0 || databases.Contains(row.Database, StringComparer.OrdinalIgnoreCase)))
            {
                rows.Add(row);
            }
            else if (damage is { } left && (databases.Count == 0 || databases.Contains(left.Database, StringComparer.OrdinalIgnoreCase)))
            {
                skipped?.Add(left);
            }
        }

        return rows;
    }

    /// <summary>Whether backupset has key_algorithm and encryptor_type (<see cref="MsdbBackupHistory.ColumnsQuery"/>): not before backup encryption.</summary>
    private async Task<bool> EncryptionColumnsAsync(SqlConnection connection, CancellationToken cancellationToken)
    {
        await using var command = factory.Command(connection, MsdbBackupHistory.ColumnsQuery);
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        return await reader.ReadAsync(cancellationToken).ConfigureAwait(false) && !reader.IsDBNull(1) && !reader.IsDBNull(3);
    }

    /// <summary>
    /// One backup set, or null for a row whose LSNs or dates are missing (msdb keeps them for every completed backup);
    /// <paramref name="damage"/> says why a row of a named database was left out when its values are there but impossible.
    /// </summary>
    private static BackupSetRow? Row(SqlDataReader reader, out (string Database, string Reason)? damage)
    {
        damage = null;
        var type = SqlRows.Text(reader, "backup_type");
        var firstText = SqlRows.Text(reader, "first_lsn");
        var lastText = SqlRows.Text(reader, "last_lsn");
        var first = Lsn(firstText);
        var last = Lsn(lastText);
        var start = reader.IsDBNull(reader.GetOrdinal("backup_start_date")) ? (DateTime?)null : reader.GetDateTime(reader.GetOrdinal("backup_start_date"));
        var finish = reader.IsDBNull(reader.GetOrdinal("backup_finish_date")) ? (DateTime?)null : reader.GetDateTime(reader.GetOrdinal("backup_finish_date"));
        if (SqlRows.Text(reader, "database_name") is not { } database || type is not { Length: 1 } || start is null || finish is null)
        {
            return null;
        }

        var what = string.Create(CultureInfo.InvariantCulture, $"the msdb backup set of {start.Value:yyyy-MM-dd HH:mm:ss} (type {type})");
        if ((firstText, first) is (not null, null) || (lastText, last) is (not null, null))
        {
            var (column, text) = first is null ? ("first_lsn", firstText!) : ("last_lsn", lastText!);
            damage = (database, $"{what} has {column} '{Shown(text)}', which is no LSN (numeric(25,0)): left out of the chain");
            return null;
        }

        if (first is null || last is null)
        {
            return null;
        }

        if (finish < start)
        {
            damage = (database, string.Create(CultureInfo.InvariantCulture, $"{what} finishes at {finish.Value:yyyy-MM-dd HH:mm:ss}, before it starts: left out of the chain"));
            return null;
        }

        return new BackupSetRow(
            database, char.ToUpperInvariant(type[0]), SqlRows.Flag(reader, "is_copy_only") ?? false, first.Value, last.Value,
            Lsn(SqlRows.Text(reader, "database_backup_lsn")), Lsn(SqlRows.Text(reader, "checkpoint_lsn")),
            SqlRows.Text(reader, "recovery_model"), start.Value, finish.Value,
            Size(reader, "backup_size"), Size(reader, "compressed_backup_size"))
        {
            KeyAlgorithm = SqlRows.Text(reader, "key_algorithm"),
            EncryptorType = SqlRows.Text(reader, "encryptor_type"),
            // tinyint on the server: anything else is no device type.
            Device = SqlRows.Number(reader, "device_type") is { } deviceType and >= 0 and <= 255 ? MsdbBackupHistory.DeviceKindOf((int)deviceType) : null,
        };
    }

    // numeric(20,0) cast to bigint; a negative size is no size.
    private static long? Size(SqlDataReader reader, string column) => SqlRows.Number(reader, column) is { } value and >= 0 ? value : null;

    // A damaged value is quoted by its head only.
    private static string Shown(string text) => text.Length <= 32 ? text : text[..32] + "...";

    // numeric(25,0): at most 25 digits, within decimal's 28; anything else is not an LSN.
    private static decimal? Lsn(string? text) =>
        text is { Length: > 0 and <= 25 } && decimal.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var value) ? value : null;
}
