using System.Data.Common;
using System.Globalization;
using System.Text;
using BackupXe.Core.Events;
using BackupXe.Core.History;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.SqlServer.Msdb;

/// <summary>Which optional backupset columns the server has (they arrived over the versions).</summary>
/// <param name="CompressedSize">compressed_backup_size, SQL Server 2008+ (backup compression arrived with it).</param>
/// <param name="KeyAlgorithm">key_algorithm, 2014+ (backup encryption).</param>
/// <param name="CompressionAlgorithm">compression_algorithm, 2022+.</param>
/// <param name="EncryptorType">encryptor_type, with backup encryption (2014; RESTORE HEADERONLY's EncryptorType from 2014 CU1).</param>
internal sealed record MsdbColumns(bool CompressedSize, bool KeyAlgorithm, bool CompressionAlgorithm, bool EncryptorType = false);

/// <summary>
/// Backups from msdb.dbo.backupset and backupmediafamily: one operation per backup set, one device per media
/// family row. Read-only. Facts from the Microsoft documentation of both tables: backup_start_date and
/// backup_finish_date are datetime in whole seconds of server local time; time_zone is the offset from UTC in
/// 15-minute steps (127 unknown); type D database, I differential, L log, F file/filegroup, G differential
/// file, P partial, Q differential partial; device_type 2 disk, 5 tape, 7 virtual device, 9 URL, 105 a permanent
/// backup device (102 too on older pages); key_algorithm NO_Encryption = not encrypted, encryptor_type (a certificate or
/// an asymmetric key) NULL when not encrypted; compressed_backup_size NULL
/// after an msdb upgrade = not compressed; is_snapshot 1 = taken with the SNAPSHOT option. msdb keeps successful backups only.
/// </summary>
internal static class MsdbBackupHistory
{
    /// <summary>Which optional columns exist: COL_LENGTH is NULL for a missing one.</summary>
    public const string ColumnsQuery = """
        SELECT CAST(COL_LENGTH(N'msdb.dbo.backupset', N'compressed_backup_size') AS int) AS compressed_backup_size,
               CAST(COL_LENGTH(N'msdb.dbo.backupset', N'key_algorithm') AS int) AS key_algorithm,
               CAST(COL_LENGTH(N'msdb.dbo.backupset', N'compression_algorithm') AS int) AS compression_algorithm,
               CAST(COL_LENGTH(N'msdb.dbo.backupset', N'encryptor_type') AS int) AS encryptor_type;
        """;

    /// <summary>
    /// The online databases, and which have AUTO_CLOSE on: their GUID is not asked for, since reading
    /// sys.database_recovery_status starts a database that is not open.
    /// </summary>
    public const string DatabasesQuery = """
        SELECT d.database_id, d.name, CAST(d.is_auto_close_on AS int) AS is_auto_close_on
        FROM sys.databases AS d
        WHERE d.state = 0;
        """;

    /// <summary>
    /// The databases of an availability group on this replica and their group_database_id (sys.databases, SQL Server 2012
    /// and later: the same on every replica the database joined, NULL outside a group), which merges a group database's
    /// backups across replicas (docs/fleet.md, "Availability groups"). Before 2012 the column does not exist (error 207).
    /// </summary>
    public const string GroupDatabasesQuery = """
        SELECT d.name, CAST(d.group_database_id AS nvarchar(36)) AS group_database_id
        FROM sys.databases AS d
        WHERE d.group_database_id IS NOT NULL;
        """;

    /// <summary>The GUID of the one database <c>@database_id</c> (asked only for a database without AUTO_CLOSE).</summary>
    public const string GuidQuery = """
        SELECT CAST(drs.database_guid AS nvarchar(36)) AS database_guid
        FROM sys.database_recovery_status AS drs
        WHERE drs.database_id = @database_id;
        """;

    /// <summary>
    /// The history query for a server with <paramref name="columns"/>, filtered on <c>@since</c> and on
    /// <paramref name="databaseCount"/> parameters <c>@d0</c>... (names as recorded) or <paramref name="guidCount"/>
    /// parameters <c>@g0</c>... (the GUIDs of those databases today, so a renamed one is found). Every value is cast
    /// to a plain type (numeric(20,0) sizes to bigint, tinyint to int) so that any client reads it the same way.
    /// msdb alone: the backup's database_guid is matched to today's name by the caller (<see cref="ReadAsync"/>).
    /// </summary>
    public static string Query(MsdbColumns columns, int databaseCount, int guidCount = 0)
    {
        var sql = new StringBuilder();
        sql.Append("""
            SELECT bs.backup_set_id,
                   bs.database_name AS recorded_name,
                   CAST(bs.database_guid AS nvarchar(36)) AS database_guid,
                   CAST(bs.type AS nvarchar(1)) AS backup_type,
                   bs.is_copy_only,
                   bs.is_snapshot,
                   bs.has_backup_checksums,
                   bs.backup_start_date,
                   bs.backup_finish_date,
                   CAST(bs.backup_size AS bigint) AS backup_size,

            """);
        sql.Append(columns.CompressedSize ? "       CAST(bs.compressed_backup_size AS bigint)" : "       CAST(NULL AS bigint)").Append(" AS compressed_backup_size,\n");
        sql.Append(columns.KeyAlgorithm ? "       CAST(bs.key_algorithm AS nvarchar(32))" : "       CAST(NULL AS nvarchar(32))").Append(" AS key_algorithm,\n");
        sql.Append(columns.CompressionAlgorithm ? "       CAST(bs.compression_algorithm AS nvarchar(32))" : "       CAST(NULL AS nvarchar(32))").Append(" AS compression_algorithm,\n");
        sql.Append("""
                   CAST(bs.time_zone AS int) AS time_zone,
                   mf.physical_device_name,
                   CAST(mf.device_type AS int) AS device_type,
                   CAST(ISNULL(mf.mirror, 0) AS int) AS mirror,

            """);
        sql.Append(columns.EncryptorType ? "       CAST(bs.encryptor_type AS nvarchar(32))" : "       CAST(NULL AS nvarchar(32))").Append(" AS encryptor_type,\n");
        sql.Append("""
                   CAST(bs.software_major_version AS int) AS software_major_version,
                   CAST(bs.software_minor_version AS int) AS software_minor_version,
                   CAST(bs.software_build_version AS int) AS software_build_version,
                   CONVERT(nvarchar(25), bs.first_lsn) AS first_lsn,
                   CONVERT(nvarchar(25), bs.last_lsn) AS last_lsn,
                   CONVERT(nvarchar(25), bs.database_backup_lsn) AS database_backup_lsn,
                   CONVERT(nvarchar(25), bs.checkpoint_lsn) AS checkpoint_lsn,
                   bs.recovery_model,
                   CAST(bs.family_guid AS nvarchar(36)) AS family_guid
            FROM msdb.dbo.backupset AS bs
            JOIN msdb.dbo.backupmediafamily AS mf ON mf.media_set_id = bs.media_set_id
            WHERE bs.backup_start_date >= @since
            """);
        if (databaseCount > 0)
        {
            var names = string.Join(", ", Enumerable.Range(0, databaseCount).Select(i => string.Create(CultureInfo.InvariantCulture, $"@d{i}")));
            sql.Append("\n  AND (bs.database_name IN (").Append(names).Append(')');
            if (guidCount > 0)
            {
                sql.Append(" OR bs.database_guid IN (")
                    .AppendJoin(", ", Enumerable.Range(0, guidCount).Select(i => string.Create(CultureInfo.InvariantCulture, $"@g{i}")))
                    .Append(')');
            }

            sql.Append(')');
        }

        sql.Append("\nORDER BY bs.backup_set_id, mirror, mf.family_sequence_number;\n");
        return sql.ToString();
    }

    /// <summary>
    /// The backups in the rows of <see cref="Query"/>, consecutive rows of one backup_set_id making one operation,
    /// each under its database's name today when <paramref name="currentNames"/> knows its GUID.
    /// </summary>
    /// <param name="notes">Where a row with impossible values (a finish before its start) is said; its impossible part is not used.</param>
    /// <param name="groups">
    /// The group_database_id of each availability group database on this replica by name (<see cref="GroupDatabasesQuery"/>),
    /// given to the backups of the database of that name today (a backup of an earlier database of the name, whose
    /// database_guid is not today's, gets none); null or empty: none.
    /// </param>
    public static async IAsyncEnumerable<HistoryOperation> ReadAsync(
        DbDataReader reader, MsdbColumns columns, IReadOnlyDictionary<Guid, string> currentNames, [System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken cancellationToken,
        List<string>? notes = null, IReadOnlyDictionary<string, Guid>? groups = null)
    {
        HistoryOperation? current = null;
        var currentId = -1;
        var devices = new List<BackupDevice>();
        while (await reader.ReadAsync(cancellationToken))
        {
            var id = reader.GetInt32(reader.GetOrdinal("backup_set_id"));
            if (id != currentId && current is not null)
            {
                yield return current with { Devices = devices };
                devices = [];
            }

            if (id != currentId)
            {
                current = Operation(reader, columns, currentNames, notes, groups);
                currentId = id;
            }

            if (Text(reader, "physical_device_name") is { } path)
            {
                var type = Int(reader, "device_type") ?? 2;
                devices.Add(new BackupDevice(DeviceKindOf(type), path, IsMirror: Int(reader, "mirror") is > 0));
            }
        }

        if (current is not null)
        {
            yield return current with { Devices = devices };
        }
    }

    private static HistoryOperation Operation(
        DbDataReader reader, MsdbColumns columns, IReadOnlyDictionary<Guid, string> currentNames, List<string>? notes, IReadOnlyDictionary<string, Guid>? groups)
    {
        var databaseGuid = DatabaseIdentity.Parse(Text(reader, "database_guid"));
        var today = databaseGuid is { } guid && currentNames.TryGetValue(guid, out var name) ? name : null;
        var size = Long(reader, "backup_size");
        // Without the column (2005) nothing could be compressed; NULL is what an msdb upgrade leaves, an uncompressed backup.
        var written = columns.CompressedSize ? Long(reader, "compressed_backup_size") ?? size : size;
        var start = reader.GetDateTime(reader.GetOrdinal("backup_start_date"));
        var finish = reader.IsDBNull(reader.GetOrdinal("backup_finish_date")) ? (DateTime?)null : reader.GetDateTime(reader.GetOrdinal("backup_finish_date"));
        if (finish < start)
        {
            // No clock runs backwards inside one backup: the end is damage, and a duration from it would be negative.
            notes?.Add(string.Create(CultureInfo.InvariantCulture,
                $"msdb backup set {reader.GetInt32(reader.GetOrdinal("backup_set_id"))} of [{today ?? Text(reader, "recorded_name")}] finishes at {finish:yyyy-MM-dd HH:mm:ss}, before it starts at {start:yyyy-MM-dd HH:mm:ss}: imported without its end"));
            finish = null;
        }

        var (lsns, lsnProblem) = BackupLsns.From(Text(reader, "first_lsn"), Text(reader, "last_lsn"), Text(reader, "database_backup_lsn"), Text(reader, "checkpoint_lsn"));
        if (lsnProblem is not null)
        {
            notes?.Add(string.Create(CultureInfo.InvariantCulture,
                $"msdb backup set {reader.GetInt32(reader.GetOrdinal("backup_set_id"))} of [{today ?? Text(reader, "recorded_name")}]: {lsnProblem}"));
        }

        // Joined by name on this replica, for the database of that name today only: an earlier one of the name is another database.
        Guid? group = groups is { Count: > 0 } && (today ?? (databaseGuid is null ? Text(reader, "recorded_name") : null)) is { } current
            && groups.TryGetValue(current, out var id) ? id : null;
        var algorithm = Text(reader, "compression_algorithm");
        bool? compressed = size is { } s && written is { } w ? w < s : null;
        var zone = Int(reader, "time_zone");
        bool? encrypted = columns.KeyAlgorithm ? IsEncrypted(Text(reader, "key_algorithm")) : null;
        return new HistoryOperation
        {
            Kind = OperationKind.Backup,
            Scope = ScopeOf(Text(reader, "backup_type")),
            Database = today ?? Text(reader, "recorded_name"),
            Start = DateTime.SpecifyKind(start, DateTimeKind.Unspecified),
            End = finish is { } f ? DateTime.SpecifyKind(f, DateTimeKind.Unspecified) : null,
            TimeResolutionSeconds = 1,
            Status = OperationStatus.Completed,
            BytesRead = size,
            BytesWritten = written,
            Options = new HistoryOptions
            {
                Compression = compressed,
                CompressionAlgorithm = compressed is true ? algorithm : null,
                CopyOnly = Bool(reader, "is_copy_only"),
                Checksum = Bool(reader, "has_backup_checksums"),
                Encryption = encrypted,
                EncryptionAlgorithm = encrypted is true ? Text(reader, "key_algorithm")?.Trim() : null,
                Encryptor = encrypted is true && columns.EncryptorType ? Text(reader, "encryptor_type")?.Trim() : null,
            },
            ServerBuild = Int(reader, "software_major_version") is { } major and > 0 && Int(reader, "software_minor_version") is { } minor and >= 0
                && Int(reader, "software_build_version") is { } build and >= 0
                ? string.Create(CultureInfo.InvariantCulture, $"{major}.{minor}.{build}")
                : null,
            UtcOffset = zone is >= -48 and <= 48 ? TimeSpan.FromMinutes(zone.Value * 15) : null,
            // Taken WITH SNAPSHOT (VSS or T-SQL snapshot): its size over its time is no transfer speed, so it is counted apart.
            Snapshot = Bool(reader, "is_snapshot") is true,
            Lsns = lsns,
            RecoveryModel = RecoveryModels.Of(Text(reader, "recovery_model")),
            Identity = DatabaseIdentity.Of(DatabaseIdentity.Parse(Text(reader, "family_guid")), databaseGuid, group),
            Sources = [HistorySource.Msdb],
        };
    }

    private static OperationScope ScopeOf(string? type) => type?.Trim().ToUpperInvariant() switch
    {
        "L" => OperationScope.Log,
        "I" or "G" or "Q" => OperationScope.Differential,
        "F" or "P" => OperationScope.File,
        _ => OperationScope.Database,
    };

    /// <summary>key_algorithm as the backupset page defines it: the algorithm, or NO_Encryption for none.</summary>
    internal static bool IsEncrypted(string? keyAlgorithm) =>
        keyAlgorithm is { } value && !string.IsNullOrWhiteSpace(value)
        && !string.Equals(value.Trim(), NoEncryption, StringComparison.OrdinalIgnoreCase);

    /// <summary>The key_algorithm (and RESTORE HEADERONLY KeyAlgorithm) value of a backup that is not encrypted.</summary>
    public const string NoEncryption = "NO_Encryption";

    // A permanent device (sys.backup_devices) is named by its logical name, whatever its medium.
    internal static DeviceKind DeviceKindOf(int type) => type switch
    {
        >= 100 => DeviceKind.Logical,
        5 => DeviceKind.Tape,
        7 => DeviceKind.Virtual,
        9 => DeviceKind.Url,
        _ => DeviceKind.Disk,
    };

    private static string? Text(DbDataReader reader, string column)
    {
        var ordinal = reader.GetOrdinal(column);
        return reader.IsDBNull(ordinal) ? null : reader.GetString(ordinal);
    }

    private static int? Int(DbDataReader reader, string column)
    {
        var ordinal = reader.GetOrdinal(column);
        return reader.IsDBNull(ordinal) ? null : reader.GetInt32(ordinal);
    }

    private static long? Long(DbDataReader reader, string column)
    {
        var ordinal = reader.GetOrdinal(column);
        return reader.IsDBNull(ordinal) ? null : reader.GetInt64(ordinal) is var value and >= 0 ? value : null;
    }

    private static bool? Bool(DbDataReader reader, string column)
    {
        var ordinal = reader.GetOrdinal(column);
        return reader.IsDBNull(ordinal) ? null : reader.GetBoolean(ordinal);
    }
}
