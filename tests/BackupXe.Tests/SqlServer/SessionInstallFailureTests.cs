using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Requirements;
using BackupXe.SqlServer.Sessions;
using BackupXe.Testing.Tds;
using Xunit;

namespace BackupXe.Tests.SqlServer;

/// <summary>
/// A failure between CREATE EVENT SESSION and ALTER EVENT SESSION ... STATE = START, through the driver against the
/// TDS double: the server is left as it was, or the failure says exactly what is left. The double serves what the
/// script's CATCH makes a server send (TRY...CATCH and THROW pages); that the CATCH runs so on SQL Server is for the
/// BACKUPXE_TEST_SQL test (SqlServerIntegrationTests) to show.
/// </summary>
public sealed class SessionInstallFailureTests
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Given_START_fails_after_CREATE_When_installing_Then_no_session_is_left_and_the_server_error_is_kept(bool replacing)
    {
        // Given: the event_file target fails its configuration at START (25602); a re-install had dropped the old session first
        var sql = new ScriptedSqlServer { SessionExists = replacing }.FailStart();
        await using var server = TdsServerDouble.Start(sql.Script);
        var client = new SessionClient(new SqlConnectionFactory(TdsClient.Settings(server)), new CaptureSessionSettings());

        // When
        var failure = await Assert.ThrowsAsync<SessionInstallException>(() => client.InstallAsync(CancellationToken.None));

        // Then
        Assert.False(sql.SessionExists);
        Assert.Contains("(error 25602)", failure.Message, StringComparison.Ordinal);
        Assert.StartsWith("no session [BackupXe] was left on the server", failure.Left, StringComparison.Ordinal);
        Assert.Equal(replacing, failure.Left.Contains("that was there before had been dropped to be replaced and is not restored", StringComparison.Ordinal));
        Assert.Equal(LiveFailureKind.Fatal, new SqlFailureClassifier().Classify(failure));
        Assert.DoesNotContain(server.Requests, IsDropScript);
    }

    [Fact]
    public async Task Given_the_connection_is_lost_between_CREATE_and_START_When_installing_Then_BackupXe_drops_the_stopped_session()
    {
        // Given: the batch ends with the connection, so the script's CATCH never runs
        var sql = new ScriptedSqlServer().LoseConnectionAfterCreate();
        await using var server = TdsServerDouble.Start(sql.Script);
        var client = new SessionClient(new SqlConnectionFactory(TdsClient.Settings(server)), new CaptureSessionSettings());

        // When
        var failure = await Assert.ThrowsAsync<SessionInstallException>(() => client.InstallAsync(CancellationToken.None));

        // Then
        Assert.False(sql.SessionExists);
        Assert.Contains(server.Requests, IsDropScript);
        Assert.Equal("no session [BackupXe] was left on the server.", failure.Left);
        Assert.Equal(LiveFailureKind.Transient, new SqlFailureClassifier().Classify(failure));
    }

    [Fact]
    public async Task Given_a_2022_login_that_cannot_drop_When_START_fails_Then_the_stopped_session_left_is_named_with_the_grant()
    {
        // Given: CREATE and ENABLE but no DROP ANY EVENT SESSION, so neither the script's CATCH nor BackupXe can drop it
        var sql = new ScriptedSqlServer { MajorVersion = 16 }.FailStart(dropDenied: true);
        sql.Permissions.Clear();
        sql.Permissions.AddRange([ServerRequirements.CreateAnyEventSession, ServerRequirements.AlterAnyEventSessionEnable, ServerRequirements.ViewServerPerformanceState]);
        await using var server = TdsServerDouble.Start(sql.Script);
        var client = new SessionClient(new SqlConnectionFactory(TdsClient.Settings(server)), new CaptureSessionSettings());

        // When
        var failure = await Assert.ThrowsAsync<SessionInstallException>(() => client.InstallAsync(CancellationToken.None));

        // Then
        Assert.True(sql.SessionExists);
        Assert.False(sql.SessionRunning);
        Assert.DoesNotContain(server.Requests, IsDropScript);
        Assert.Contains("a stopped session [BackupXe] is left on the server and this login cannot drop it", failure.Left, StringComparison.Ordinal);
        Assert.Contains($"GRANT DROP ANY EVENT SESSION TO [{TdsClient.User}];", failure.Left, StringComparison.Ordinal);
        Assert.Contains("DROP EVENT SESSION [BackupXe] ON SERVER", failure.Left, StringComparison.Ordinal);
        Assert.Contains("(error 25602)", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void The_install_script_drops_a_session_that_cannot_start_before_raising_the_error_again()
    {
        // Given
        var script = SessionScripts.Install;

        // When: the part of the script after CREATE
        var afterCreate = script[script.IndexOf("EXEC sys.sp_executesql @Create;", StringComparison.Ordinal)..];

        // Then: START inside TRY; its CATCH drops (in a TRY of its own, so a refused drop is reported) and then THROWs
        var start = afterCreate.IndexOf("EXEC sys.sp_executesql @Start;", StringComparison.Ordinal);
        var outerCatch = afterCreate.IndexOf("BEGIN CATCH", start, StringComparison.Ordinal);
        var drop = afterCreate.IndexOf("EXEC sys.sp_executesql @Drop;", outerCatch, StringComparison.Ordinal);
        var rethrow = afterCreate.IndexOf("THROW;", drop, StringComparison.Ordinal);
        Assert.True(afterCreate.IndexOf("BEGIN TRY", StringComparison.Ordinal) is >= 0 and var tryAt && tryAt < start);
        Assert.True(start > 0 && outerCatch > start && drop > outerCatch && rethrow > drop);
    }

    private static bool IsDropScript(TdsRequest request) =>
        request.Text.Contains("DROP EVENT SESSION", StringComparison.Ordinal) && !request.Text.Contains("CREATE EVENT SESSION", StringComparison.Ordinal);
}
