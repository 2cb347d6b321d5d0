using System.CommandLine;
using BackupXe.SqlServer.Msdb;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>backupxe history import</c>: Ola Hallengren job output files (and XE / ERRORLOG captures) into the
/// history file, merged with what is already there (docs/history.md).
/// </summary>
internal static class HistoryImportCommand
{
    public static Command Create(CliConsole console)
    {
        var path = new Option<string?>("--path") { Description = "The SQLite history file to add to (created when missing).", DefaultValueFactory = _ => "backupxe-history.db" };
        var instance = new Option<string?>("--instance", "-i")
        {
            Description = "The instance the files come from; default: the 'Server:' line of DatabaseBackup's output header.",
        };
        var files = new Argument<string[]>("files") { Description = "Job output files, XE XML or ERRORLOG files.", Arity = ArgumentArity.ZeroOrMore };
        CommonOptions.RejectUnknownOptions(files);
        var since = new Option<string>("--since") { Description = "With --server: backups of the last 30d, 12h... or since a date (yyyy-mm-dd), server local time.", DefaultValueFactory = _ => "30d" };
        var databases = OperationFilter.DatabaseOption();
        var commandLog = new Option<string?>("--command-log") { Description = "With --server: the database holding Ola Hallengren's dbo.CommandLog; default: every database that has one." };
        var connection = new ConnectionOptions();
        // Files alone need no server.
        connection.Server.Required = false;
        var command = new Command("import", "Add backups from a server's msdb and CommandLog, or from job output files, to the history, merging those already known.") { path, instance, since, databases, commandLog, files, CommonOptions.NoColor() };
        connection.AddTo(command);
        OutputTarget.MustNotOverwriteWhatIsRead(command, path, "the history", result => result.GetValue(files) ?? []);
        command.SetAction((parse, cancellationToken) =>
        {
            var server = parse.GetValue(connection.Server);
            var wanted = OperationFilter.Names(parse.GetValue(databases));
            var named = parse.GetValue(files) ?? [];
            var from = server is null ? null : TimePoint.Parse(parse.GetValue(since)!, DateTime.Now);
            IReadOnlyList<string> problems = server is null && named.Length == 0 ? ["history import needs files, --server, or both"]
                : server is not null && from is null ? [$"--since '{parse.GetValue(since)}': expected a number of days or hours (30d, 12h) or a date (2024-05-01)"]
                : [];
            var settings = new HistoryImportSettings
            {
                HistoryPath = parse.GetValue(path)!,
                Files = [.. named.Distinct(StringComparer.Ordinal)],
                Databases = wanted,
                Instance = parse.GetValue(instance),
                Server = from is { } start ? new ServerHistoryRequest(start, [.. wanted], parse.GetValue(commandLog)) : null,
                Connection = connection.Of(parse),
                Problems = problems,
            };
            return new HistoryImport(console).RunAsync(settings, cancellationToken);
        });
        return command;
    }
}
