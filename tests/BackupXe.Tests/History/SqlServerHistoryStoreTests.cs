using BackupXe.Core.Events;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.History;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using BackupXe.Testing.Tds;
using Xunit;

namespace BackupXe.Tests.History;

/// <summary>
/// The central history writer through Microsoft.Data.SqlClient 6.1.8 against the TDS double. The double
/// plays the table: it keeps the dedup keys it was sent and answers the insert's row count accordingly. That
/// proves the writer's parameters, its reading of the answer and its retries, not SQL Server's locking.
/// </summary>
public sealed class SqlServerHistoryStoreTests
{
    private static readonly OperationReport Full = new()
    {
        Kind = OperationKind.Backup,
        Database = "Sales",
        Start = new DateTime(2024, 5, 1, 1, 30, 0, DateTimeKind.Utc),
        End = new DateTime(2024, 5, 1, 1, 40, 0, DateTimeKind.Utc),
        Status = OperationStatus.Completed,
        SessionId = 61,
    };

    /// <summary>A table that stores a row per distinct dedup key; every insert request is counted.</summary>
    private sealed class ScriptedTable
    {
        public HashSet<string> Keys { get; } = [];

        public int Inserts { get; set; }

        public TdsScript Script(Queue<bool>? dropFirst = null) => new TdsScript().On("INSERT INTO dbo.operations", request =>
        {
            Inserts++;
            if (dropFirst is not null && dropFirst.TryDequeue(out var drop) && drop)
            {
                return new TdsResponse().Disconnect();
            }

            var key = string.Join("|", new[] { "@instance", "@database", "@kind", "@start", "@session" }.Select(name => request.Parameters[name]?.ToString() ?? "null"));
            var added = Keys.Add(key);
            return TdsResponse.Of(new TdsResultSet(TdsColumn.Int("inserted")).Row(added ? 1 : 0));
        });
    }

    [Fact]
    public async Task A_resent_operation_is_recognised_and_not_stored_twice()
    {
        var table = new ScriptedTable();
        await using var server = TdsServerDouble.Start(table.Script());
        var store = new SqlServerHistoryStore(new SqlConnectionFactory(TdsClient.Settings(server)), new TransientRetry(backoff: new LiveSourceOptions { InitialReconnectDelay = TimeSpan.Zero }));

        var first = await store.SaveAsync("prod", Full, CancellationToken.None);
        var again = await store.SaveAsync("prod", Full, CancellationToken.None);

        Assert.Equal(HistoryWrite.Added, first);
        Assert.Equal(HistoryWrite.AlreadyStored, again);
        Assert.Single(table.Keys);
        var request = server.Requests.First(r => r.Text.Contains("INSERT INTO dbo.operations", StringComparison.Ordinal));
        Assert.Equal("prod", request.Parameters["@instance"]);
        Assert.Equal("Sales", request.Parameters["@database"]);
        Assert.Equal(61, request.Parameters["@session"]);
        Assert.Contains("WITH (UPDLOCK, HOLDLOCK)", request.Text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Two_daemons_sending_the_same_operation_leave_one_row()
    {
        var table = new ScriptedTable();
        await using var server = TdsServerDouble.Start(table.Script());
        var one = new SqlServerHistoryStore(new SqlConnectionFactory(TdsClient.Settings(server)), new TransientRetry(backoff: new LiveSourceOptions { InitialReconnectDelay = TimeSpan.Zero }));
        var two = new SqlServerHistoryStore(new SqlConnectionFactory(TdsClient.Settings(server)), new TransientRetry(backoff: new LiveSourceOptions { InitialReconnectDelay = TimeSpan.Zero }));

        var writes = await Task.WhenAll(one.SaveAsync("prod", Full, CancellationToken.None), two.SaveAsync("prod", Full, CancellationToken.None));

        Assert.Single(table.Keys);
        Assert.Equal([HistoryWrite.Added, HistoryWrite.AlreadyStored], writes.Order());
    }

    [Fact]
    public async Task A_connection_reset_during_the_write_is_retried_and_stores_one_row()
    {
        // Given the first attempt's connection is reset before an answer
        var table = new ScriptedTable();
        await using var server = TdsServerDouble.Start(table.Script(new Queue<bool>([true])));
        var store = new SqlServerHistoryStore(new SqlConnectionFactory(TdsClient.Settings(server)), new TransientRetry(backoff: new LiveSourceOptions { InitialReconnectDelay = TimeSpan.Zero }));

        // When
        var write = await store.SaveAsync("prod", Full, CancellationToken.None);

        // Then the retry sent it again, and the key made the second send the only row
        Assert.Equal(HistoryWrite.Added, write);
        Assert.Equal(2, table.Inserts);
        Assert.Single(table.Keys);
    }

    [Fact]
    public async Task A_missing_table_stops_start_up_with_the_script_to_run()
    {
        await using var server = TdsServerDouble.Start(new TdsScript().On("OBJECT_ID(N'dbo.operations'", TdsResponse.Of(new TdsResultSet(TdsColumn.Int("present")).Row(0))));
        var store = new SqlServerHistoryStore(new SqlConnectionFactory(TdsClient.Settings(server)), new TransientRetry(backoff: new LiveSourceOptions { InitialReconnectDelay = TimeSpan.Zero }));

        var failure = await Assert.ThrowsAsync<HistoryStoreException>(() => store.InitializeAsync(CancellationToken.None));

        Assert.Contains("sessions/backupxe-history-sqlserver.sql", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_tune_is_stored_once_on_its_key_and_read_back_as_the_last_one_before_a_backup()
    {
        // The double plays dbo.tune_runs: the keys it was sent, and the JSON of the one stored.
        var keys = new HashSet<string>();
        string? stored = null;
        var script = new TdsScript()
            .On("INSERT INTO dbo.tune_runs", request =>
            {
                var added = keys.Add(string.Join("|", new[] { "@instance", "@database", "@tuned" }.Select(name => request.Parameters[name]?.ToString())));
                stored ??= (string?)request.Parameters["@json"];
                return TdsResponse.Of(new TdsResultSet(TdsColumn.Int("inserted")).Row(added ? 1 : 0));
            })
            .On("SELECT TOP (1) tune_json", _ => TdsResponse.Of(new TdsResultSet(TdsColumn.NVarChar("tune_json", null)).Row(stored)));
        await using var server = TdsServerDouble.Start(script);
        var store = new SqlServerHistoryStore(new SqlConnectionFactory(TdsClient.Settings(server)), new TransientRetry(backoff: new LiveSourceOptions { InitialReconnectDelay = TimeSpan.Zero }));
        var tune = BackupXe.Tests.History.TuneHistoryTests.Tune();

        var first = await store.SaveTuneAsync(tune, CancellationToken.None);
        var again = await store.SaveTuneAsync(tune, CancellationToken.None);
        var last = await store.LastTuneAsync("SQL01", "Sales", tune.TunedAt.AddDays(1), CancellationToken.None);

        Assert.True(first);
        Assert.False(again);
        Assert.Equal(ReportJson.Serialize(tune), ReportJson.Serialize(last!));
        var insert = server.Requests.First(r => r.Text.Contains("INSERT INTO dbo.tune_runs", StringComparison.Ordinal));
        Assert.Contains("WITH (UPDLOCK, HOLDLOCK)", insert.Text, StringComparison.Ordinal);
        Assert.Equal(850.0, insert.Parameters["@best"]);
        var read = server.Requests.First(r => r.Text.Contains("SELECT TOP (1) tune_json", StringComparison.Ordinal));
        Assert.Equal(tune.TunedAt.AddDays(1), read.Parameters["@before"]);
    }

    [Fact]
    public async Task A_repository_without_the_tune_table_stores_no_tune_and_names_migration_2()
    {
        // The batch's own check answers -1 when dbo.tune_runs is missing (a script from before migration 2).
        await using var server = TdsServerDouble.Start(new TdsScript().On("INSERT INTO dbo.tune_runs", TdsResponse.Of(new TdsResultSet(TdsColumn.Int("inserted")).Row(-1))));
        var store = new SqlServerHistoryStore(new SqlConnectionFactory(TdsClient.Settings(server)), new TransientRetry(backoff: new LiveSourceOptions { InitialReconnectDelay = TimeSpan.Zero }));

        var failure = await Assert.ThrowsAsync<HistoryStoreException>(() => store.SaveTuneAsync(BackupXe.Tests.History.TuneHistoryTests.Tune(), CancellationToken.None));

        Assert.Contains("migration 2", failure.Message, StringComparison.Ordinal);
        Assert.Contains("sessions/backupxe-history-sqlserver.sql", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_repository_without_the_tune_table_has_no_last_tune()
    {
        // The query's IF answers no result set at all when dbo.tune_runs is missing.
        await using var server = TdsServerDouble.Start(new TdsScript().On("FROM dbo.tune_runs", TdsResponse.Empty));
        var store = new SqlServerHistoryStore(new SqlConnectionFactory(TdsClient.Settings(server)), new TransientRetry(backoff: new LiveSourceOptions { InitialReconnectDelay = TimeSpan.Zero }));

        Assert.Null(await store.LastTuneAsync("SQL01", "Sales", DateTime.UtcNow, CancellationToken.None));
    }
}
