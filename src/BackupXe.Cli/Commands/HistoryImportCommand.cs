using System.CommandLine;
using BackupXe.Cli.Analysis;
using BackupXe.History;
using BackupXe.Sources;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
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
        command.SetAction(async (parse, cancellationToken) =>
        {
            var server = parse.GetValue(connection.Server);
            var wanted = OperationFilter.Names(parse.GetValue(databases));
            if (server is null && parse.GetValue(files) is not { Length: > 0 })
            {
                await console.Error.WriteLineAsync("backupxe: history import needs files, --server, or both");
                return ExitCodes.NothingUsable;
            }

            ServerHistoryRequest? request = null;
            SqlConnectionSettings? settings = null;
            if (server is not null)
            {
                if (TimePoint.Parse(parse.GetValue(since)!, DateTime.Now) is not { } from)
                {
                    await console.Error.WriteLineAsync($"backupxe: --since '{parse.GetValue(since)}': expected a number of days or hours (30d, 12h) or a date (2024-05-01)");
                    return ExitCodes.NothingUsable;
                }

                request = new ServerHistoryRequest(
                    from,
                    [.. wanted],
                    parse.GetValue(commandLog));
                settings = connection.Read(parse, PasswordSource.FromConsole(), console.Error);
                if (settings is null)
                {
                    return ExitCodes.NothingUsable;
                }
            }

            var historyPath = parse.GetValue(path)!;
            var history = new SqliteImportedHistory(historyPath, TimeProvider.System);
            try
            {
                await history.InitializeAsync(cancellationToken);
            }
            catch (HistoryStoreException exception)
            {
                await console.Error.WriteLineAsync($"backupxe: {exception.Message}");
                return ExitCodes.NothingUsable;
            }

            var named = parse.GetValue(instance);
            var anyRead = false;
            var damaged = false;
            if (request is not null && settings is not null)
            {
                HistoryStoreException? unusable = null;
                var exit = await ServerCall.RunAsync(console, settings, async factory =>
                {
                    HistoryImportResult? imported = null;
                    string? name = null;
                    ServerHistory read;
                    try
                    {
                        // The rows go into the import as they arrive: memory holds the row being stored, not msdb's history.
                        read = await new ServerHistoryReader(factory).ReadAsync(request, async (serverName, operations) =>
                        {
                            name = named ?? serverName;
                            imported = await history.ImportAsync(name, operations, cancellationToken);
                        }, cancellationToken);
                    }
                    catch (HistoryStoreException exception)
                    {
                        unusable = exception;
                        return ExitCodes.NothingUsable;
                    }

                    var logs = read.CommandLogs.Count > 0
                        ? ", " + string.Join(", ", read.CommandLogs.Select(l => $"{l.Operations} from [{l.Database}].dbo.CommandLog"))
                        : string.Empty;
                    console.Out.WriteLine(
                        $"{settings.Server} ({name}): {read.FromMsdb} backups from msdb{logs}: {imported!.Added} added, {imported.Merged} merged with known ones, {imported.Unchanged} already there");
                    foreach (var note in read.Notes)
                    {
                        console.Out.WriteLine($"  note: {note}");
                    }

                    // The replica's roles, as the daemon's import reads them (docs/fleet.md, "Backup preference").
                    try
                    {
                        var roles = await new SqliteReplicaRoles(historyPath, TimeProvider.System).ImportAsync(name!, factory, cancellationToken);
                        foreach (var line in ReplicaRolesLines.Of(roles))
                        {
                            console.Out.WriteLine(line);
                        }

                        // msdb's full database restores, which no capture may have seen (docs/fleet.md, "Never restored").
                        var restores = await new SqliteMsdbRestores(historyPath, TimeProvider.System).ImportAsync(name!, factory, request.Since, request.Databases, cancellationToken);
                        console.Out.WriteLine(restores.Note is { } unread ? $"  note: {unread}" : $"  {restores.Read} full database restores from msdb's restorehistory");
                    }
                    catch (HistoryStoreException exception)
                    {
                        unusable = exception;
                        return ExitCodes.NothingUsable;
                    }

                    return ExitCodes.Success;
                }, verbose: parse.GetValue(connection.Verbose));
                if (unusable is not null)
                {
                    return await Unusable(console, historyPath, unusable, anyRead);
                }

                if (exit != ExitCodes.Success)
                {
                    return exit;
                }

                anyRead = true;
            }

            foreach (var file in (parse.GetValue(files) ?? []).Distinct(StringComparer.Ordinal))
            {
                await using var reading = await ImportFile.OpenAsync(file, cancellationToken);
                var counted = new CountedRecords(reading.ReadRecordsAsync(cancellationToken), wanted);
                string? instanceName = null;
                HistoryImportResult? imported = null;
                if (reading.Format is not null)
                {
                    // The header naming the server comes before the first record.
                    await counted.StartAsync(cancellationToken);
                    instanceName = named ?? reading.Server;
                    if (instanceName is not null)
                    {
                        try
                        {
                            imported = await history.ImportAsync(instanceName, counted.Kept(), cancellationToken);
                        }
                        catch (HistoryStoreException exception)
                        {
                            // Every later file would fail on the same pages.
                            await Problems(console, file, reading);
                            return await Unusable(console, historyPath, exception, anyRead);
                        }
                    }
                    else
                    {
                        // Read to the end all the same, so every damaged line is still located.
                        await counted.DrainAsync(cancellationToken);
                    }
                }

                damaged |= await Problems(console, file, reading);
                if (reading.Format is null)
                {
                    continue;
                }

                if (instanceName is null || imported is null)
                {
                    await console.Error.WriteLineAsync($"backupxe: {file}: the output does not name its server: give the instance with --instance");
                    damaged = true;
                    continue;
                }

                anyRead = true;
                var left = counted.Read - counted.KeptCount;
                console.Out.WriteLine(
                    $"{file} ({reading.Format}, {instanceName}): {counted.KeptCount} operations{(left > 0 ? $" ({left} of other databases left out)" : string.Empty)}: {imported.Added} added, {imported.Merged} merged with known ones, {imported.Unchanged} already there"
                    + (reading.SkippedCommands > 0 ? $"; {reading.SkippedCommands} other commands skipped (not BACKUP/RESTORE, VERIFYONLY, or not executed)" : string.Empty));
            }

            return !anyRead ? ExitCodes.NothingUsable : damaged ? ExitCodes.Partial : ExitCodes.Success;
        });
        return command;
    }

    private static async Task<bool> Problems(CliConsole console, string file, ImportFileReading reading)
    {
        foreach (var problem in reading.Problems)
        {
            await console.Error.WriteLineAsync(Core.Rendering.TerminalText.Line($"backupxe: {file}: {problem.Location}: {problem.Message}"));
        }

        return reading.Problems.Count > 0;
    }

    // A history found damaged (or read-only) half-way: its import was rolled back, so the file is as it was.
    private static async Task<int> Unusable(CliConsole console, string historyPath, HistoryStoreException exception, bool anyImported)
    {
        var reason = exception.InnerException?.Message ?? exception.Message;
        await console.Error.WriteLineAsync(
            $"backupxe: {historyPath}: file: the history cannot be written ({reason}); nothing more was imported, the file was left as it was");
        return anyImported ? ExitCodes.Partial : ExitCodes.NothingUsable;
    }
}
