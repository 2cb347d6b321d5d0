using BackupXe.Core.Drill;
using BackupXe.Core.Rendering;
using BackupXe.History;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using Microsoft.SqlServer.TransactSql.ScriptDom;
using Xunit;

namespace BackupXe.Tests.History;

/// <summary>
/// Restore drills in the central repository's dbo.restore_drills (migration 5 of sessions/backupxe-history-sqlserver.sql),
/// through the real driver against the TDS double (not SQL Server): the batch's own answers are scripted.
/// </summary>
public sealed class SqlServerRestoreDrillsTests
{
    public SqlServerRestoreDrillsTests() => Environment.SetEnvironmentVariable(TdsClient.PasswordVariable, TdsClient.Password);

    private static StoredDrill Drill() => new(
        "PROD", "SalesDB", "SalesDB_drill_202611290300", new DateTime(2026, 11, 29, 3, 0, 1, DateTimeKind.Utc), DrillStatus.Completed, 1050, 1369,
        [new DrillPhase(DrillPhases.RestoreFull, "RESTORE DATABASE [SalesDB_drill_202611290300] FROM DISK = N'x' WITH FILE = 1, NORECOVERY;", 660, DrillStatus.Completed)], null, null);

    private static SqlServerRestoreDrills Store(TdsServerDouble server) =>
        new(new SqlConnectionFactory(TdsClient.Settings(server)), new TransientRetry(backoff: new LiveSourceOptions { InitialReconnectDelay = TimeSpan.Zero }));

    [Fact]
    public async Task A_drill_is_inserted_once_on_its_key_under_a_lock_and_read_back_as_the_latest_completed_one()
    {
        // Given: a table that keeps the keys it took and the first drill_json
        var keys = new HashSet<string>();
        string? stored = null;
        var script = new TdsScript()
            .On("INSERT INTO dbo.restore_drills", request =>
            {
                var added = keys.Add(string.Join("|", new[] { "@instance", "@database", "@drilled" }.Select(name => request.Parameters[name]?.ToString())));
                stored ??= (string?)request.Parameters["@json"];
                return TdsResponse.Of(new TdsResultSet(TdsColumn.Int("inserted")).Row(added ? 1 : 0));
            })
            .On("SELECT TOP (1) drill_json", _ => TdsResponse.Of(new TdsResultSet(TdsColumn.NVarChar("drill_json", null)).Row(stored)));
        await using var server = TdsServerDouble.Start(script);
        var store = Store(server);

        // When
        var first = await store.SaveAsync(Drill(), CancellationToken.None);
        var again = await store.SaveAsync(Drill(), CancellationToken.None);
        var latest = await store.LatestAsync("PROD", "SalesDB", CancellationToken.None);

        // Then
        Assert.True(first);
        Assert.False(again);
        Assert.Equal(ReportJson.Serialize(Drill()), ReportJson.Serialize(latest!));
        var insert = server.Requests.First(r => r.Text.Contains("INSERT INTO dbo.restore_drills", StringComparison.Ordinal));
        Assert.Contains("WITH (UPDLOCK, HOLDLOCK)", insert.Text, StringComparison.Ordinal);
        Assert.Equal("completed", insert.Parameters["@status"]);
        Assert.Equal(1050.0, insert.Parameters["@restore"]);
        var read = server.Requests.First(r => r.Text.Contains("SELECT TOP (1) drill_json", StringComparison.Ordinal));
        Assert.Equal("SalesDB", read.Parameters["@database"]);
    }

    [Fact]
    public async Task A_repository_without_the_drill_table_stores_nothing_names_migration_5_and_has_no_latest_drill()
    {
        // The batch's own check answers -1, and the query no result set, when dbo.restore_drills is missing.
        await using var server = TdsServerDouble.Start(new TdsScript()
            .On("INSERT INTO dbo.restore_drills", TdsResponse.Of(new TdsResultSet(TdsColumn.Int("inserted")).Row(-1)))
            .On("SELECT TOP (1) drill_json", TdsResponse.Empty));
        var store = Store(server);

        var failure = await Assert.ThrowsAsync<HistoryStoreException>(() => store.SaveAsync(Drill(), CancellationToken.None));

        Assert.Contains("migration 5", failure.Message, StringComparison.Ordinal);
        Assert.Contains("sessions/backupxe-history-sqlserver.sql", failure.Message, StringComparison.Ordinal);
        Assert.Null(await store.LatestAsync(null, "SalesDB", CancellationToken.None));
    }

    [Fact]
    public void The_statements_and_the_scripts_migration_parse_as_t_sql()
    {
        var script = File.ReadAllText(Path.Combine(Repository.Root, "sessions", "backupxe-history-sqlserver.sql"));
        foreach (var sql in new[] { SqlServerRestoreDrills.InsertDrillIfAbsent, SqlServerRestoreDrills.LatestDrillQuery, script })
        {
            new TSql150Parser(true).Parse(new StringReader(sql), out var errors);
            Assert.True(errors.Count == 0, string.Join("; ", errors.Select(e => e.Message)));
        }

        Assert.Contains("CREATE TABLE dbo.restore_drills", script, StringComparison.Ordinal);
        Assert.Contains("UPDATE dbo.backupxe_schema SET version = 6 WHERE version < 6;", script, StringComparison.Ordinal);
    }
}
