using System.Globalization;
using BackupXe.Core.Events;
using BackupXe.SqlServer.Client;

namespace BackupXe.SqlServer.Live;

/// <summary>
/// A live source's server, for the remedies of what it captures: the version its login response carried
/// ([MS-TDS] LOGINACK, SqlConnection.ServerVersion), so no query and no permission is needed.
/// </summary>
internal static class ConnectedServer
{
    public const string Evidence = "the connected server's login response";

    /// <summary>Gives <paramref name="status"/> the server the last connection of <paramref name="connections"/> reached.</summary>
    public static void Note(SqlConnectionFactory connections, SourceStatus status)
    {
        if (connections.ConnectedServerVersion is { } version)
        {
            status.Server = ServerVersion.FromBuild(Plain(version), Evidence);
        }
    }

    // "15.00.2000" as SERVERPROPERTY('ProductVersion') writes it, "15.0.2000", so that the history compares like with like.
    private static string Plain(string version)
    {
        var parts = version.Split('.');
        return parts.All(p => int.TryParse(p, NumberStyles.None, CultureInfo.InvariantCulture, out _))
            ? string.Join('.', parts.Select(p => int.Parse(p, NumberStyles.None, CultureInfo.InvariantCulture).ToString(CultureInfo.InvariantCulture)))
            : version;
    }
}
