using System.Globalization;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using Microsoft.Data.SqlClient;

namespace BackupXe.Worker.Configuration;

/// <summary>
/// A live instance's settings as the client layer takes them. Validation and the source factory both go
/// through here, so what start-up accepts is exactly what the daemon connects with. No message quotes a
/// password or a connection string.
/// </summary>
internal static class LiveInstanceSettings
{
    /// <summary>The name under which the central history store's connection is checked like an instance's.</summary>
    public const string HistoryStoreName = "history";

    /// <summary>Every problem with the live settings of <paramref name="instance"/>, each naming its key.</summary>
    public static IReadOnlyList<string> Problems(InstanceOptions instance, string key)
    {
        var problems = new List<string>();
        if (!string.Equals(instance.Transport, LiveTransport.File, StringComparison.OrdinalIgnoreCase)
            && !string.Equals(instance.Transport, LiveTransport.Stream, StringComparison.OrdinalIgnoreCase)
            && !string.Equals(instance.Transport, LiveTransport.RingBuffer, StringComparison.OrdinalIgnoreCase))
        {
            problems.Add($"{key}:Transport must be '{LiveTransport.File}', '{LiveTransport.Stream}' (experimental) or '{LiveTransport.RingBuffer}'; it is '{instance.Transport}'.");
        }
        else if (instance.EnsureSession && string.Equals(instance.Transport, LiveTransport.RingBuffer, StringComparison.OrdinalIgnoreCase))
        {
            problems.Add($"{key}:EnsureSession creates a session with an event_file target; Transport '{LiveTransport.RingBuffer}' reads an existing session's ring_buffer target. Set one of them only.");
        }

        if (!double.IsFinite(instance.PollIntervalSeconds) || instance.PollIntervalSeconds <= 0 || instance.PollIntervalSeconds > 3600)
        {
            problems.Add($"{key}:PollIntervalSeconds must be greater than 0 and at most 3600; it is {instance.PollIntervalSeconds.ToString(CultureInfo.InvariantCulture)}.");
        }

        if (instance.BatchSize is < 1 or > 100_000)
        {
            problems.Add($"{key}:BatchSize must be between 1 and 100000; it is {instance.BatchSize}.");
        }

        if (!double.IsFinite(instance.CheckpointIntervalSeconds) || instance.CheckpointIntervalSeconds < 0 || instance.CheckpointIntervalSeconds > 3600)
        {
            problems.Add($"{key}:CheckpointIntervalSeconds must be between 0 and 3600; it is {instance.CheckpointIntervalSeconds.ToString(CultureInfo.InvariantCulture)}.");
        }

        if (!string.IsNullOrWhiteSpace(instance.ConnectionString) && !string.IsNullOrWhiteSpace(instance.Server))
        {
            problems.Add($"{key} has both ConnectionString and Server; set only one.");
            return problems;
        }

        var (settings, problem) = TryBuild(instance);
        if (problem is not null)
        {
            problems.Add($"{key}:{(string.IsNullOrWhiteSpace(instance.ConnectionString) ? "Server" : "ConnectionString")} {problem}");
        }
        else
        {
            problems.AddRange(settings!.Validate().Select(p => $"{key}: {p}"));
            if (SqlAuthenticationNames.NeedsSecret(settings.Authentication) && !string.IsNullOrEmpty(settings.UserName)
                && string.IsNullOrEmpty(settings.Password))
            {
                // The driver refuses such a login before it reaches the server, and a service has no prompt: without
                // this the daemon would retry a connection that can never open.
                problems.Add(instance.Name == HistoryStoreName
                    ? $"{key}:ConnectionString names the login '{settings.UserName}' ({settings.Authentication}) but no password: give the connection string through the environment ({EnvironmentName(key)}__ConnectionString), never in appsettings.json."
                    : $"{key}:Password is not set: {settings.Authentication} as '{settings.UserName}' needs the login's secret; give it through the environment ({EnvironmentName(key)}__Password), never in appsettings.json.");
            }
        }

        return problems;
    }

    /// <summary>The environment variable's spelling of a configuration key: "BackupXe:Instances:0" is "BackupXe__Instances__0".</summary>
    private static string EnvironmentName(string key) => key.Replace(":", "__", StringComparison.Ordinal);

    /// <summary>The connection settings; throws only for options <see cref="Problems"/> would have refused.</summary>
    public static SqlConnectionSettings Build(InstanceOptions instance)
    {
        var (settings, problem) = TryBuild(instance);
        return settings ?? throw new InvalidOperationException($"Instance '{instance.Name}': {problem}");
    }

    private static (SqlConnectionSettings? Settings, string? Problem) TryBuild(InstanceOptions instance)
    {
        if (!string.IsNullOrWhiteSpace(instance.ConnectionString))
        {
            SqlConnectionStringBuilder builder;
            try
            {
                builder = new SqlConnectionStringBuilder(instance.ConnectionString);
            }
            catch (Exception exception) when (exception is ArgumentException or FormatException or KeyNotFoundException)
            {
                // The driver's message names the keyword, not the value.
                return (null, $"is not a valid connection string: {ConnectionStringRedactor.RedactMessage(exception.Message)}");
            }

            var authentication = builder.IntegratedSecurity ? SqlAuthentication.Integrated
                : builder.Authentication switch
                {
                    SqlAuthenticationMethod.NotSpecified or SqlAuthenticationMethod.SqlPassword => SqlAuthentication.SqlPassword,
                    var method => Enum.TryParse<SqlAuthentication>(method.ToString(), out var parsed) ? parsed : SqlAuthentication.SqlPassword,
                };
            return (new SqlConnectionSettings(
                builder.DataSource,
                string.IsNullOrEmpty(builder.InitialCatalog) ? SqlConnectionSettings.DefaultDatabase : builder.InitialCatalog,
                authentication,
                string.IsNullOrEmpty(builder.UserID) ? null : builder.UserID,
                string.IsNullOrEmpty(builder.Password) ? instance.Password : builder.Password,
                // The builder of older drivers reports no encryption when the string does not mention the keyword;
                // BackupXe encrypts unless the string turns it off, as for Server-based instances.
                !builder.ShouldSerialize("Encrypt") || builder.Encrypt,
                builder.TrustServerCertificate,
                StrictEncryption: builder.Encrypt == SqlConnectionEncryptOption.Strict,
                HostNameInCertificate: string.IsNullOrEmpty(builder.HostNameInCertificate) ? null : builder.HostNameInCertificate), null);
        }

        SqlAuthentication mode;
        if (string.IsNullOrWhiteSpace(instance.Authentication))
        {
            mode = string.IsNullOrEmpty(instance.UserName) ? SqlAuthentication.Integrated : SqlAuthentication.SqlPassword;
        }
        else if (!SqlAuthenticationNames.ByName.TryGetValue(instance.Authentication, out mode)
            && !Enum.TryParse(instance.Authentication, ignoreCase: true, out mode))
        {
            return (null, $"cannot use Authentication '{instance.Authentication}': use one of {string.Join(", ", SqlAuthenticationNames.ByName.Keys)}.");
        }

        return (new SqlConnectionSettings(
            instance.Server!,
            Authentication: mode,
            UserName: instance.UserName,
            Password: instance.Password,
            Encrypt: instance.Encrypt,
            TrustServerCertificate: instance.TrustServerCertificate,
            StrictEncryption: instance.StrictEncryption,
            HostNameInCertificate: instance.HostNameInCertificate), null);
    }
}
