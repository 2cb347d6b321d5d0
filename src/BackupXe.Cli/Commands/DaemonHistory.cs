using BackupXe.History;

namespace BackupXe.Cli.Commands;

/// <summary>
/// Where <c>--history</c> alone finds the daemon's history file (docs/history.md, "This run against its history"): the
/// daemon's own setting in the environment (<see cref="Variable"/>, as the systemd unit sets it), the default file name
/// in the current folder, then the default file in the data folder docs/deploy.md sets up for the service. The first
/// that exists; else the current folder's, which the error then names with the others.
/// </summary>
internal static class DaemonHistory
{
    /// <summary>The daemon's History:Path as an environment variable (.NET configuration's double underscore).</summary>
    public const string Variable = "BackupXe__History__Path";

    public static string Path() => Candidates().FirstOrDefault(File.Exists) ?? SqliteHistoryStore.DefaultPath;

    /// <summary>The places looked, in order; the variable only when set to a full path (a relative one is the daemon's content root's).</summary>
    public static IReadOnlyList<string> Candidates()
    {
        var candidates = new List<string>();
        if (Environment.GetEnvironmentVariable(Variable) is { Length: > 0 } configured && System.IO.Path.IsPathFullyQualified(configured))
        {
            candidates.Add(configured);
        }

        candidates.Add(SqliteHistoryStore.DefaultPath);
        candidates.Add(OperatingSystem.IsWindows()
            ? System.IO.Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.CommonApplicationData), "BackupXe", SqliteHistoryStore.DefaultPath)
            : System.IO.Path.Combine("/var/lib/backupxe", SqliteHistoryStore.DefaultPath));
        return candidates;
    }
}
