using System.CommandLine;
using BackupXe.History;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>backupxe history tunes</c>: the tune runs a history holds (<c>tune --execute --history</c>), newest first, per
/// database: when, the best options found, the measured rates and the gain, and the restore trials under it when the tune
/// ran them. Read-only, as <c>history</c> reads.
/// </summary>
internal static class HistoryTunesCommand
{
    public static Command Create(CliConsole console)
    {
        var path = new Option<string>("--path") { Description = "The SQLite history file the tunes were stored in.", DefaultValueFactory = _ => SqliteHistoryStore.DefaultPath };
        var database = OperationFilter.DatabaseOption();
        var instance = new Option<string?>("--instance", "-i") { Description = "Only this instance (the name the tune was stored under)." };
        var limit = CommonOptions.Limit("Most recent tune runs to list.");
        var format = new Option<string>("--format", "-f") { Description = "console (default), json or markdown.", DefaultValueFactory = _ => "console" };
        Choices.OneOf(format, "console", "json", "markdown");
        var command = new Command("tunes", "List past tune runs per database: the best options found, the measured rates, when.")
        {
            path, database, instance, limit, format, CommonOptions.NoColor(),
        };
        command.SetAction((parse, cancellationToken) => new TuneListing(console).RunAsync(
            new HistoryTunesSettings
            {
                Path = parse.GetValue(path)!,
                Databases = OperationFilter.Names(parse.GetValue(database)),
                Instance = parse.GetValue(instance),
                Limit = parse.GetValue(limit),
                Format = parse.GetValue(format)!,
            },
            cancellationToken));
        return command;
    }
}
