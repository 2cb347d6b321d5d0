using System.CommandLine;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>backupxe watch</c>: live progress and the verdict of each backup/restore as it ends. <c>--replay</c> drives the
/// same pipeline from a captured file with its original timing.
/// </summary>
internal static class WatchCommand
{
    /// <param name="console">Where the view goes; standard output is opened as bytes for JSON Lines.</param>
    /// <param name="time">The clock a replay is paced by and the quiet ticks are measured on: a test's fake one.</param>
    public static Command Create(CliConsole console, TimeProvider? time = null)
    {
        var options = new WatchOptions();
        var command = new Command("watch", "Watch backups and restores live, with a diagnosis of each one as it completes.");
        options.AddTo(command);
        command.SetAction((parse, cancellationToken) => new WatchRun(console, time).RunAsync(options.Settings(parse), cancellationToken));
        return command;
    }
}
