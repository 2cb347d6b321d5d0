using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Requests;
using BackupXe.SqlServer.Requirements;
using BackupXe.SqlServer.Sessions;
using BackupXe.Testing.Tds;
using Xunit;

namespace BackupXe.Tests.SqlServer.Requests;

/// <summary>
/// The read of sys.dm_exec_requests through Microsoft.Data.SqlClient against the TDS double, which serves the
/// view's documented column types (smallint, nvarchar, real, bigint, datetime, int). Not SQL Server.
/// </summary>
public class RunningRequestReaderTests
{
    private static readonly DateTime Start = new(2024, 5, 1, 1, 30, 0, 120, DateTimeKind.Utc);

    [Fact]
    public async Task A_running_backup_is_read_with_its_percent_eta_wait_and_utc_start()
    {
        // Given a backup 42.5% through, waiting on BACKUPBUFFER
        var sql = new ScriptedSqlServer();
        sql.RunningRequests.Add(new ScriptedRequest(61, "BACKUP DATABASE", "SalesDB", 42.5f, 95_000, Start, "BACKUPBUFFER", 12, "ASYNC_IO_COMPLETION"));
        await using var server = TdsServerDouble.Start(sql.Script);
        var connections = new SqlConnectionFactory(TdsClient.Settings(server));
        var facts = await new SessionClient(connections, new CaptureSessionSettings()).ReadServerFactsAsync(TestContext.Current.CancellationToken);

        // When
        var snapshot = await new RunningRequestReader(connections).ReadAsync(facts, TestContext.Current.CancellationToken);

        // Then every column came through with its type, and the start lines up with the server's UTC clock
        Assert.Null(snapshot.Limitation);
        var request = Assert.Single(snapshot.Requests);
        Assert.Equal(new RunningRequest(61, "BACKUP DATABASE", "SalesDB", 42.5, TimeSpan.FromSeconds(95), Start, sql.ServerUtc, "BACKUPBUFFER", TimeSpan.FromMilliseconds(12), "ASYNC_IO_COMPLETION") { RunsIn = "SalesDB" }, request);
        Assert.Equal(DateTimeKind.Utc, request.StartUtc.Kind);
        Assert.Equal(sql.ServerUtc - Start, request.Elapsed);
        Assert.False(request.IsRestore);
        Assert.Contains(server.Requests, r => r.Text.Contains("(r.command LIKE N'BACKUP%' OR r.command LIKE N'RESTORE%')", StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_backup_run_from_master_is_named_by_the_database_its_statement_backs_up_and_one_named_by_a_variable_is_not_yet_known()
    {
        // Given a job step in master backing up SalesDB (database_id is the database the request runs in, the view's
        // page says), and one whose statement takes the database from a variable
        var sql = new ScriptedSqlServer();
        sql.RunningRequests.Add(new ScriptedRequest(61, "BACKUP DATABASE", "SalesDB", 42.5f, 0, Start, null, 0, null)
        {
            RunsIn = "master",
            Statement = "/* nightly */ BACKUP DATABASE [SalesDB] TO DISK = N'\\\\backup01\\sql\\SalesDB.bak' WITH COPY_ONLY, STATS = 10",
        });
        sql.RunningRequests.Add(new ScriptedRequest(62, "BACKUP LOG", null, 5f, 0, Start, null, 0, null)
        {
            RunsIn = "master",
            Statement = "BACKUP LOG @DatabaseName TO DISK = @File",
        });
        await using var server = TdsServerDouble.Start(sql.Script);
        var facts = new ServerFacts(15, null, new HashSet<string> { ServerRequirements.ViewServerState });

        // When
        var snapshot = await new RunningRequestReader(new SqlConnectionFactory(TdsClient.Settings(server))).ReadAsync(facts, TestContext.Current.CancellationToken);

        // Then neither is said to be a backup of master
        Assert.Equal(["SalesDB", null], snapshot.Requests.Select(r => r.Database));
        Assert.Equal(["master", "master"], snapshot.Requests.Select(r => r.RunsIn));
        Assert.Contains(server.Requests, r => r.Text.Contains("OUTER APPLY sys.dm_exec_sql_text(r.sql_handle)", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Given_restores_that_only_read_media_When_read_Then_only_the_backup_and_the_restore_are_running_operations()
    {
        // Given: RESTORE HEADERONLY / VERIFYONLY / FILELISTONLY also start with RESTORE (command is short on older builds)
        var sql = new ScriptedSqlServer();
        sql.RunningRequests.Add(new ScriptedRequest(61, "BACKUP DATABASE", "SalesDB", 10f, 0, Start, null, 0, null));
        sql.RunningRequests.Add(new ScriptedRequest(62, "RESTORE HEADERON", "master", 0f, 0, Start, null, 0, null));
        sql.RunningRequests.Add(new ScriptedRequest(63, "RESTORE VERIFYONLY", "master", 0f, 0, Start, null, 0, null));
        sql.RunningRequests.Add(new ScriptedRequest(64, "RESTORE FILELISTONLY", "master", 0f, 0, Start, null, 0, null));
        sql.RunningRequests.Add(new ScriptedRequest(65, "RESTORE DATABASE", "Ops", 5f, 0, Start, null, 0, null));
        await using var server = TdsServerDouble.Start(sql.Script);
        var connections = new SqlConnectionFactory(TdsClient.Settings(server));
        var facts = new ServerFacts(15, null, new HashSet<string> { ServerRequirements.ViewServerState });

        // When
        var snapshot = await new RunningRequestReader(connections).ReadAsync(facts, TestContext.Current.CancellationToken);

        // Then
        Assert.Equal([61, 65], snapshot.Requests.Select(r => r.SessionId));
        Assert.Contains("NOT LIKE N'RESTORE HEADERON%'", RunningRequestReader.Query, StringComparison.Ordinal);
    }

    [Fact]
    public void The_offset_from_UTC_is_read_once_from_one_clock_value()
    {
        // Two reads (GETDATE() and GETUTCDATE()) may straddle a minute or a daylight-saving change
        Assert.Contains("DATEPART(TZOFFSET, SYSDATETIMEOFFSET())", RunningRequestReader.Query, StringComparison.Ordinal);
        Assert.DoesNotContain("GETDATE()", RunningRequestReader.Query, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Values_out_of_range_are_not_shown_as_percent_or_eta()
    {
        // Given a restore whose row carries impossible numbers, and one that gives no estimate (0)
        var sql = new ScriptedSqlServer();
        sql.RunningRequests.Add(new ScriptedRequest(70, "RESTORE DATABASE", null, 250f, -5, Start, null, -1, null));
        sql.RunningRequests.Add(new ScriptedRequest(71, "BACKUP LOG", "Ops", float.NaN, 0, Start, null, 0, "WRITELOG"));
        await using var server = TdsServerDouble.Start(sql.Script);
        var connections = new SqlConnectionFactory(TdsClient.Settings(server));
        var facts = new ServerFacts(15, null, new HashSet<string> { ServerRequirements.ViewServerState });

        // When
        var snapshot = await new RunningRequestReader(connections).ReadAsync(facts, TestContext.Current.CancellationToken);

        // Then
        Assert.Collection(
            snapshot.Requests,
            restore =>
            {
                Assert.True(restore.IsRestore);
                Assert.Equal(100, restore.PercentComplete);
                Assert.Null(restore.EstimatedRemaining);
                Assert.Equal(TimeSpan.Zero, restore.WaitTime);
            },
            log =>
            {
                Assert.Equal(0, log.PercentComplete);
                Assert.Null(log.EstimatedRemaining);
            });
    }

    [Fact]
    public async Task Without_view_server_state_the_view_is_not_read_and_one_line_names_the_grant()
    {
        // Given a login that could only see its own session in the view (no error from the server would say so)
        var sql = new ScriptedSqlServer();
        sql.Permissions.Remove(ServerRequirements.ViewServerState);
        sql.RunningRequests.Add(new ScriptedRequest(61, "BACKUP DATABASE", "SalesDB", 42, 95_000, Start, null, 0, null));
        await using var server = TdsServerDouble.Start(sql.Script);
        var connections = new SqlConnectionFactory(TdsClient.Settings(server));
        var facts = await new SessionClient(connections, new CaptureSessionSettings()).ReadServerFactsAsync(TestContext.Current.CancellationToken);

        // When
        var snapshot = await new RunningRequestReader(connections).ReadAsync(facts, TestContext.Current.CancellationToken);

        // Then
        Assert.Empty(snapshot.Requests);
        Assert.Contains($"GRANT VIEW SERVER STATE TO [{TdsClient.User}];", snapshot.Limitation, StringComparison.Ordinal);
        Assert.DoesNotContain(server.Requests, r => r.Text.Contains("dm_exec_requests", StringComparison.Ordinal));
    }

    [Theory]
    [InlineData(16, true)]
    [InlineData(15, false)]
    public void View_server_performance_state_is_enough_from_sql_server_2022(int major, bool sees)
    {
        var facts = new ServerFacts(major, null, new HashSet<string> { ServerRequirements.ViewServerPerformanceState });

        Assert.Equal(sees, RunningRequestReader.SeesAllSessions(facts));
    }

    [Fact]
    public async Task A_failed_read_is_a_limitation_line_not_an_exception()
    {
        // Given the view refuses (as a server without the permission after a revoke would)
        var sql = new ScriptedSqlServer().Deny("sys.dm_exec_requests");
        await using var server = TdsServerDouble.Start(sql.Script);
        var connections = new SqlConnectionFactory(TdsClient.Settings(server));
        var facts = new ServerFacts(15, null, new HashSet<string> { ServerRequirements.ViewServerState });

        // When
        var snapshot = await new RunningRequestReader(connections).ReadAsync(facts, TestContext.Current.CancellationToken);

        // Then
        Assert.Empty(snapshot.Requests);
        Assert.StartsWith("backups already running could not be read from sys.dm_exec_requests: VIEW SERVER STATE permission was denied", snapshot.Limitation, StringComparison.Ordinal);
    }
}
