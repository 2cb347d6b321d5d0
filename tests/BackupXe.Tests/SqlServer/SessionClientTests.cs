using System.Text.RegularExpressions;
using BackupXe.SqlServer;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Support.Tds;
using Xunit;

namespace BackupXe.Tests.SqlServer;

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
