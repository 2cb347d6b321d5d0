using BackupXe.SqlServer;
using BackupXe.SqlServer.Live;

namespace BackupXe.Cli.Commands;

/// <summary>
/// What <c>watch --server</c> tells the user about its connection: drops, reconnect waits, gaps and a stop, one line
/// each on standard error, so stdout keeps only progress and diagnoses. Routine connects are not shown.
/// </summary>
internal sealed class WatchConnectionLines(TextWriter error, string server) : ILiveSourceObserver
{
    public void OnChange(LiveSourceChange change)
    {
        if (change is LiveSourceChange.Retrying or LiveSourceChange.Disconnected or LiveSourceChange.ReconnectScheduled or LiveSourceChange.EventsLost or LiveSourceChange.StreamProblem or LiveSourceChange.Stopped)
        {
            error.WriteLine($"backupxe: {server}: {change.Describe()}");
        }
    }
}
