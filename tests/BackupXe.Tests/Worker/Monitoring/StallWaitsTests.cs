using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Requests;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using BackupXe.Worker.Monitoring;
using Serilog.Events;
using Serilog.Extensions.Logging;
using Xunit;

namespace BackupXe.Tests.Worker.Monitoring;

/// <summary>
/// A live instance's stalled session looked up in sys.dm_exec_requests through the real driver, against the TDS double
/// serving the view's documented column types: the current wait as event 182, or why not as event 183.
/// </summary>
public sealed class StallWaitsTests : IDisposable
{
    private readonly CollectingSink _log = new();
    private readonly SerilogLoggerFactory _loggers;

    public StallWaitsTests()
    {
        Environment.SetEnvironmentVariable(TdsClient.PasswordVariable, TdsClient.Password);
        _loggers = new SerilogLoggerFactory(_log.CreateLogger(), dispose: true);
    }

    public void Dispose() => _loggers.Dispose();

    private async Task LogAsync(ScriptedSqlServer sql, int sessionId)
    {
        await using var server = TdsServerDouble.Start(sql.Script);
        var waits = new StallWaits(new RunningRequestReader(new SqlConnectionFactory(TdsClient.Settings(server))), _loggers.CreateLogger("stall"));
        await waits.LogAsync("prod", "backup", "SalesDB", sessionId, "copy-data", CancellationToken.None);
    }

    [Fact]
    public async Task The_stalled_sessions_current_wait_is_logged_with_its_time_and_last_wait()
    {
        // Given: session 61's BACKUP DATABASE waiting on BACKUPIO for 412 s, and another backup
        var sql = new ScriptedSqlServer();
        sql.RunningRequests.Add(new ScriptedRequest(58, "BACKUP LOG", "HR", 80f, 1000, new DateTime(2024, 5, 1, 1, 29, 0, DateTimeKind.Utc), "ASYNC_IO_COMPLETION", 20, "BACKUPBUFFER"));
        sql.RunningRequests.Add(new ScriptedRequest(61, "BACKUP DATABASE", "SalesDB", 40f, 0, new DateTime(2024, 5, 1, 1, 20, 0, DateTimeKind.Utc), "BACKUPIO", 412_000, "BACKUPBUFFER"));

        // When
        await LogAsync(sql, 61);

        // Then
        var wait = Assert.Single(_log.WithEventId(182));
        Assert.Equal(LogEventLevel.Warning, wait.Level);
        Assert.Equal("BACKUPIO", wait.Scalar("WaitType"));
        Assert.Equal(412_000L, wait.Scalar("WaitMs"));
        Assert.Equal("BACKUPBUFFER", wait.Scalar("LastWaitType"));
        Assert.Equal(61, wait.Scalar("SessionId"));
        Assert.Equal("copy-data", wait.Scalar("Phase"));
        Assert.Empty(_log.WithEventId(183));
    }

    [Fact]
    public async Task A_session_the_view_does_not_list_is_said_not_visible_and_why()
    {
        // Given: the view lists no request of session 61 (ended, or a login without VIEW SERVER STATE sees only its own)
        var sql = new ScriptedSqlServer();

        // When
        await LogAsync(sql, 61);

        // Then
        var unknown = Assert.Single(_log.WithEventId(183));
        Assert.Contains("lacks VIEW SERVER STATE", (string)unknown.Scalar("Reason")!, StringComparison.Ordinal);
        Assert.Empty(_log.WithEventId(182));
    }

    [Fact]
    public async Task A_failed_read_is_logged_as_not_known_with_the_servers_message()
    {
        // Given
        var sql = new ScriptedSqlServer().Deny("sys.dm_exec_requests");

        // When
        await LogAsync(sql, 61);

        // Then
        var unknown = Assert.Single(_log.WithEventId(183));
        Assert.Contains("VIEW SERVER STATE permission was denied", (string)unknown.Scalar("Reason")!, StringComparison.Ordinal);
    }
}
