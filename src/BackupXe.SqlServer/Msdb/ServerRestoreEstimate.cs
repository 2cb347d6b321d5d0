using System.Data.Common;
using BackupXe.Core.Events;
using BackupXe.Core.History;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using BackupXe.Core.Restores;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Preflight;
using Microsoft.Data.SqlClient;

namespace BackupXe.SqlServer.Msdb;

/// <summary>
/// Reads, read-only, what a restore estimate rests on (docs/restore-chain.md, "Restore time"): the backup sets of the
/// restore chain with their sizes (<see cref="MsdbBackupChain"/>), each database's data and log file sizes
/// (<see cref="Query"/>) and the Instant File Initialization state (<see cref="PreflightQueries.InstantFileInitialization"/>),
/// then estimates each database with the rates measured in a history and in msdb's own backups.
/// </summary>
public sealed class ServerRestoreEstimate(SqlConnectionFactory factory)
{
    private const long PageBytes = 8192;

    /// <summary>
    /// Each database's data (type 0, ROWS) and log (type 1) files in 8 KB pages, summed, the server's major version, and
    /// whether the database is encrypted with TDE (sys.databases.is_encrypted; NULL when its row is not visible).
    /// A login without CREATE DATABASE, ALTER ANY DATABASE or VIEW ANY DEFINITION sees no row (no error).
    /// </summary>
    public const string Query = """
        SELECT DB_NAME(mf.database_id) AS database_name,
               SUM(CASE WHEN mf.type = 0 THEN CAST(mf.size AS bigint) ELSE 0 END) AS data_pages,
               SUM(CASE WHEN mf.type = 1 THEN CAST(mf.size AS bigint) ELSE 0 END) AS log_pages,
               CAST(SERVERPROPERTY('ProductMajorVersion') AS int) AS product_major_version,
               MAX(CAST(d.is_encrypted AS int)) AS is_encrypted
        FROM sys.master_files AS mf
        LEFT JOIN sys.databases AS d ON d.database_id = mf.database_id
        GROUP BY mf.database_id;
        """;

    /// <param name="history">Operations of this server from a history (any instance name already chosen by the caller); empty for none.</param>
    public async Task<IReadOnlyList<RestoreEstimateReport>> EstimateAsync(
        DateTime since, IReadOnlyCollection<string> databases, IReadOnlyList<HistoryOperation> history, CancellationToken cancellationToken)
    {
        await using var connection = await factory.OpenAsync(cancellationToken).ConfigureAwait(false);
        var chain = new MsdbBackupChain(factory);
        var sets = await chain.ReadAsync(connection, since, databases, cancellationToken).ConfigureAwait(false);
        // A database restored since has its plan from the chain it is on now; unread, the plan is made from all its sets.
        var (restores, restoresUnread) = await chain.ReadRestoresAsync(connection, since, databases, cancellationToken).ConfigureAwait(false);
        var (files, major) = await FilesAsync(connection, cancellationToken).ConfigureAwait(false);
        var (ifi, ifiNote) = await InstantFileInitializationAsync(connection, cancellationToken).ConfigureAwait(false);

        // msdb's own backups measure the backup rate where no history names the server: the same sets, whole seconds.
        // A backup the history already holds (imported from this msdb) is counted once.
        var known = history.Where(o => o.Kind == OperationKind.Backup)
            .Select(o => (o.Database?.ToUpperInvariant(), o.Scope, o.Start)).ToHashSet();
        var measured = history.Concat(sets.Select(AsOperation).Where(o => !known.Contains((o.Database?.ToUpperInvariant(), o.Scope, o.Start)))).ToList();
        var reports = new List<RestoreEstimateReport>();
        foreach (var plan in RestorePlanner.Plan(sets, restores))
        {
            var notes = new List<string>();
            if (restoresUnread is not null)
            {
                notes.Add($"msdb.dbo.restorehistory could not be read ({restoresUnread}): had this database been restored since, the plan could mix its earlier chain with the current one");
            }

            if (ifiNote is not null)
            {
                notes.Add(ifiNote);
            }

            long? data = null;
            long? log = null;
            bool? encrypted = null;
            if (files.TryGetValue(plan.Database, out var pages))
            {
                (data, log, encrypted) = (pages.Data * PageBytes, pages.Log * PageBytes, pages.Encrypted);
                if (encrypted is true)
                {
                    notes.Add("encrypted with TDE: a restore on another server needs there the certificate that protects its database encryption key");
                }
            }
            else
            {
                notes.Add("sys.master_files shows no file of this database: the database is not on this server, or the login lacks VIEW ANY DEFINITION (or CREATE DATABASE, ALTER ANY DATABASE)");
            }

            reports.Add(RestoreEstimator.Report(plan, new RestoreTarget(data, log, ifi, major) { Encrypted = encrypted }, measured, notes));
        }

        return reports;
    }

    private async Task<(Dictionary<string, (long Data, long Log, bool? Encrypted)> Files, int? Major)> FilesAsync(SqlConnection connection, CancellationToken cancellationToken)
    {
        var files = new Dictionary<string, (long Data, long Log, bool? Encrypted)>(StringComparer.OrdinalIgnoreCase);
        int? major = null;
        await using var command = factory.Command(connection, Query);
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            major ??= SqlRows.Number(reader, "product_major_version") is { } m and > 0 and < 100 ? (int)m : null;
            if (SqlRows.Text(reader, "database_name") is { } name
                && SqlRows.Number(reader, "data_pages") is { } data and >= 0
                && SqlRows.Number(reader, "log_pages") is { } log and >= 0)
            {
                files[name] = (data, log, SqlRows.Number(reader, "is_encrypted") switch { 1 => true, 0 => false, _ => null });
            }
        }

        return (files, major);
    }

    /// <summary>Enabled, disabled, or not known with the reason: a build without the column, or a login without the permission.</summary>
    private async Task<(bool? Enabled, string? Note)> InstantFileInitializationAsync(SqlConnection connection, CancellationToken cancellationToken)
    {
        try
        {
            await using var command = factory.Command(connection, PreflightQueries.InstantFileInitialization);
            await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
            if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                return (null, "Instant File Initialization unknown: this build does not report it (sys.dm_server_services.instant_file_initialization_enabled needs 2016 SP1 or later)");
            }

            return SqlRows.Text(reader, "instant_file_initialization_enabled")?.Trim().ToUpperInvariant() switch
            {
                "Y" => (true, null),
                "N" => (false, null),
                var other => (null, $"Instant File Initialization unknown: sys.dm_server_services says '{other}'"),
            };
        }
        catch (DbException failure)
        {
            return (null, "Instant File Initialization unknown: sys.dm_server_services could not be read (" + ConnectionStringRedactor.RedactMessage(failure.Message) + "); it needs VIEW SERVER STATE (VIEW SERVER PERFORMANCE STATE from SQL Server 2022)");
        }
    }

    /// <summary>A backup set of msdb as a history operation, the backup rate where no history has one.</summary>
    internal static HistoryOperation AsOperation(BackupSetRow row) => new()
    {
        Kind = OperationKind.Backup,
        Scope = row.Type switch { 'L' => OperationScope.Log, 'I' => OperationScope.Differential, _ => OperationScope.Database },
        Database = row.Database,
        Start = row.Start,
        End = row.Finish,
        TimeResolutionSeconds = 1,
        Status = OperationStatus.Completed,
        BytesRead = row.BackupSize,
        BytesWritten = row.CompressedSize ?? row.BackupSize,
        Options = new Core.History.HistoryOptions { CopyOnly = row.IsCopyOnly },
        Sources = [HistorySource.Msdb],
    };
}
