namespace BackupXe.SqlServer.Client;

/// <summary>
/// Where and how BackupXe connects. Safe by default: encrypted, certificate validated, read-only work unless a
/// command says otherwise. The password is a value obtained by <see cref="PasswordSource"/>, never a
/// command-line argument, and never printed (<see cref="ToString"/> leaves it out).
/// </summary>
/// <param name="Server">Data Source: host, host\instance or host,port.</param>
/// <param name="Database">Initial Catalog; master holds every view BackupXe reads.</param>
/// <param name="Encrypt">
/// TLS for the whole connection. Only an explicit user choice turns it off: without encryption the driver sends
/// the login in clear text to a peer that claims it cannot encrypt (docs/security.md).
/// </param>
/// <param name="TrustServerCertificate">Accept any server certificate; explicit, and warned about.</param>
/// <param name="StrictEncryption">
/// Encrypt=Strict: TDS 8.0, TLS before anything else is sent and the certificate always validated (SQL Server 2022+
/// and Azure SQL); a server without TDS 8.0 refuses the connection.
/// </param>
/// <param name="HostNameInCertificate">
/// The name the server's certificate must carry when it is not the name connected to (an alias, a listener, an IP
/// address); null: the server name.
/// </param>
public sealed record SqlConnectionSettings(
    string Server,
    string Database = SqlConnectionSettings.DefaultDatabase,
    SqlAuthentication Authentication = SqlAuthentication.Integrated,
    string? UserName = null,
    string? Password = null,
    bool Encrypt = true,
    bool TrustServerCertificate = false,
    int ConnectTimeoutSeconds = SqlConnectionSettings.DefaultConnectTimeoutSeconds,
    int CommandTimeoutSeconds = SqlConnectionSettings.DefaultCommandTimeoutSeconds,
    bool StrictEncryption = false,
    string? HostNameInCertificate = null)
{
    public const string DefaultDatabase = "master";
    public const int DefaultConnectTimeoutSeconds = 15;
    public const int DefaultCommandTimeoutSeconds = 30;

    /// <summary>The application name every BackupXe connection shows in sys.dm_exec_sessions.</summary>
    public const string ApplicationName = "BackupXe";

    /// <summary>Upper bound for both timeouts, in seconds: an hour is already far beyond any preflight.</summary>
    public const int MaxTimeoutSeconds = 3600;

    /// <summary>The longest DNS name (RFC 1035: 253 characters in text form).</summary>
    public const int MaxHostNameLength = 253;

    /// <summary>
    /// The port of "host:port" (one colon, digits after it), or null: a protocol prefix ("tcp:host,1433") is followed
    /// by a name, and an IPv6 address has several colons.
    /// </summary>
    private static string? ColonPort(string server)
    {
        var colon = server.IndexOf(':');
        if (colon <= 0 || colon != server.LastIndexOf(':') || server.Contains(',', StringComparison.Ordinal))
        {
            return null;
        }

        var port = server[(colon + 1)..];
        return port.Length is > 0 and <= 5 && port.All(char.IsAsciiDigit) ? port : null;
    }

    /// <summary>Every problem with these settings, each naming the setting; empty when valid.</summary>
    public IReadOnlyList<string> Validate()
    {
        var problems = new List<string>();
        if (string.IsNullOrWhiteSpace(Server))
        {
            problems.Add("no server given: pass --server HOST[\\INSTANCE][,PORT].");
        }
        else if (Server.AsSpan().IndexOfAny('=', ';') >= 0)
        {
            // No host, instance or port holds either character; a pasted connection string does, and may hold a
            // password, so the value is not repeated.
            problems.Add("--server takes a server name (host, host\\instance or host,port), not a connection string; give the login with --user and its password through --password-env or the prompt.");
        }
        else if (ColonPort(Server) is { } port)
        {
            // The spelling of most other tools; the driver would take it for a host name and fail to resolve it.
            problems.Add($"--server '{Server}': SQL Server writes the port after a comma, not a colon: --server {Server[..Server.LastIndexOf(':')]},{port}.");
        }

        if (ConnectTimeoutSeconds is < 1 or > MaxTimeoutSeconds)
        {
            problems.Add($"connect timeout {ConnectTimeoutSeconds} s is out of range 1..{MaxTimeoutSeconds}.");
        }

        if (CommandTimeoutSeconds is < 1 or > MaxTimeoutSeconds)
        {
            problems.Add($"command timeout {CommandTimeoutSeconds} s is out of range 1..{MaxTimeoutSeconds}.");
        }

        problems.AddRange(EncryptionProblems());

        if (SqlAuthenticationNames.NeedsSecret(Authentication) && string.IsNullOrEmpty(UserName))
        {
            problems.Add($"{Authentication} needs a user name (--user).");
        }

        return problems;
    }

    /// <summary>
    /// Combinations that would not do what they say (Microsoft.Data.SqlClient's encryption and certificate validation
    /// page): Strict always validates the certificate, so trusting any certificate would be ignored; a host name to
    /// check means nothing without encryption or when any certificate is accepted.
    /// </summary>
    private IEnumerable<string> EncryptionProblems()
    {
        if (StrictEncryption && !Encrypt)
        {
            yield return "--strict-encryption and --no-encryption contradict each other: choose one.";
        }
        else if (StrictEncryption && TrustServerCertificate)
        {
            yield return "--strict-encryption always validates the server certificate (TDS 8.0), so --trust-server-certificate would be ignored: leave it out, or leave out --strict-encryption.";
        }

        if (HostNameInCertificate is null)
        {
            yield break;
        }

        if (HostNameInCertificate.Length is 0 or > MaxHostNameLength
            || !HostNameInCertificate.All(c => char.IsAsciiLetterOrDigit(c) || c is '-' or '.')
            || HostNameInCertificate.StartsWith('.') || HostNameInCertificate.Contains("..", StringComparison.Ordinal))
        {
            // Not repeated: a value that is not a host name may be anything pasted, a secret included.
            yield return $"--host-name-in-certificate takes a host name (letters, digits, '-' and '.', at most {MaxHostNameLength} characters).";
        }
        else if (!Encrypt)
        {
            yield return "--host-name-in-certificate needs encryption: there is no certificate to check with --no-encryption.";
        }
        else if (TrustServerCertificate && !StrictEncryption)
        {
            yield return "--host-name-in-certificate is not checked when --trust-server-certificate accepts any certificate: leave one of them out.";
        }
    }

    /// <summary>Warnings the user must see before connecting; empty for the safe defaults.</summary>
    public IReadOnlyList<string> SecurityWarnings()
    {
        var warnings = new List<string>();
        if (!Encrypt)
        {
            warnings.Add("warning: encryption is off (--no-encryption): the login and every result cross the network in clear text.");
        }
        else if (TrustServerCertificate)
        {
            warnings.Add("warning: --trust-server-certificate accepts any certificate, so the connection is encrypted but the server is not authenticated; install a certificate the client trusts instead.");
        }

        return warnings;
    }

    /// <summary>Server, database and login for messages; never the password.</summary>
    public override string ToString() =>
        $"{Server} (database {Database}, {(UserName is null ? Authentication.ToString() : $"{Authentication} as {UserName}")})";
}
