using System.Data;
using BackupXe.Core.Formatting;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.Core.Tuning;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using Microsoft.Data.SqlClient;

namespace BackupXe.History;

/// <summary>
/// History in the central SQL Server table of <c>sessions/backupxe-history-sqlserver.sql</c>, shared by many
/// daemons (docs/deploy.md, "Many daemons, one table"). Writes are an insert-if-absent on the dedup key under
/// UPDLOCK/HOLDLOCK, with the table's IGNORE_DUP_KEY index as a second guard, so a batch re-sent after a
/// restart or a retry never doubles a row. Every connection, the first one (<see cref="InitializeAsync"/>) included,
/// goes through the one <see cref="TransientRetry"/> of the live sources: an availability-group failover of the
/// repository (4060 with 18456, 40540 on Azure) is retried with back-off, each wait a "retrying (n) after error N" line.
/// </summary>
public sealed class SqlServerHistoryStore : IHistoryStore
{
    public const string InsertIfAbsent = """
        SET NOCOUNT ON;
        INSERT INTO dbo.operations (
            instance_name, database_name, kind, scope, start_time, end_time, session_id, status,
            duration_seconds, throughput_mbps, bottleneck, confidence, report_json)
        SELECT @instance, @database, @kind, @scope, @start, @end, @session, @status,
            @duration, @throughput, @bottleneck, @confidence, @json
        WHERE NOT EXISTS (
            SELECT 1 FROM dbo.operations WITH (UPDLOCK, HOLDLOCK)
            WHERE instance_name = @instance AND database_key = ISNULL(@database, N'') AND kind = @kind
              AND start_time = @start AND session_key = ISNULL(@session, -1));
        SELECT CONVERT(int, @@ROWCOUNT);
        """;

    /// <summary>
    /// A tune's row, inserted when absent on its key (instance, database, time) under UPDLOCK/HOLDLOCK. A repository
    /// whose script predates migration 2 has no tune_runs table: the batch answers -1 and nothing is written.
    /// </summary>
    public const string InsertTuneIfAbsent = """
        SET NOCOUNT ON;
        IF OBJECT_ID(N'dbo.tune_runs', N'U') IS NULL
        BEGIN
            SELECT CONVERT(int, -1);
            RETURN;
        END;
        INSERT INTO dbo.tune_runs (instance_name, database_name, tuned_at, best_mbps, baseline_mbps, read_ceiling_mbps, tune_json)
        SELECT @instance, @database, @tuned, @best, @baseline, @ceiling, @json
        WHERE NOT EXISTS (
            SELECT 1 FROM dbo.tune_runs WITH (UPDLOCK, HOLDLOCK)
            WHERE instance_name = @instance AND database_name = @database AND tuned_at = @tuned);
        SELECT CONVERT(int, @@ROWCOUNT);
        """;

    /// <summary>
    /// A tune with restore trials: as <see cref="InsertTuneIfAbsent"/>, with migration 3's restore columns. Sent only to a
    /// table <see cref="SqlServerTuneRepository.PrepareAsync"/> made ready for them; a table that lost them meanwhile
    /// fails the batch (invalid column name), and the tune says its result was not stored.
    /// </summary>
    public const string InsertTuneWithRestoreIfAbsent = """
        SET NOCOUNT ON;
        IF OBJECT_ID(N'dbo.tune_runs', N'U') IS NULL
        BEGIN
            SELECT CONVERT(int, -1);
            RETURN;
        END;
        INSERT INTO dbo.tune_runs (instance_name, database_name, tuned_at, best_mbps, baseline_mbps, read_ceiling_mbps, restore_best_mbps, restore_defaults_mbps, tune_json)
        SELECT @instance, @database, @tuned, @best, @baseline, @ceiling, @restoreBest, @restoreDefaults, @json
        WHERE NOT EXISTS (
            SELECT 1 FROM dbo.tune_runs WITH (UPDLOCK, HOLDLOCK)
            WHERE instance_name = @instance AND database_name = @database AND tuned_at = @tuned);
        SELECT CONVERT(int, @@ROWCOUNT);
        """;

    /// <summary>The latest tune of a database before a time; no row (and no result) on a repository without tune_runs.</summary>
    public const string LastTuneQuery = """
        SET NOCOUNT ON;
        IF OBJECT_ID(N'dbo.tune_runs', N'U') IS NOT NULL
            SELECT TOP (1) tune_json FROM dbo.tune_runs
            WHERE instance_name = @instance AND database_name = @database AND tuned_at < @before
            ORDER BY tuned_at DESC, id DESC;
        """;

    private const string Columns = "SELECT TOP (@count) instance_name, report_json FROM dbo.operations";

    /// <summary>Whether dbo.operations exists: the store's first statement (<see cref="InitializeAsync"/>).</summary>
    public const string TableQuery = "SELECT CONVERT(int, CASE WHEN OBJECT_ID(N'dbo.operations', N'U') IS NULL THEN 0 ELSE 1 END);";

    private readonly SqlConnectionFactory _connections;
    private readonly TransientRetry _retry;

    /// <param name="retry">The retry of every connection; the default waits on the system clock and tells no one.</param>
    public SqlServerHistoryStore(SqlConnectionFactory connections, TransientRetry? retry = null)
    {
        _connections = connections;
        _retry = retry ?? new TransientRetry();
    }

    public async Task InitializeAsync(CancellationToken cancellationToken)
    {
        try
        {
            var exists = await _retry.RunAsync(async token =>
            {
                await using var connection = await _connections.OpenAsync(token);
                await using var command = _connections.Command(connection, TableQuery);
                return Convert.ToInt32(await command.ExecuteScalarAsync(token), System.Globalization.CultureInfo.InvariantCulture);
            }, cancellationToken);
            if (exists == 0)
            {
                throw new HistoryStoreException(
                    "The central history table dbo.operations is missing: run sessions/backupxe-history-sqlserver.sql in the repository database (BackupXe:History:ConnectionString).");
            }
        }
        catch (SqlException exception)
        {
            throw new HistoryStoreException(
                $"The central history repository (BackupXe:History:ConnectionString) cannot be used: {ConnectionStringRedactor.RedactMessage(exception.Message)}", exception);
        }
    }

    public async Task<HistoryWrite> SaveAsync(string instance, OperationReport report, CancellationToken cancellationToken)
    {
        if (report.Start is not { } start)
        {
            return HistoryWrite.NoIdentity;
        }

        var json = ReportJson.Serialize(report);
        var inserted = await _retry.RunAsync(async token =>
        {
            await using var connection = await _connections.OpenAsync(token);
            await using var command = _connections.Command(connection, InsertIfAbsent);
            var p = command.Parameters;
            p.Add(new SqlParameter("@instance", SqlDbType.NVarChar, 128) { Value = instance });
            p.Add(new SqlParameter("@database", SqlDbType.NVarChar, 128) { Value = (object?)report.Database ?? DBNull.Value });
            p.Add(new SqlParameter("@kind", SqlDbType.VarChar, 16) { Value = Kebab.Of(report.Kind) });
            p.Add(new SqlParameter("@scope", SqlDbType.VarChar, 16) { Value = report.Scope is { } scope ? Kebab.Of(scope) : DBNull.Value });
            p.Add(new SqlParameter("@start", SqlDbType.DateTime2) { Value = start });
            p.Add(new SqlParameter("@end", SqlDbType.DateTime2) { Value = report.End is { } end ? end : DBNull.Value });
            p.Add(new SqlParameter("@session", SqlDbType.Int) { Value = report.SessionId is { } session ? session : DBNull.Value });
            p.Add(new SqlParameter("@status", SqlDbType.VarChar, 16) { Value = Kebab.Of(report.Status) });
            p.Add(new SqlParameter("@duration", SqlDbType.Float) { Value = report.DurationSeconds is { } duration ? duration : DBNull.Value });
            p.Add(new SqlParameter("@throughput", SqlDbType.Float) { Value = report.ThroughputMBps is { } throughput ? throughput : DBNull.Value });
            p.Add(new SqlParameter("@bottleneck", SqlDbType.VarChar, 32) { Value = report.Verdict is { } verdict ? Kebab.Of(verdict.Bottleneck) : DBNull.Value });
            p.Add(new SqlParameter("@confidence", SqlDbType.VarChar, 16) { Value = report.Verdict is { } v ? Kebab.Of(v.Confidence) : DBNull.Value });
            p.Add(new SqlParameter("@json", SqlDbType.NVarChar, -1) { Value = json });
            return Convert.ToInt32(await command.ExecuteScalarAsync(token), System.Globalization.CultureInfo.InvariantCulture);
        }, cancellationToken);
        return inserted == 1 ? HistoryWrite.Added : HistoryWrite.AlreadyStored;
    }

    public Task<IReadOnlyList<StoredOperation>> RecentCompletedAsync(OperationSeries series, DateTime before, int count, CancellationToken cancellationToken)
        => ReadAsync(
            Columns + """
                 WHERE instance_name = @instance AND database_key = ISNULL(@database, N'') AND kind = @kind
                  AND ((scope IS NULL AND @scope IS NULL) OR scope = @scope)
                  AND status = 'completed' AND throughput_mbps IS NOT NULL AND start_time < @before
                ORDER BY start_time DESC;
                """,
            p =>
            {
                p.Add(new SqlParameter("@instance", SqlDbType.NVarChar, 128) { Value = series.Instance });
                p.Add(new SqlParameter("@database", SqlDbType.NVarChar, 128) { Value = (object?)series.Database ?? DBNull.Value });
                p.Add(new SqlParameter("@kind", SqlDbType.VarChar, 16) { Value = Kebab.Of(series.Kind) });
                p.Add(new SqlParameter("@scope", SqlDbType.VarChar, 16) { Value = series.Scope is { } scope ? Kebab.Of(scope) : DBNull.Value });
                p.Add(new SqlParameter("@before", SqlDbType.DateTime2) { Value = before });
                p.Add(new SqlParameter("@count", SqlDbType.Int) { Value = count });
            },
            cancellationToken);

    public Task<IReadOnlyList<StoredOperation>> QueryAsync(HistoryQuery query, CancellationToken cancellationToken)
        => ReadAsync(
            Columns + """
                 WHERE (@instance IS NULL OR instance_name = @instance)
                  AND (@database IS NULL OR database_name = @database)
                  AND (@kind IS NULL OR kind = @kind)
                  AND (@since IS NULL OR start_time >= @since)
                  AND (@until IS NULL OR start_time <= @until)
                ORDER BY start_time DESC, id DESC;
                """,
            p =>
            {
                p.Add(new SqlParameter("@instance", SqlDbType.NVarChar, 128) { Value = (object?)query.Instance ?? DBNull.Value });
                p.Add(new SqlParameter("@database", SqlDbType.NVarChar, 128) { Value = (object?)query.Database ?? DBNull.Value });
                p.Add(new SqlParameter("@kind", SqlDbType.VarChar, 16) { Value = query.Kind is { } kind ? Kebab.Of(kind) : DBNull.Value });
                p.Add(new SqlParameter("@since", SqlDbType.DateTime2) { Value = query.Since is { } since ? since : DBNull.Value });
                p.Add(new SqlParameter("@until", SqlDbType.DateTime2) { Value = query.Until is { } until ? until : DBNull.Value });
                p.Add(new SqlParameter("@count", SqlDbType.Int) { Value = query.Limit });
            },
            cancellationToken);

    /// <exception cref="HistoryStoreException">The repository has no tune_runs table: its script predates migration 2.</exception>
    public async Task<bool> SaveTuneAsync(TuneRecord record, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(record);
        var json = ReportJson.Serialize(record);
        var inserted = await _retry.RunAsync(async token =>
        {
            await using var connection = await _connections.OpenAsync(token);
            await using var command = _connections.Command(connection, record.Restore is null ? InsertTuneIfAbsent : InsertTuneWithRestoreIfAbsent);
            var p = command.Parameters;
            p.Add(new SqlParameter("@instance", SqlDbType.NVarChar, 128) { Value = record.Instance });
            p.Add(new SqlParameter("@database", SqlDbType.NVarChar, 128) { Value = record.Database });
            p.Add(new SqlParameter("@tuned", SqlDbType.DateTime2) { Value = record.TunedAt });
            p.Add(new SqlParameter("@best", SqlDbType.Float) { Value = record.BestMBps is { } best ? best : DBNull.Value });
            p.Add(new SqlParameter("@baseline", SqlDbType.Float) { Value = record.BaselineMBps is { } baseline ? baseline : DBNull.Value });
            p.Add(new SqlParameter("@ceiling", SqlDbType.Float) { Value = record.ReadCeilingMBps is { } ceiling ? ceiling : DBNull.Value });
            if (record.Restore is { } restore)
            {
                p.Add(new SqlParameter("@restoreBest", SqlDbType.Float) { Value = restore.BestMBps is { } restoreBest ? restoreBest : DBNull.Value });
                p.Add(new SqlParameter("@restoreDefaults", SqlDbType.Float) { Value = restore.DefaultsMBps is { } restoreDefaults ? restoreDefaults : DBNull.Value });
            }

            p.Add(new SqlParameter("@json", SqlDbType.NVarChar, -1) { Value = json });
            return Convert.ToInt32(await command.ExecuteScalarAsync(token), System.Globalization.CultureInfo.InvariantCulture);
        }, cancellationToken);
        return inserted switch
        {
            < 0 => throw new HistoryStoreException(
                "The central history has no dbo.tune_runs table: run sessions/backupxe-history-sqlserver.sql again (migration 2) in the repository database."),
            1 => true,
            _ => false,
        };
    }

    public async Task<TuneRecord?> LastTuneAsync(string instance, string database, DateTime before, CancellationToken cancellationToken)
    {
        var json = await _retry.RunAsync(async token =>
        {
            await using var connection = await _connections.OpenAsync(token);
            await using var command = _connections.Command(connection, LastTuneQuery);
            command.Parameters.Add(new SqlParameter("@instance", SqlDbType.NVarChar, 128) { Value = instance });
            command.Parameters.Add(new SqlParameter("@database", SqlDbType.NVarChar, 128) { Value = database });
            command.Parameters.Add(new SqlParameter("@before", SqlDbType.DateTime2) { Value = before });
            return await command.ExecuteScalarAsync(token) as string;
        }, cancellationToken);
        try
        {
            return json is null ? null : ReportJson.Deserialize<TuneRecord>(json);
        }
        catch (System.Text.Json.JsonException)
        {
            // A row that does not read back (edited, from a later version) is no tune to mention: a diagnosis never fails on it.
            return null;
        }
    }

    private async Task<IReadOnlyList<StoredOperation>> ReadAsync(string sql, Action<SqlParameterCollection> bind, CancellationToken cancellationToken)
        => await _retry.RunAsync(async token =>
        {
            await using var connection = await _connections.OpenAsync(token);
            await using var command = _connections.Command(connection, sql);
            bind(command.Parameters);
            var operations = new List<StoredOperation>();
            await using var reader = await command.ExecuteReaderAsync(token);
            while (await reader.ReadAsync(token))
            {
                operations.Add(new StoredOperation(reader.GetString(0), ReportJson.Deserialize<OperationReport>(reader.GetString(1))));
            }

            return (IReadOnlyList<StoredOperation>)operations;
        }, cancellationToken);
}
