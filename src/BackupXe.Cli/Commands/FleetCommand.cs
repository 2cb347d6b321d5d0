using System.CommandLine;
using BackupXe.History;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>backupxe fleet</c>: every database of the history against its RPO and RTO targets, worst first (docs/fleet.md,
/// docs/commands/fleet.md). Read-only: the history file is never created or altered; the central store is only SELECTed from.
/// </summary>
internal static class FleetCommand
{
    public static Command Create(CliConsole console)
    {
        var history = new Option<string?>("--history")
        {
            Description = $"The history file (the daemon's SQLite file); unset: the daemon's, {DaemonHistory.Variable}, else {SqliteHistoryStore.DefaultPath} here, else the service's data folder.",
        };
        var settings = new Option<string?>("--settings")
        {
            Description = "The daemon's appsettings.json whose BackupXe:Targets the databases are judged against; unset: an RPO target of a day, no RTO target.",
        };
        var format = new Option<string>("--format", "-f") { Description = "console (default), json or html (a self-contained page; redirect it to a file).", DefaultValueFactory = _ => "console" };
        Choices.OneOf(format, "console", "json", "html");
        var command = new Command("fleet", "Every database in the history against its RPO and RTO targets, worst first: last backups, chain, restores.")
        {
            history, settings, format, CommonOptions.NoColor(),
        };
        // The central store (History:Provider sqlserver) instead of the file: its server, and its database as --connect-database.
        var store = new ConnectionOptions();
        store.Server.Required = false;
        store.Server.Description = "Read the central history store on this server (the daemons' History:Provider sqlserver) instead of a SQLite file; its database is --connect-database.";
        store.AddTo(command);
        command.SetAction((parse, cancellationToken) => new FleetRun(console).RunAsync(
            new FleetSettings
            {
                HistoryPath = parse.GetValue(history) ?? DaemonHistory.Path(),
                Store = parse.GetValue(store.Server) is null ? null : store.Of(parse),
                SettingsFile = parse.GetValue(settings),
                Format = parse.GetValue(format)!,
                Problems = parse.GetValue(history) is not null && parse.GetValue(store.Server) is not null
                    ? ["fleet reads one history: --history (a SQLite file) or --server (the central store), not both."]
                    : [],
            },
            cancellationToken));
        return command;
    }
}
