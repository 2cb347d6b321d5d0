using System.CommandLine;
using BackupXe.Core.Events;
using BackupXe.History;

namespace BackupXe.Cli.Commands;

/// <summary><c>backupxe history</c>: past operations from the daemon's history file, with each series' trend.</summary>
internal static class HistoryCommand
{
    private static readonly string PathDescription =
        $"The daemon's SQLite history file (History:Path in appsettings.json); without it, found as --history alone finds it: {DaemonHistory.Variable}, else {SqliteHistoryStore.DefaultPath} here, else the service's data folder.";

    private const string FormatDescription =
        "console (default), json, markdown or csv (per-series statistics), or html (throughput per database over time with the regression rule's verdicts; docs/html-report.md).";

    public static Command Create(CliConsole console)
    {
        var path = new Option<string?>("--path") { Description = PathDescription };
        var filter = new OperationFilter.Options();
        var instance = new Option<string?>("--instance", "-i") { Description = "Only this instance (its configured name)." };
        var kind = new Option<string?>("--kind") { Description = "backup or restore." };
        Choices.OneOf(kind, "backup", "restore");
        var limit = CommonOptions.Limit("Most recent operations to list.");
        var format = new Option<string>("--format", "-f") { Description = FormatDescription, DefaultValueFactory = _ => "console" };
        Choices.OneOf(format, "console", "json", "markdown", "csv", "html");
        var output = CommonOptions.Output();
        var noColor = CommonOptions.NoColor();

        var command = new Command("history", "List past backups and restores and how their throughput trends.") { path, instance, kind, limit, format, output, noColor };
        filter.AddTo(command);
        OutputTarget.MustNotOverwriteWhatIsRead(command, output, result => OutputTarget.SqliteFiles(result.GetValue(path) ?? DaemonHistory.Path()));
        CommonOptions.RefuseHtmlToTerminal(console, command, format, output);
        command.Subcommands.Add(HistoryImportCommand.Create(console));
        command.Subcommands.Add(HistoryChainCommand.Create(console));
        command.Subcommands.Add(HistoryRestoreEstimateCommand.Create(console));
        command.Subcommands.Add(HistoryTunesCommand.Create(console));
        command.SetAction((parse, cancellationToken) => new HistoryList(console).RunAsync(
            new HistorySettings
            {
                Path = parse.GetValue(path),
                Operations = filter.Read(parse, DateTime.Now),
                Instance = parse.GetValue(instance),
                Kind = parse.GetValue(kind) switch { "backup" => OperationKind.Backup, "restore" => OperationKind.Restore, _ => null },
                Limit = parse.GetValue(limit),
                Format = parse.GetValue(format)!,
                Output = parse.GetValue(output),
                NoColor = parse.GetValue(noColor),
            },
            cancellationToken));
        return command;
    }
}
