using System.Data;
using BackupXe.Core.Drill;
using BackupXe.Core.Rendering;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using Microsoft.Data.SqlClient;

namespace BackupXe.History;

/// <summary>
/// Restore drills in the central repository's <c>dbo.restore_drills</c> (migration 5 of
/// <c>sessions/backupxe-history-sqlserver.sql</c>), the table SQLite's restore_drills mirrors: one row per drill, its
/// phases in drill_json. Inserted when absent on (instance, database, drilled_at) under UPDLOCK/HOLDLOCK, with the
/// table's IGNORE_DUP_KEY index as a second guard; every connection through the store's <see cref="TransientRetry"/>.
/// </summary>
public sealed class SqlServerRestoreDrills(SqlConnectionFactory connections, TransientRetry retry) : IRestoreDrillStore
{
    /// <summary>A drill's row; -1 (nothing written) on a repository whose script predates migration 5.</summary>
    public const string InsertDrillIfAbsent = """
        SET NOCOUNT ON;
        IF OBJECT_ID(N'dbo.restore_drills', N'U') IS NULL
        BEGIN
            SELECT CONVERT(int, -1);
            RETURN;
        END;
        INSERT INTO dbo.restore_drills (instance_name, database_name, scratch_name, drilled_at, status, restore_seconds, total_seconds, drill_json)
        SELECT @instance, @database, @scratch, @drilled, @status, @restore, @total, @json
        WHERE NOT EXISTS (
            SELECT 1 FROM dbo.restore_drills WITH (UPDLOCK, HOLDLOCK)
            WHERE instance_name = @instance AND database_name = @database AND drilled_at = @drilled);
        SELECT CONVERT(int, @@ROWCOUNT);
        """;

    /// <summary>The latest completed drill of a database (any instance when @instance is NULL); no result set without the table.</summary>
    public const string LatestDrillQuery = """
        SET NOCOUNT ON;
        IF OBJECT_ID(N'dbo.restore_drills', N'U') IS NOT NULL
            SELECT TOP (1) drill_json FROM dbo.restore_drills
            WHERE (@instance IS NULL OR instance_name = @instance) AND database_name = @database AND status = N'completed'
            ORDER BY drilled_at DESC, id DESC;
        """;

    public async Task<bool> SaveAsync(StoredDrill drill, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(drill);
        var json = ReportJson.Serialize(drill);
        var inserted = await retry.RunAsync(async token =>
        {
            await using var connection = await connections.OpenAsync(token);
            await using var command = connections.Command(connection, InsertDrillIfAbsent);
            var p = command.Parameters;
            p.Add(new SqlParameter("@instance", SqlDbType.NVarChar, 128) { Value = drill.Instance });
            p.Add(new SqlParameter("@database", SqlDbType.NVarChar, 128) { Value = drill.Database });
            p.Add(new SqlParameter("@scratch", SqlDbType.NVarChar, 128) { Value = drill.Scratch });
            p.Add(new SqlParameter("@drilled", SqlDbType.DateTime2) { Value = drill.DrilledAt });
            p.Add(new SqlParameter("@status", SqlDbType.NVarChar, 16) { Value = drill.Status.ToString().ToLowerInvariant() });
            p.Add(new SqlParameter("@restore", SqlDbType.Float) { Value = drill.RestoreSeconds });
            p.Add(new SqlParameter("@total", SqlDbType.Float) { Value = drill.TotalSeconds });
            p.Add(new SqlParameter("@json", SqlDbType.NVarChar, -1) { Value = json });
            return Convert.ToInt32(await command.ExecuteScalarAsync(token), System.Globalization.CultureInfo.InvariantCulture);
        }, cancellationToken);
        return inserted switch
        {
            < 0 => throw new HistoryStoreException(
                "The central history has no dbo.restore_drills table: run sessions/backupxe-history-sqlserver.sql again (migration 5) in the repository database."),
            1 => true,
            _ => false,
        };
    }

    public async Task<StoredDrill?> LatestAsync(string? instance, string database, CancellationToken cancellationToken)
    {
        var json = await retry.RunAsync(async token =>
        {
            await using var connection = await connections.OpenAsync(token);
            await using var command = connections.Command(connection, LatestDrillQuery);
            command.Parameters.Add(new SqlParameter("@instance", SqlDbType.NVarChar, 128) { Value = (object?)instance ?? DBNull.Value });
            command.Parameters.Add(new SqlParameter("@database", SqlDbType.NVarChar, 128) { Value = database });
            return await command.ExecuteScalarAsync(token) as string;
        }, cancellationToken);
        try
        {
            return json is null ? null : ReportJson.Deserialize<StoredDrill>(json);
        }
        catch (System.Text.Json.JsonException)
        {
            // A row that does not read back (edited, from a later version) is no drill to cite.
            return null;
        }
    }
}
