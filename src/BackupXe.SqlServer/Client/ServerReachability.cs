using System.Globalization;
using System.Net;
using System.Net.Sockets;

namespace BackupXe.SqlServer.Client;

/// <summary>
/// A quick look at the server's address before the driver's login: a name that does not resolve or a port that
/// refuses is said at once, instead of after the whole connect timeout as the driver's generic "network-related
/// error (error 0)". Only for the forms whose port is known (host, host,port, tcp:host,port); a named instance is found
/// through the SQL Server Browser, and shared memory or named pipes have no port, so those go to the driver as they are.
/// </summary>
public static class ServerReachability
{
    private const int DefaultPort = 1433;

    /// <summary>Why the server cannot be reached, or null when it may be (or cannot be probed this way).</summary>
    public static async Task<string?> ProbeAsync(string server, TimeSpan timeout, CancellationToken cancellationToken)
    {
        if (Endpoint(server) is not var (host, port))
        {
            return null;
        }

        IPAddress[] addresses;
        try
        {
            addresses = IPAddress.TryParse(host, out var literal) ? [literal] : await Dns.GetHostAddressesAsync(host, cancellationToken);
        }
        catch (SocketException)
        {
            return $"the host name '{host}' does not resolve";
        }

        if (addresses.Length == 0)
        {
            return $"the host name '{host}' does not resolve";
        }

        using var limit = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        limit.CancelAfter(timeout);
        try
        {
            using var socket = new Socket(SocketType.Stream, ProtocolType.Tcp);
            await socket.ConnectAsync(addresses, port, limit.Token);
            return null;
        }
        catch (SocketException exception) when (exception.SocketErrorCode is SocketError.ConnectionRefused)
        {
            return string.Create(CultureInfo.InvariantCulture, $"nothing listens on {host} port {port} (connection refused): is SQL Server running, and on that port?");
        }
        catch (Exception exception) when (exception is SocketException or OperationCanceledException && !cancellationToken.IsCancellationRequested)
        {
            // Filtered, slow or unreachable: the driver's own attempt, with its timeout, says more.
            return null;
        }
    }

    /// <summary>The host and TCP port a Data Source names, when it names them without the Browser's help.</summary>
    public static (string Host, int Port)? Endpoint(string server)
    {
        var text = server.Trim();
        if (text.StartsWith("tcp:", StringComparison.OrdinalIgnoreCase))
        {
            text = text[4..];
        }
        else if (text.Contains(':', StringComparison.Ordinal) && !text.StartsWith('['))
        {
            // np:, lpc:, admin: and the like: not TCP.
            return null;
        }

        string host;
        var port = DefaultPort;
        var comma = text.LastIndexOf(',');
        if (comma >= 0)
        {
            if (!int.TryParse(text.AsSpan(comma + 1).Trim(), NumberStyles.None, CultureInfo.InvariantCulture, out port) || port is < 1 or > 65535)
            {
                return null;
            }

            host = text[..comma].Trim();
        }
        else
        {
            host = text;
        }

        // host\instance without a port: the Browser service tells the port.
        var slash = host.IndexOf('\\', StringComparison.Ordinal);
        if (slash >= 0)
        {
            if (comma < 0)
            {
                return null;
            }

            host = host[..slash];
        }

        host = host.Trim('[', ']');
        if (host is "." or "(local)" or "(localdb)" || host.Length == 0)
        {
            return host is "." or "(local)" ? ("localhost", port) : null;
        }

        return (host, port);
    }
}
