using BackupXe.Core.Events;
using BackupXe.Core.Reporting;
using BackupXe.History;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.Tests.Support.Tds;
using Xunit;

namespace BackupXe.Tests.Worker;

/// <summary>
/// The central history writer through Microsoft.Data.SqlClient 2.1.4 against the TDS double. The double
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
        var store = new SqlServerHistoryStore(new SqlConnectionFactory(TdsClient.Settings(server)), TimeSpan.Zero);

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
        var one = new SqlServerHistoryStore(new SqlConnectionFactory(TdsClient.Settings(server)), TimeSpan.Zero);
        var two = new SqlServerHistoryStore(new SqlConnectionFactory(TdsClient.Settings(server)), TimeSpan.Zero);

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
        var store = new SqlServerHistoryStore(new SqlConnectionFactory(TdsClient.Settings(server)), TimeSpan.Zero);

        // When
        var write = await store.SaveAsync("prod", Full, CancellationToken.None);

        // Then Polly sent it again, and the key made the second send the only row
        Assert.Equal(HistoryWrite.Added, write);
        Assert.Equal(2, table.Inserts);
        Assert.Single(table.Keys);
    }

    [Fact]
    public async Task A_missing_table_stops_start_up_with_the_script_to_run()
    {
        await using var server = TdsServerDouble.Start(new TdsScript().On("OBJECT_ID(N'dbo.operations'", TdsResponse.Of(new TdsResultSet(TdsColumn.Int("present")).Row(0))));
        var store = new SqlServerHistoryStore(new SqlConnectionFactory(TdsClient.Settings(server)), TimeSpan.Zero);

        var failure = await Assert.ThrowsAsync<HistoryStoreException>(() => store.InitializeAsync(CancellationToken.None));

        Assert.Contains("sessions/backupxe-history-sqlserver.sql", failure.Message, StringComparison.Ordinal);
    }
}
