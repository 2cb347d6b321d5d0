using System.Text.RegularExpressions;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Requirements;
using BackupXe.SqlServer.Sessions;
using BackupXe.Tests.Cli;
using BackupXe.Testing.Tds;
using Xunit;

namespace BackupXe.Tests.SqlServer.Sessions;

public partial class SessionClientTests
{
    [Fact]
    public async Task As_the_live_sources_installer_it_re_creates_a_missing_session()
    {
        // Given
        var sql = new ScriptedSqlServer();
        await using var server = TdsServerDouble.Start(sql.Script);
        ISessionInstaller installer = new SessionClient(new SqlConnectionFactory(TdsClient.Settings(server)), new CaptureSessionSettings());

        // When
        await installer.InstallAsync(CancellationToken.None);

        // Then
        Assert.True(sql.SessionExists && sql.SessionRunning);
    }

    [Fact]
    public async Task As_the_live_sources_installer_it_throws_a_fatal_requirement_failure_on_sql_server_2014()
    {
        // Given
        var sql = new ScriptedSqlServer { MajorVersion = 12 };
        await using var server = TdsServerDouble.Start(sql.Script);
        ISessionInstaller installer = new SessionClient(new SqlConnectionFactory(TdsClient.Settings(server)), new CaptureSessionSettings());

        // When
        var failure = await Assert.ThrowsAsync<ServerRequirementException>(() => installer.InstallAsync(CancellationToken.None));

        // Then
        Assert.Equal(RequirementKind.VersionTooOld, Assert.Single(failure.Problems).Kind);
        Assert.Equal(LiveFailureKind.Fatal, new SqlFailureClassifier().Classify(failure));
        Assert.False(sql.SessionExists);
    }

    [Theory]
    [InlineData(false, "GRANT ALTER ANY EVENT SESSION ENABLE TO")]
    [InlineData(true, "GRANT ALTER ANY EVENT SESSION ENABLE TO")]
    public async Task Given_a_2022_login_with_only_CREATE_ANY_EVENT_SESSION_When_installing_Then_no_DDL_is_sent_and_the_grant_is_named(bool sessionExists, string grant)
    {
        // Given: SQL Server 2022, where START needs ALTER ANY EVENT SESSION ENABLE and DROP needs DROP ANY EVENT SESSION
        var sql = new ScriptedSqlServer { MajorVersion = 16, SessionExists = sessionExists };
        sql.Permissions.Clear();
        sql.Permissions.AddRange([ServerRequirements.CreateAnyEventSession, ServerRequirements.ViewServerPerformanceState, "CONNECT SQL"]);
        await using var server = TdsServerDouble.Start(sql.Script);
        var client = new SessionClient(new SqlConnectionFactory(TdsClient.Settings(server)), new CaptureSessionSettings());

        // When
        var outcome = await client.InstallAsync(CancellationToken.None);

        // Then
        Assert.False(outcome.Installed);
        Assert.Contains(outcome.Problems, p => p.Message.Contains(grant, StringComparison.Ordinal));
        Assert.Equal(sessionExists, outcome.Problems.Any(p => p.Message.Contains("GRANT DROP ANY EVENT SESSION TO", StringComparison.Ordinal)));
        Assert.DoesNotContain(server.Requests, r => r.Text.Contains("EVENT SESSION ", StringComparison.Ordinal)
            && (r.Text.Contains("CREATE EVENT SESSION", StringComparison.Ordinal) || r.Text.Contains("DROP EVENT SESSION", StringComparison.Ordinal)));
        Assert.Equal(sessionExists, sql.SessionExists);
    }

    [Fact]
    public async Task Given_a_2022_login_with_create_enable_and_drop_When_re_installing_Then_the_session_is_replaced()
    {
        // Given
        var sql = new ScriptedSqlServer { MajorVersion = 16, SessionExists = true };
        sql.Permissions.Clear();
        sql.Permissions.AddRange([ServerRequirements.CreateAnyEventSession, ServerRequirements.DropAnyEventSession,
            ServerRequirements.AlterAnyEventSessionEnable, ServerRequirements.ViewServerPerformanceState]);
        await using var server = TdsServerDouble.Start(sql.Script);
        var client = new SessionClient(new SqlConnectionFactory(TdsClient.Settings(server)), new CaptureSessionSettings());

        // When
        var outcome = await client.InstallAsync(CancellationToken.None);

        // Then
        Assert.Empty(outcome.Problems);
        Assert.True(outcome.Installed);
    }

    [Fact]
    public async Task Given_a_2022_login_without_DROP_or_DISABLE_When_uninstalling_a_running_session_Then_no_DDL_is_sent()
    {
        // Given
        var sql = new ScriptedSqlServer { MajorVersion = 16, SessionExists = true, SessionRunning = true };
        sql.Permissions.Clear();
        sql.Permissions.AddRange([ServerRequirements.CreateAnyEventSession, ServerRequirements.ViewServerPerformanceState]);
        await using var server = TdsServerDouble.Start(sql.Script);
        var client = new SessionClient(new SqlConnectionFactory(TdsClient.Settings(server)), new CaptureSessionSettings());

        // When
        var outcome = await client.UninstallAsync(CancellationToken.None);

        // Then
        Assert.Contains(outcome.Problems, p => p.Message.Contains("GRANT ALTER ANY EVENT SESSION DISABLE TO", StringComparison.Ordinal));
        Assert.Contains(outcome.Problems, p => p.Message.Contains("GRANT DROP ANY EVENT SESSION TO", StringComparison.Ordinal));
        Assert.DoesNotContain(server.Requests, r => r.Text.Contains("DROP EVENT SESSION", StringComparison.Ordinal));
        Assert.True(sql.SessionExists && sql.SessionRunning);
    }

    [Fact]
    public async Task Given_a_Managed_Instance_and_a_local_event_file_When_installing_Then_no_DDL_is_sent_and_an_https_URL_is_asked_for()
    {
        // Given: engine edition 8 reports Azure's version number 12, which is not SQL Server 2014
        var sql = new ScriptedSqlServer { MajorVersion = 12, EngineEdition = 8 };
        await using var server = TdsServerDouble.Start(sql.Script);
        var client = new SessionClient(new SqlConnectionFactory(TdsClient.Settings(server)), new CaptureSessionSettings());

        // When
        var outcome = await client.InstallAsync(CancellationToken.None);

        // Then
        var problem = Assert.Single(outcome.Problems);
        Assert.Equal(RequirementKind.UnsupportedPlatform, problem.Kind);
        Assert.Contains("https://", problem.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("2014", problem.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(server.Requests, r => r.Text.Contains("CREATE EVENT SESSION", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Given_a_Managed_Instance_and_a_blob_URL_When_installing_Then_the_session_is_created()
    {
        // Given
        var sql = new ScriptedSqlServer { MajorVersion = 12, EngineEdition = 8 };
        await using var server = TdsServerDouble.Start(sql.Script);
        var settings = new CaptureSessionSettings(FilePath: "https://acct.blob.core.windows.net/xe/BackupXe.xel");
        var client = new SessionClient(new SqlConnectionFactory(TdsClient.Settings(server)), settings);

        // When
        var outcome = await client.InstallAsync(CancellationToken.None);

        // Then
        Assert.Empty(outcome.Problems);
        Assert.True(outcome.Installed);
        Assert.Contains(server.Requests, r => r.Text.Contains("N'https://acct.blob.core.windows.net/xe/BackupXe.xel'", StringComparison.Ordinal));
    }

    [Fact]
    public void Product_code_never_turns_encryption_off_by_itself()
    {
        // Given every C# file under src/
        var src = Path.Combine(Path.GetDirectoryName(CliRun.Sample("x"))!, "..", "src");

        // When
        var offenders = Directory.GetFiles(src, "*.cs", SearchOption.AllDirectories)
            .Where(f => !f.Contains($"{Path.DirectorySeparatorChar}obj{Path.DirectorySeparatorChar}", StringComparison.Ordinal))
            .Where(f => EncryptOff().IsMatch(File.ReadAllText(f)))
            .ToList();

        // Then: only the user's --no-encryption reaches SqlConnectionSettings.Encrypt
        Assert.Empty(offenders);
    }

    [GeneratedRegex(@"Encrypt\s*[=:]\s*false|Encrypt\s*=\s*SqlConnectionEncryptOption\.Optional", RegexOptions.IgnoreCase)]
    private static partial Regex EncryptOff();
}
