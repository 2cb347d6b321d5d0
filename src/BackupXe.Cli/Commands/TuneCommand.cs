using System.CommandLine;
using BackupXe.SqlServer.Client;
using BackupXe.Core.Tuning;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>backupxe tune --server S --database D --to DIR</c>: the trial-and-measure search for the backup options of one
/// database (docs/tuning.md). A dry run by default: it reads the server's facts and prints the plan; trials run only
/// with --execute. Exit codes: 0 done, 1 command line or server unreachable, 2 refused or stopped for safety.
/// </summary>
internal static class TuneCommand
{
    /// <summary>The tune refused to run, or stopped before its next trial, for one of its safety rules.</summary>
    public const int Refused = 2;

    /// <param name="servers">How a connection becomes the server the tune talks to: the live one, or a test's.</param>
    public static Command Create(CliConsole console, Func<SqlConnectionFactory, ITuningServer>? servers = null)
    {
        var options = new TuneOptions();
        var command = new Command("tune", "Find the fastest BACKUP options for a database by guided COPY_ONLY trials (a dry run unless --execute).");
        options.AddTo(command);
        command.SetAction((parse, cancellationToken) => new TuneRun(console, servers).RunAsync(options.Settings(parse), cancellationToken));
        return command;
    }
}
