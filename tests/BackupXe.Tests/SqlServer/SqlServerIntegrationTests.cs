using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Preflight;
using BackupXe.SqlServer.Sessions;
using BackupXe.Tests.Support;
using Microsoft.Data.SqlClient;
using Xunit;

namespace BackupXe.Tests.SqlServer;

/// <summary>
/// Against a real SQL Server, only when BACKUPXE_TEST_SQL holds a connection string (skipped, visibly, otherwise).
/// These prove what the TDS double cannot: that the scripts run on SQL Server. Read-only except the session
/// tests, which create and drop a session named BackupXe_IntegrationTest.
/// </summary>
public class SqlServerIntegrationTests
{
    internal const string Variable = "BACKUPXE_TEST_SQL";

    [Fact]
    public async Task Server_facts_and_preflight_run_on_a_real_server()
    {
        var factory = Factory();
        var facts = await new SessionClient(factory, new CaptureSessionSettings()).ReadServerFactsAsync(CancellationToken.None);
        Assert.True(facts.ProductMajorVersion >= 9);
        var checks = await new ServerPreflight(factory, new CaptureSessionSettings()).RunAsync(CancellationToken.None);
        Assert.Contains(checks, c => c.Name == "version");
    }

    [Fact]
    public async Task Install_status_uninstall_round_trip_on_a_real_server()
    {
        var factory = Factory();
        var client = new SessionClient(factory, new CaptureSessionSettings("BackupXe_IntegrationTest", "BackupXe_IntegrationTest.xel"));
        var installed = await client.InstallAsync(CancellationToken.None);
        if (installed.Problems.Count > 0)
        {
            Skipped.Because("the test login or server cannot host the session: " + string.Join(" ", installed.Problems.Select(p => p.Message)), "grant the login what docs/permissions.md lists for session install, or point BACKUPXE_TEST_SQL at a server that allows it");
        }

        Assert.True(installed.Installed);
        var again = await client.InstallAsync(CancellationToken.None);
        Assert.True(again.Before!.Exists);
        var removed = await client.UninstallAsync(CancellationToken.None);
        Assert.False(removed.After!.Exists);
    }

    [Fact]
    public async Task A_session_whose_event_file_folder_does_not_exist_is_not_left_on_a_real_server()
    {
        // The event_file target checks its folder when the session starts (25602) or when it is created: either way no
        // session of that name may be left, which shows that the install script's CATCH drops it again on SQL Server.
        var factory = Factory();
        var folder = await IsLinuxAsync(factory) ? "/backupxe-no-such-folder/" : @"C:ackupxe-no-such-folder";
        var client = new SessionClient(factory, new CaptureSessionSettings("BackupXe_IntegrationTest_NoStart", folder + "BackupXe_IntegrationTest.xel"));
        try
        {
            var outcome = await client.InstallAsync(CancellationToken.None);
            if (outcome.Problems.Count > 0)
            {
                Skipped.Because("the test login or server cannot host the session: " + string.Join(" ", outcome.Problems.Select(p => p.Message)), "grant the login what docs/permissions.md lists for session install, or point BACKUPXE_TEST_SQL at a server that allows it");
            }

            Assert.Fail($"the session started with its event file in {folder}, a folder that should not exist on the server");
        }
        catch (SessionInstallException failure)
        {
            Assert.StartsWith("no session [BackupXe_IntegrationTest_NoStart] was left on the server", failure.Left, StringComparison.Ordinal);
        }
        finally
        {
            if ((await client.StatusAsync(CancellationToken.None)).Exists)
            {
                await client.UninstallAsync(CancellationToken.None);
            }
        }

        Assert.False((await client.StatusAsync(CancellationToken.None)).Exists);
    }

    private static async Task<bool> IsLinuxAsync(SqlConnectionFactory factory)
    {
        await using var connection = await factory.OpenAsync(CancellationToken.None);
        // sys.dm_os_host_info exists from 2017, the first release on Linux; 2016 runs on Windows only.
        await using var command = factory.Command(connection, "SELECT CASE WHEN OBJECT_ID(N'sys.dm_os_host_info') IS NULL THEN N'Windows' ELSE (SELECT TOP (1) host_platform FROM sys.dm_os_host_info) END;");
        return await command.ExecuteScalarAsync() is string platform && platform.Equals("Linux", StringComparison.OrdinalIgnoreCase);
    }

    internal static SqlConnectionFactory Factory()
    {
        var text = Environment.GetEnvironmentVariable(Variable);
        if (string.IsNullOrWhiteSpace(text))
        {
            Skipped.Because($"{Variable} is not set: no SQL Server to test against", $"set {Variable} to a SqlClient connection string (docs/development.md, Against a real SQL Server)");
        }

        var builder = new SqlConnectionStringBuilder(text);
        return new SqlConnectionFactory(new SqlConnectionSettings(
            builder.DataSource,
            string.IsNullOrEmpty(builder.InitialCatalog) ? SqlConnectionSettings.DefaultDatabase : builder.InitialCatalog,
            builder.IntegratedSecurity ? SqlAuthentication.Integrated : SqlAuthentication.SqlPassword,
            builder.IntegratedSecurity ? null : builder.UserID,
            builder.IntegratedSecurity ? null : builder.Password,
            // Encryption unless the variable says Encrypt=false in so many words, whatever the driver's own default.
            Encrypt: builder.Encrypt || !text.Contains("Encrypt", StringComparison.OrdinalIgnoreCase),
            TrustServerCertificate: builder.TrustServerCertificate));
    }
}
