using System.Data;
using System.Globalization;
using System.Text.Json;
using BackupXe.Core.Formatting;
using BackupXe.Core.History;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using Microsoft.Data.SqlClient;

namespace BackupXe.History;

/// <summary>
/// Imported history in the central store's dbo.operations (sessions/backupxe-history-sqlserver.sql, migrations 1 and 4):
/// the daemon's periodic msdb import with <c>History:Provider</c> <c>sqlserver</c>. The same rules as the SQLite
/// history's import (<see cref="SqliteImportedHistory"/>): a record that matches a stored operation
/// (<see cref="HistoryMerge.SameOperation"/>, the nearest start) is merged into its row, any other is inserted when absent
/// on the table's key. Each statement stands alone (no transaction spans the import): every one is idempotent, so an
/// import cut part-way is completed by the next, the merge of a record with itself being the record. A driver error
/// (the store unreachable after <see cref="TransientRetry"/>) reaches the caller as it is: the daemon logs it (event 171)
/// and imports again at the next interval.
/// </summary>
public sealed class SqlServerImportedHistory(SqlConnectionFactory connections, TransientRetry? retry = null) : IImportedHistory
{
    /// <summary>Whether the store has what imports write: migration 4's columns and migration 6's tables.</summary>
    public const string ReadyQuery = """
        SELECT CONVERT(int, CASE
            WHEN OBJECT_ID(N'dbo.operations', N'U') IS NULL THEN 0
            WHEN COL_LENGTH(N'dbo.operations', N'group_database_id') IS NULL THEN 4
            WHEN OBJECT_ID(N'dbo.replica_roles', N'U') IS NULL OR OBJECT_ID(N'dbo.msdb_restores', N'U') IS NULL THEN 6
            ELSE 1 END);
        """;

    /// <summary>The stored operations an imported record may be: its instance, database and kind, a day either side.</summary>
    public const string CandidatesQuery = """
        SELECT id, report_json, history_json FROM dbo.operations
        WHERE instance_name = @instance AND database_name = @database AND kind = @kind
          AND start_time BETWEEN @from AND @to;
        """;

    /// <summary>A record no stored operation matches, inserted when its key is absent (UPDLOCK, HOLDLOCK), then @@ROWCOUNT.</summary>
    public const string InsertImportedIfAbsent = """
        SET NOCOUNT ON;
        INSERT INTO dbo.operations (
            instance_name, database_name, kind, scope, start_time, end_time, session_id, status,
            duration_seconds, throughput_mbps, bottleneck, confidence, report_json, sources, history_json,
            first_lsn, last_lsn, recovery_model, group_database_id)
        SELECT @instance, @database, @kind, @scope, @start, @end, NULL, @status,
            @duration, @throughput, NULL, NULL, @report, @sources, @json,
            @first_lsn, @last_lsn, @recovery_model, @group
        WHERE NOT EXISTS (
            SELECT 1 FROM dbo.operations WITH (UPDLOCK, HOLDLOCK)
            WHERE instance_name = @instance AND database_key = ISNULL(@database, N'') AND kind = @kind
              AND start_time = @start AND session_key = -1);
        SELECT CONVERT(int, @@ROWCOUNT);
        """;

    /// <summary>A stored row merged with an imported record; a captured row keeps its report (waits, phases, verdict).</summary>
    public const string UpdateMerged = """
        UPDATE dbo.operations SET history_json = @json, sources = @sources,
            report_json = CASE WHEN history_json IS NULL AND sources IS NULL THEN report_json ELSE @report END,
            end_time = ISNULL(@end, end_time), status = @status,
            duration_seconds = ISNULL(@duration, duration_seconds), throughput_mbps = ISNULL(@throughput, throughput_mbps),
            first_lsn = @first_lsn, last_lsn = @last_lsn, recovery_model = @recovery_model, group_database_id = @group
        WHERE id = @id;
        """;

    /// <summary>Every row of an instance and a database (all when NULL), oldest first.</summary>
    public const string ReadQuery = """
        SELECT instance_name, report_json, history_json FROM dbo.operations
        WHERE (@instance IS NULL OR instance_name = @instance) AND (@database IS NULL OR database_name = @database)
        ORDER BY start_time, id;
        """;

    private readonly TransientRetry _retry = retry ?? new TransientRetry();

    /// <summary>Rows whose JSON could not be read by the last <see cref="ReadAsync"/>.</summary>
    public int UnreadableRows { get; private set; }

    /// <summary>
    /// Checks the store has migration 6. A store that cannot be reached throws the driver's error, which the daemon's import
    /// logs and tries again at its next interval; only a store whose script must be run again stops it.
    /// </summary>
    /// <exception cref="HistoryStoreException">The store's script predates migration 6.</exception>
    public async Task InitializeAsync(CancellationToken cancellationToken)
    {
        var ready = await _retry.RunAsync(async token =>
        {
            await using var connection = await connections.OpenAsync(token);
            await using var command = connections.Command(connection, ReadyQuery);
            return Convert.ToInt32(await command.ExecuteScalarAsync(token), CultureInfo.InvariantCulture);
        }, cancellationToken);

        if (ready != 1)
        {
            var missing = ready == 0 ? "has no dbo.operations" : $"predates its script's migration {ready}";
            throw new HistoryStoreException(
                $"The central history repository {missing}: run sessions/backupxe-history-sqlserver.sql in the repository database (the daemon's BackupXe:History:ConnectionString, fleet's --connect-database).");
        }
    }

    public async Task<HistoryImportResult> ImportAsync(
        string instance, IEnumerable<HistoryOperation> records, CancellationToken cancellationToken, ICollection<HistoryOperation>? added = null)
    {
        await using var connection = await _retry.RunAsync(connections.OpenAsync, cancellationToken);
        return await ImportedRecords.StoreAsync(
            records.ToAsyncEnumerable(),
            (record, token) => FindAsync(connection, instance, record, token),
            (record, token) => InsertAsync(connection, instance, record, token),
            (id, combined, json, token) => UpdateAsync(connection, id, combined, json, token),
            added,
            cancellationToken);
    }

    public async Task<IReadOnlyList<InstanceOperation>> ReadAsync(string? instance, string? database, CancellationToken cancellationToken)
    {
        var unreadable = 0;
        var rows = await _retry.RunAsync(async token =>
        {
            unreadable = 0;
            await using var connection = await connections.OpenAsync(token);
            await using var command = connections.Command(connection, ReadQuery);
            command.Parameters.Add(new SqlParameter("@instance", SqlDbType.NVarChar, 128) { Value = (object?)instance ?? DBNull.Value });
            command.Parameters.Add(new SqlParameter("@database", SqlDbType.NVarChar, 128) { Value = (object?)database ?? DBNull.Value });
            var read = new List<InstanceOperation>();
            await using var reader = await command.ExecuteReaderAsync(token);
            while (await reader.ReadAsync(token))
            {
                var (readable, record) = Record(reader.GetString(1), reader.IsDBNull(2) ? null : reader.GetString(2));
                if (!readable)
                {
                    // A row another tool damaged: left out and counted, the rest is still judged.
                    unreadable++;
                }
                else if (record is not null)
                {
                    read.Add(new InstanceOperation(reader.GetString(0), record));
                }
            }

            return read;
        }, cancellationToken);

        UnreadableRows = unreadable;
        return rows.GroupBy(r => r.Instance, StringComparer.Ordinal)
            .SelectMany(g => HistoryMerge.Fold(g.Select(r => r.Record)).Select(r => new InstanceOperation(g.Key, r)))
            .ToList();
    }

    private async Task<MatchedRow?> FindAsync(
        SqlConnection connection, string instance, HistoryOperation record, CancellationToken cancellationToken)
    {
        if (record.Database is null)
        {
            return null;
        }

        await using var command = connections.Command(connection, CandidatesQuery);
        command.Parameters.Add(new SqlParameter("@instance", SqlDbType.NVarChar, 128) { Value = instance });
        command.Parameters.Add(new SqlParameter("@database", SqlDbType.NVarChar, 128) { Value = record.Database });
        command.Parameters.Add(new SqlParameter("@kind", SqlDbType.VarChar, 16) { Value = Kebab.Of(record.Kind) });
        // A day either side covers any UTC offset between a capture's UTC times and a local-time source.
        command.Parameters.Add(new SqlParameter("@from", SqlDbType.DateTime2) { Value = record.Start.AddDays(-1) });
        command.Parameters.Add(new SqlParameter("@to", SqlDbType.DateTime2) { Value = (record.End ?? record.Start).AddDays(1) });
        MatchedRow? best = null;
        await using var reader = await command.ExecuteReaderAsync(cancellationToken);
        while (await reader.ReadAsync(cancellationToken))
        {
            var json = reader.IsDBNull(2) ? null : reader.GetString(2);
            if (Record(reader.GetString(1), json).Record is { } stored && HistoryMerge.SameOperation(stored, record)
                && (best is null || Distance(stored, record) < Distance(best.Value.Record, record)))
            {
                best = new MatchedRow(reader.GetInt64(0), stored, json);
            }
        }

        return best;
    }

    private async Task<int> InsertAsync(SqlConnection connection, string instance, HistoryOperation record, CancellationToken cancellationToken)
    {
        await using var command = connections.Command(connection, InsertImportedIfAbsent);
        var p = command.Parameters;
        Bind(p, record, ReportJson.Serialize(record));
        p.Add(new SqlParameter("@instance", SqlDbType.NVarChar, 128) { Value = instance });
        p.Add(new SqlParameter("@database", SqlDbType.NVarChar, 128) { Value = (object?)record.Database ?? DBNull.Value });
        p.Add(new SqlParameter("@kind", SqlDbType.VarChar, 16) { Value = Kebab.Of(record.Kind) });
        p.Add(new SqlParameter("@scope", SqlDbType.VarChar, 16) { Value = Kebab.Of(record.Scope) });
        p.Add(new SqlParameter("@start", SqlDbType.DateTime2) { Value = record.Start });
        return Convert.ToInt32(await command.ExecuteScalarAsync(cancellationToken), CultureInfo.InvariantCulture);
    }

    private async Task UpdateAsync(SqlConnection connection, long id, HistoryOperation combined, string json, CancellationToken cancellationToken)
    {
        await using var update = connections.Command(connection, UpdateMerged);
        Bind(update.Parameters, combined, json);
        update.Parameters.Add(new SqlParameter("@id", SqlDbType.BigInt) { Value = id });
        await update.ExecuteNonQueryAsync(cancellationToken);
    }

    /// <summary>The columns an insert and a merge both write: the record, its report, and migration 4's LSNs, model and group id.</summary>
    private static void Bind(SqlParameterCollection p, HistoryOperation record, string json)
    {
        p.Add(new SqlParameter("@json", SqlDbType.NVarChar, -1) { Value = json });
        p.Add(new SqlParameter("@report", SqlDbType.NVarChar, -1) { Value = ReportJson.Serialize(record.ToReport()) });
        p.Add(new SqlParameter("@sources", SqlDbType.VarChar, 64) { Value = string.Join(',', record.Sources.Select(Kebab.Of)) });
        p.Add(new SqlParameter("@end", SqlDbType.DateTime2) { Value = record.End is { } end ? end : DBNull.Value });
        p.Add(new SqlParameter("@status", SqlDbType.VarChar, 16) { Value = Kebab.Of(record.Status) });
        p.Add(new SqlParameter("@duration", SqlDbType.Float) { Value = record.DurationSeconds is { } d ? d : DBNull.Value });
        p.Add(new SqlParameter("@throughput", SqlDbType.Float) { Value = record.ThroughputMBps is { } t ? t : DBNull.Value });
        p.Add(new SqlParameter("@first_lsn", SqlDbType.VarChar, 25) { Value = record.Lsns is { } lsns ? lsns.FirstLsn.ToString(CultureInfo.InvariantCulture) : DBNull.Value });
        p.Add(new SqlParameter("@last_lsn", SqlDbType.VarChar, 25) { Value = record.Lsns is { } last ? last.LastLsn.ToString(CultureInfo.InvariantCulture) : DBNull.Value });
        p.Add(new SqlParameter("@recovery_model", SqlDbType.VarChar, 16) { Value = (object?)record.RecoveryModel ?? DBNull.Value });
        p.Add(new SqlParameter("@group", SqlDbType.UniqueIdentifier) { Value = record.Identity?.GroupDatabaseId is { } group ? group : DBNull.Value });
    }

    /// <summary>A row as a history record (a captured one from its report); not readable when its JSON does not read back.</summary>
    private static (bool Readable, HistoryOperation? Record) Record(string report, string? history)
    {
        try
        {
            return (true, history is null
                ? HistoryOperation.FromReport(ReportJson.Deserialize<OperationReport>(report))
                : ReportJson.Deserialize<HistoryOperation>(history));
        }
        catch (JsonException)
        {
            return (false, null);
        }
    }

    private static double Distance(HistoryOperation a, HistoryOperation b) => Math.Abs((a.Start - b.Start).TotalSeconds);

}
