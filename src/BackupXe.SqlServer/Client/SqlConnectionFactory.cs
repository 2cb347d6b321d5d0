using Microsoft.Data.SqlClient;

namespace BackupXe.SqlServer.Client;

/// <summary>
/// The one place BackupXe builds a connection: encryption on and the certificate validated unless the user
/// chose otherwise, application name BackupXe, the user's timeouts. Its connection string never leaves this
/// type except through <see cref="RedactedConnectionString"/>.
/// </summary>
public sealed class SqlConnectionFactory
{
    private readonly string connectionString;
    private string? connectedServerVersion;

    public SqlConnectionFactory(SqlConnectionSettings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        var problems = settings.Validate();
        if (problems.Count > 0)
        {
            throw new ArgumentException(string.Join(" ", problems));
        }

        Settings = settings;
        var builder = new SqlConnectionStringBuilder
        {
            DataSource = settings.Server,
            InitialCatalog = settings.Database,
            ApplicationName = SqlConnectionSettings.ApplicationName,
            Encrypt = settings.StrictEncryption ? SqlConnectionEncryptOption.Strict
                : settings.Encrypt ? SqlConnectionEncryptOption.Mandatory : SqlConnectionEncryptOption.Optional,
            TrustServerCertificate = settings.TrustServerCertificate,
            ConnectTimeout = settings.ConnectTimeoutSeconds,
            CommandTimeout = settings.CommandTimeoutSeconds,
            // BackupXe backs off itself (TransientRetry, the live sources' reconnects); the pool's own blocking period
            // would answer those retries with the first failure, cached, without asking the server again.
            PoolBlockingPeriod = PoolBlockingPeriod.NeverBlock,
        };
        if (settings.HostNameInCertificate is not null)
        {
            builder.HostNameInCertificate = settings.HostNameInCertificate;
        }

        if (settings.Authentication == SqlAuthentication.Integrated)
        {
            builder.IntegratedSecurity = true;
        }
        else
        {
            builder.Authentication = SqlAuthenticationNames.DriverMethod(settings.Authentication)!.Value;
            if (settings.UserName is not null)
            {
                builder.UserID = settings.UserName;
            }

            if (settings.Password is not null)
            {
                builder.Password = settings.Password;
            }
        }

        connectionString = builder.ConnectionString;
    }

    public SqlConnectionSettings Settings { get; }

    /// <summary>The connection string with secrets masked, parsed by the driver's own builder.</summary>
    public string RedactedConnectionString => ConnectionStringRedactor.RedactWithBuilder(connectionString);

    /// <summary>
    /// The version the server gave in its login response to the last connection opened ("15.00.2000":
    /// SqlConnection.ServerVersion, from the LOGINACK token's program version); null before one is opened.
    /// </summary>
    public string? ConnectedServerVersion
    {
        get => Volatile.Read(ref connectedServerVersion);
        private set => Volatile.Write(ref connectedServerVersion, value);
    }

    /// <summary>A closed connection; the caller opens and disposes it.</summary>
    public SqlConnection Create() => new(connectionString);

    /// <summary>An open connection, or a <see cref="SqlException"/> the classifier can sort.</summary>
    public async Task<SqlConnection> OpenAsync(CancellationToken cancellationToken)
    {
        var connection = Create();
        try
        {
            await connection.OpenAsync(cancellationToken).ConfigureAwait(false);
            ConnectedServerVersion = connection.ServerVersion;
            return connection;
        }
        catch
        {
            await connection.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>A command on <paramref name="connection"/> with this factory's command timeout.</summary>
    public SqlCommand Command(SqlConnection connection, string text) =>
        new(text, connection) { CommandTimeout = Settings.CommandTimeoutSeconds };
}
