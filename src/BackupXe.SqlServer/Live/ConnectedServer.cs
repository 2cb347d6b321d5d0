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
            status.Server = ServerVersion.FromBuild(version, Evidence);
        }
    }
}
