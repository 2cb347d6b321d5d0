using System.Data;
using BackupXe.Core.Tuning;
using BackupXe.SqlServer.Client;
using Microsoft.Data.SqlClient;

namespace BackupXe.SqlServer.Tuning;

/// <summary>
/// What <c>backupxe tune</c> reads from a live server before planning, read-only: the database's data size, whether
/// compression is available and on by default, the algorithms its version has, TDE, the platform, and whether another
/// backup or restore of the database runs. The login needs VIEW SERVER STATE on SQL Server 2019 and earlier and VIEW
/// SERVER PERFORMANCE STATE on 2022 and later (what sys.dm_exec_requests and sys.dm_os_volume_stats document; VIEW
/// SERVER STATE covers it), and VIEW ANY DEFINITION, checked first.
/// </summary>
internal sealed class LiveTuningServer(SqlConnectionFactory factory) : ITuningServer
{
    /// <summary>
    /// SERVERPROPERTY returns NULL for a property an older build does not know (PathSeparator is 2017+), so one
    /// query serves every supported version.
    /// </summary>
    public const string FactsQuery = """
        SELECT
            CAST(SERVERPROPERTY('ProductMajorVersion') AS int) AS major_version,
            CAST(SERVERPROPERTY('EngineEdition') AS int) AS engine_edition,
            CAST(SERVERPROPERTY('PathSeparator') AS nvarchar(1)) AS path_separator,
            CASE WHEN CAST(SERVERPROPERTY('ProductMajorVersion') AS int) >= 16
                 THEN HAS_PERMS_BY_NAME(NULL, NULL, N'VIEW SERVER PERFORMANCE STATE')
                 ELSE HAS_PERMS_BY_NAME(NULL, NULL, N'VIEW SERVER STATE') END AS view_server_state,
            HAS_PERMS_BY_NAME(NULL, NULL, N'VIEW ANY DEFINITION') AS view_any_definition,
            (SELECT SUM(CAST(f.size AS bigint)) * 8192 FROM sys.master_files AS f WHERE f.database_id = DB_ID(@database) AND f.type = 0) AS data_bytes,
            (SELECT SUM(CAST(f.size AS bigint)) * 8192 FROM sys.master_files AS f WHERE f.database_id = DB_ID(@database) AND f.type = 1) AS log_bytes,
            (SELECT CAST(c.value_in_use AS int) FROM sys.configurations AS c WHERE c.name = N'backup compression default') AS compression_default,
            (SELECT CAST(d.is_encrypted AS int) FROM sys.databases AS d WHERE d.name = @database) AS is_encrypted;
        """;

    /// <summary>A BACKUP or RESTORE of the database in progress (sys.dm_exec_requests.command).</summary>
    public const string RunningQuery = """
        SELECT COUNT(*) AS running
        FROM sys.dm_exec_requests AS r
        WHERE r.database_id = DB_ID(@database)
          AND (r.command LIKE N'BACKUP%' OR r.command LIKE N'RESTORE%');
        """;

    /// <summary>Engine editions with backup compression: Standard (2), Enterprise/Developer (3), Managed Instance (8).</summary>
    private static readonly System.Collections.Immutable.ImmutableArray<int> CompressingEditions = [2, 3, 8];

    public async Task<TuningFacts> DescribeAsync(string database, CancellationToken cancellationToken)
    {
        await using var connection = await factory.OpenAsync(cancellationToken).ConfigureAwait(false);
        await using var command = factory.Command(connection, FactsQuery);
        command.Parameters.Add(new SqlParameter("@database", SqlDbType.NVarChar, 128) { Value = database });
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            throw new InvalidOperationException("the server returned no row for its facts.");
        }

        var major = (int)(SqlRows.Number(reader, "major_version") ?? 0);
        var missing = new List<string>();
        if (SqlRows.Number(reader, "view_server_state") != 1)
        {
            missing.Add(major >= 16 ? "VIEW SERVER PERFORMANCE STATE" : "VIEW SERVER STATE");
        }

        if (SqlRows.Number(reader, "view_any_definition") != 1)
        {
            missing.Add("VIEW ANY DEFINITION");
        }

        if (missing.Count > 0)
        {
            throw new InvalidOperationException($"the login lacks {string.Join(" and ", missing)}, which tune needs to read the database's files and the running requests: GRANT {string.Join(", ", missing)} TO <login>;");
        }

        if (SqlRows.Number(reader, "data_bytes") is not { } bytes)
        {
            throw new InvalidOperationException($"database {database} was not found on the server.");
        }

        var edition = (int)(SqlRows.Number(reader, "engine_edition") ?? 0);
        var compression = CompressingEditions.Contains(edition);
        return new TuningFacts(
            bytes,
            compression,
            CompressionDefault: SqlRows.Number(reader, "compression_default") == 1,
            CompressionAlgorithms: !compression ? [] : major >= 17 ? ["MS_XPRESS", "ZSTD"] : ["MS_XPRESS"],
            CompressionLevels: major >= 17 ? ["LOW", "MEDIUM", "HIGH"] : [],
            Encrypted: SqlRows.Number(reader, "is_encrypted") == 1,
            Linux: SqlRows.Text(reader, "path_separator") == "/")
        {
            // A full backup holds at most the log's allocated size of it: part of the bound on what trial files hold.
            LogBytes = SqlRows.Number(reader, "log_bytes") is { } log and > 0 ? log : 0,
            MajorVersion = major > 0 ? major : null,
            EngineEdition = edition > 0 ? edition : null,
        };
    }

    public async Task<bool> BackupOrRestoreRunningAsync(string database, CancellationToken cancellationToken)
    {
        await using var connection = await factory.OpenAsync(cancellationToken).ConfigureAwait(false);
        await using var command = factory.Command(connection, RunningQuery);
        command.Parameters.Add(new SqlParameter("@database", SqlDbType.NVarChar, 128) { Value = database });
        return Convert.ToInt64(await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false), System.Globalization.CultureInfo.InvariantCulture) > 0;
    }
}
