using System.CommandLine;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;

namespace BackupXe.Cli.Commands;

/// <summary>
/// The connection options every server verb shares. There is deliberately no --password: a password comes from
/// the environment variable named by --password-env, or from a prompt.
/// </summary>
internal sealed class ConnectionOptions(bool serverRequired = true)
{
    public Option<string> Server { get; } = new("--server", "-S") { Description = "SQL Server instance: host, host\\instance or host,port.", Required = serverRequired };

    // Not --database: that name filters operations wherever operations are listed (docs/options.md).
    public Option<string> Database { get; } = new("--connect-database") { Description = "Database the connection opens in (master by default); what is read is server-wide either way.", DefaultValueFactory = _ => SqlConnectionSettings.DefaultDatabase };

    public Option<string?> User { get; } = new("--user", "-U") { Description = "Login name (SQL authentication unless --authentication says otherwise)." };

    public Option<string> PasswordVariable { get; } = new("--password-env")
    {
        Description = "Environment variable holding the password; without it set, an interactive terminal is prompted.",
        DefaultValueFactory = _ => PasswordSource.DefaultVariable,
    };

    public Option<string?> Authentication { get; } = CreateAuthentication();

    public Option<bool> TrustServerCertificate { get; } = new("--trust-server-certificate") { Description = "Accept any server certificate (encrypted, but the server is not authenticated). Prints a warning." };

    public Option<bool> NoEncryption { get; } = new("--no-encryption") { Description = "Turn TLS off: the login travels in clear text. Prints a warning; for test servers only." };

    public Option<bool> StrictEncryption { get; } = new("--strict-encryption") { Description = "Encrypt=Strict (TDS 8.0): TLS before the login and the certificate always validated; SQL Server 2022+ and Azure SQL." };

    public Option<string?> HostNameInCertificate { get; } = new("--host-name-in-certificate") { Description = "The host name the server's certificate must carry, when it is not the --server name (an alias, a listener, an IP address)." };

    public Option<int> ConnectTimeout { get; } = new("--connect-timeout") { Description = "Seconds to wait for the connection.", DefaultValueFactory = _ => SqlConnectionSettings.DefaultConnectTimeoutSeconds };

    public Option<int> CommandTimeout { get; } = new("--command-timeout") { Description = "Seconds to wait for each query.", DefaultValueFactory = _ => SqlConnectionSettings.DefaultCommandTimeoutSeconds };

    public Option<bool> Verbose { get; } = new("--verbose", "-v") { Description = "After a connection failure's one sentence, also the driver's own message." };

    public void AddTo(Command command)
    {
        foreach (var option in new Option[] { Server, Database, User, PasswordVariable, Authentication, TrustServerCertificate, NoEncryption, StrictEncryption, HostNameInCertificate, ConnectTimeout, CommandTimeout, Verbose })
        {
            command.Options.Add(option);
        }
    }

    /// <summary>The connection this command line asks for, read (the password obtained) only when a runner connects.</summary>
    public ServerConnection Of(ParseResult parse) => new(parse.GetValue(Server), parse.GetValue(Verbose), error => Read(parse, PasswordSource.FromConsole(), error));

    /// <summary>
    /// The settings the command line asks for, with the password obtained; null after writing one line per
    /// problem to <paramref name="error"/>. Security warnings go to <paramref name="error"/> as well.
    /// </summary>
    public SqlConnectionSettings? Read(ParseResult parse, PasswordSource passwords, TextWriter error)
    {
        var user = parse.GetValue(User);
        var authentication = parse.GetValue(Authentication) is { } name
            ? SqlAuthenticationNames.ByName[name]
            : user is null ? SqlAuthentication.Integrated : SqlAuthentication.SqlPassword;
        string? password = null;
        if (SqlAuthenticationNames.NeedsSecret(authentication) && user is not null)
        {
            password = passwords.Obtain(parse.GetValue(PasswordVariable)!, user, out var problem);
            if (password is null)
            {
                error.WriteLine($"backupxe: {problem}");
                return null;
            }
        }

        var settings = new SqlConnectionSettings(
            parse.GetValue(Server)!,
            parse.GetValue(Database)!,
            authentication,
            user,
            password,
            Encrypt: !parse.GetValue(NoEncryption),
            TrustServerCertificate: parse.GetValue(TrustServerCertificate),
            ConnectTimeoutSeconds: parse.GetValue(ConnectTimeout),
            CommandTimeoutSeconds: parse.GetValue(CommandTimeout),
            StrictEncryption: parse.GetValue(StrictEncryption),
            HostNameInCertificate: parse.GetValue(HostNameInCertificate));
        var problems = settings.Validate();
        foreach (var line in problems)
        {
            error.WriteLine($"backupxe: {line}");
        }

        if (problems.Count > 0)
        {
            return null;
        }

        foreach (var warning in settings.SecurityWarnings())
        {
            error.WriteLine($"backupxe: {warning}");
        }

        return settings;
    }

    private static Option<string?> CreateAuthentication()
    {
        var option = new Option<string?>("--authentication", "-a")
        {
            Description = "sql (default with --user), integrated (default without), ad-password, ad-integrated, ad-interactive, ad-service-principal, ad-device-code, ad-managed-identity.",
        };
        Choices.OneOf(option, [.. SqlAuthenticationNames.ByName.Keys]);
        return option;
    }
}

/// <summary>
/// A server verb's connection as its settings record holds it: the server named (null when none), and how the full
/// settings are read, late, because reading may prompt for the password.
/// </summary>
/// <param name="Read">The settings with the password obtained; null after one line per problem on the writer.</param>
internal sealed record ServerConnection(string? Server, bool Verbose, Func<TextWriter, SqlConnectionSettings?> Read);
