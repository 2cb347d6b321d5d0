using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;

namespace BackupXe.Testing.Tds;

/// <summary>
/// How tests reach the <see cref="TdsServerDouble"/>. TEST-ONLY CHOICE: Encrypt=false, because the double has no
/// TLS; product code never turns encryption off unless the user passes --no-encryption. Nothing else uses it.
/// </summary>
public static class TdsClient
{
    public const string User = "backupxe_probe";

    /// <summary>A password the double checks and every test scans outputs for.</summary>
    public const string Password = "Tds-d0uble-S3cret!";

    /// <summary>Environment variable the CLI tests point --password-env at.</summary>
    public const string PasswordVariable = "BACKUPXE_TDS_DOUBLE_PASSWORD";

    public static SqlConnectionSettings Settings(TdsServerDouble server, string password = Password, int commandTimeoutSeconds = 5) => new(
        server.Server,
        Authentication: SqlAuthentication.SqlPassword,
        UserName: User,
        Password: password,
        Encrypt: false, // test-only: the double speaks no TLS
        ConnectTimeoutSeconds: 5,
        CommandTimeoutSeconds: commandTimeoutSeconds);

    /// <summary>The CLI's connection arguments for the double, --no-encryption included for the same reason.</summary>
    public static string[] CliArguments(TdsServerDouble server) =>
        ["--server", server.Server, "--user", User, "--password-env", PasswordVariable, "--no-encryption", "--connect-timeout", "5", "--command-timeout", "5"];
}
