using Microsoft.Data.SqlClient;

namespace BackupXe.SqlServer.Client;

/// <summary>
/// How BackupXe logs in. Microsoft.Data.SqlClient 6.1.8 carries every mode in its core package; 7.x moved the
/// Entra ID (ad-*) ones to an extension package the project's package source does not serve (docs/security.md).
/// </summary>
public enum SqlAuthentication
{
    /// <summary>A SQL Server login; the password comes from an environment variable or a prompt.</summary>
    SqlPassword,

    /// <summary>Windows / Kerberos integrated security (Integrated Security=true).</summary>
    Integrated,

    ActiveDirectoryPassword,
    ActiveDirectoryIntegrated,
    ActiveDirectoryInteractive,
    ActiveDirectoryServicePrincipal,
    ActiveDirectoryDeviceCodeFlow,
    ActiveDirectoryManagedIdentity,
}

/// <summary>The command-line spelling of each mode, and the driver's value for it.</summary>
public static class SqlAuthenticationNames
{
    public static IReadOnlyDictionary<string, SqlAuthentication> ByName { get; } =
        new Dictionary<string, SqlAuthentication>(StringComparer.OrdinalIgnoreCase)
        {
            ["sql"] = SqlAuthentication.SqlPassword,
            ["integrated"] = SqlAuthentication.Integrated,
            ["ad-password"] = SqlAuthentication.ActiveDirectoryPassword,
            ["ad-integrated"] = SqlAuthentication.ActiveDirectoryIntegrated,
            ["ad-interactive"] = SqlAuthentication.ActiveDirectoryInteractive,
            ["ad-service-principal"] = SqlAuthentication.ActiveDirectoryServicePrincipal,
            ["ad-device-code"] = SqlAuthentication.ActiveDirectoryDeviceCodeFlow,
            ["ad-managed-identity"] = SqlAuthentication.ActiveDirectoryManagedIdentity,
        };

    /// <summary>Whether the mode sends a secret that BackupXe has to obtain (password or client secret).</summary>
    public static bool NeedsSecret(SqlAuthentication mode) => mode is SqlAuthentication.SqlPassword
        or SqlAuthentication.ActiveDirectoryPassword
        or SqlAuthentication.ActiveDirectoryServicePrincipal;

    internal static SqlAuthenticationMethod? DriverMethod(SqlAuthentication mode) => mode switch
    {
        SqlAuthentication.SqlPassword => SqlAuthenticationMethod.SqlPassword,
        SqlAuthentication.Integrated => null,
        SqlAuthentication.ActiveDirectoryPassword => SqlAuthenticationMethod.ActiveDirectoryPassword,
        SqlAuthentication.ActiveDirectoryIntegrated => SqlAuthenticationMethod.ActiveDirectoryIntegrated,
        SqlAuthentication.ActiveDirectoryInteractive => SqlAuthenticationMethod.ActiveDirectoryInteractive,
        SqlAuthentication.ActiveDirectoryServicePrincipal => SqlAuthenticationMethod.ActiveDirectoryServicePrincipal,
        SqlAuthentication.ActiveDirectoryDeviceCodeFlow => SqlAuthenticationMethod.ActiveDirectoryDeviceCodeFlow,
        SqlAuthentication.ActiveDirectoryManagedIdentity => SqlAuthenticationMethod.ActiveDirectoryManagedIdentity,
        _ => throw new ArgumentOutOfRangeException(nameof(mode), mode, null),
    };
}
