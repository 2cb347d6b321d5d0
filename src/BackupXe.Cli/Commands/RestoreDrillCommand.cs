using System.CommandLine;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>backupxe restore-drill -S TEST -d SalesDB [--from-server PROD]</c>: plans (and with <c>--execute</c> runs) the
/// restore of a database's latest chain into a new scratch database on a server of the DBA's choice, each phase
/// measured, then drops it (docs/commands/restore-drill.md). Read only without <c>--execute</c>.
/// </summary>
internal static class RestoreDrillCommand
{
    /// <summary>The drill is refused by one of its safety rules (the plan names which): no statement that changes anything ran.</summary>
    public const int Refused = 2;

    /// <summary>The drill ran and a step failed; the report names the step, the server's error and what is left.</summary>
    public const int Failed = 3;

    /// <summary>Stopped by Ctrl-C (as every verb): what is left is named.</summary>
    public const int Cancelled = 130;

    public static Command Create(CliConsole console)
    {
        var options = new RestoreDrillOptions();
        var command = new Command("restore-drill", "Plan (and with --execute run) a restore of a database's latest chain into a scratch database, each phase measured, then drop it.");
        options.AddTo(command);
        command.SetAction((parse, cancellationToken) => new RestoreDrill(console).RunAsync(options.Settings(parse, console.Time.GetLocalNow().DateTime), cancellationToken));
        return command;
    }
}
