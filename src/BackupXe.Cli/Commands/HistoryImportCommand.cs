using System.CommandLine;
using BackupXe.Cli.Analysis;
using BackupXe.Core.History;
using BackupXe.Sources.OlaOutput;
using BackupXe.Worker.History;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>backupxe history import</c>: Ola Hallengren job output files (and XE / ERRORLOG captures) into the
/// history file, merged with what is already there (docs/history.md).
/// </summary>
public static class HistoryImportCommand
{
    public static Command Create()
    {
        var path = new Option<string>("--path") { Description = "The SQLite history file to add to (created when missing).", DefaultValueFactory = _ => "backupxe-history.db" };
        var instance = new Option<string?>("--instance", "-i")
        {
            Description = "The instance the files come from; default: the 'Server:' line of DatabaseBackup's output header.",
        };
        var files = new Argument<string[]>("files") { Description = "Job output files, XE XML or ERRORLOG files.", Arity = ArgumentArity.OneOrMore };
        var command = new Command("import", "Add backups and restores from job output files to the history, merging those already known.") { path, instance, files };
        command.SetAction(async (parse, cancellationToken) =>
        {
            var history = new SqliteImportedHistory(parse.GetValue(path)!, TimeProvider.System);
            try
            {
                await history.InitializeAsync(cancellationToken);
            }
            catch (HistoryStoreException exception)
            {
                await Console.Error.WriteLineAsync($"backupxe: {exception.Message}");
                return ExitCodes.NothingUsable;
            }

            var named = parse.GetValue(instance);
            var anyRead = false;
            var damaged = false;
            foreach (var file in parse.GetValue(files)!.Distinct(StringComparer.Ordinal))
            {
                var result = await HistoryFile.ReadAsync(file, cancellationToken);
                foreach (var problem in result.Problems)
                {
                    await Console.Error.WriteLineAsync($"backupxe: {file}: {problem.Location}: {problem.Message}");
                }

                damaged |= result.Problems.Count > 0;
                if (result.Format is null)
                {
                    continue;
                }

                if ((named ?? result.Server) is not { } server)
                {
                    await Console.Error.WriteLineAsync($"backupxe: {file}: the output does not name its server: give the instance with --instance");
                    damaged = true;
                    continue;
                }

                var imported = await history.ImportAsync(server, result.Records, cancellationToken);
                anyRead = true;
                Console.Out.WriteLine(
                    $"{file} ({result.Format}, {server}): {result.Records.Count} operations: {imported.Added} added, {imported.Merged} merged with known ones, {imported.Unchanged} already there"
                    + (result.SkippedCommands > 0 ? $"; {result.SkippedCommands} other commands skipped (not BACKUP/RESTORE, VERIFYONLY, or not executed)" : string.Empty));
            }

            return !anyRead ? ExitCodes.NothingUsable : damaged ? ExitCodes.Partial : ExitCodes.Success;
        });
        return command;
    }
}
