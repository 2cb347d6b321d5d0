using BackupXe.Cli.Analysis;
using BackupXe.History;
using BackupXe.Sources;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Msdb;

namespace BackupXe.Cli.Commands;

/// <summary>
/// Runs one <c>backupxe history import</c>: a server's msdb and CommandLog, then each file, into the history, a line
/// on <paramref name="console"/> for each with what was added and merged, every damaged line located on stderr.
/// </summary>
internal sealed class HistoryImport(CliConsole console)
{
    public async Task<int> RunAsync(HistoryImportSettings settings, CancellationToken cancellationToken)
    {
        foreach (var problem in settings.Problems)
        {
            await console.Error.WriteLineAsync($"backupxe: {problem}");
        }

        if (settings.Problems.Count > 0)
        {
            return ExitCodes.NothingUsable;
        }

        SqlConnectionSettings? connection = null;
        if (settings.Server is not null)
        {
            connection = settings.Connection.Read(console.Error);
            if (connection is null)
            {
                return ExitCodes.NothingUsable;
            }
        }

        var history = new SqliteImportedHistory(settings.HistoryPath, TimeProvider.System);
        try
        {
            await history.InitializeAsync(cancellationToken);
        }
        catch (HistoryStoreException exception)
        {
            await console.Error.WriteLineAsync($"backupxe: {exception.Message}");
            return ExitCodes.NothingUsable;
        }

        var anyRead = false;
        if (settings.Server is { } request && connection is not null)
        {
            var (exit, unusable) = await ImportServerAsync(settings, request, connection, history, cancellationToken);
            if (unusable is not null)
            {
                return await Unusable(settings.HistoryPath, unusable, anyRead);
            }

            if (exit != ExitCodes.Success)
            {
                return exit;
            }

            anyRead = true;
        }

        var damaged = false;
        foreach (var file in settings.Files)
        {
            var (read, fileDamaged, unusable) = await ImportFileAsync(settings, file, history, cancellationToken);
            if (unusable is not null)
            {
                return await Unusable(settings.HistoryPath, unusable, anyRead);
            }

            anyRead |= read;
            damaged |= fileDamaged;
        }

        return !anyRead ? ExitCodes.NothingUsable : damaged ? ExitCodes.Partial : ExitCodes.Success;
    }

    /// <summary>msdb's and CommandLog's backups into the history; the exit code, or the history found unusable on the way.</summary>
    private async Task<(int Exit, HistoryStoreException? Unusable)> ImportServerAsync(
        HistoryImportSettings settings, ServerHistoryRequest request, SqlConnectionSettings connection, SqliteImportedHistory history, CancellationToken cancellationToken)
    {
        HistoryStoreException? unusable = null;
        var exit = await ServerCall.RunAsync(console, connection, async factory =>
        {
            HistoryImportResult? imported = null;
            string? name = null;
            ServerHistory read;
            try
            {
                // The rows go into the import as they arrive: memory holds the row being stored, not msdb's history.
                read = await new ServerHistoryReader(factory).ReadAsync(request, async (serverName, operations) =>
                {
                    name = settings.Instance ?? serverName;
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
                $"{connection.Server} ({name}): {read.FromMsdb} backups from msdb{logs}: {imported!.Added} added, {imported.Merged} merged with known ones, {imported.Unchanged} already there");
            foreach (var note in read.Notes)
            {
                console.Out.WriteLine($"  note: {note}");
            }

            // The replica's roles, as the daemon's import reads them (docs/fleet.md, "Backup preference").
            try
            {
                var roles = await new SqliteReplicaRoles(settings.HistoryPath, TimeProvider.System).ImportAsync(name!, factory, cancellationToken);
                foreach (var line in ReplicaRolesLines.Of(roles))
                {
                    console.Out.WriteLine(line);
                }

                // msdb's full database restores, which no capture may have seen (docs/fleet.md, "Never restored").
                var restores = await new SqliteMsdbRestores(settings.HistoryPath, TimeProvider.System).ImportAsync(name!, factory, request.Since, request.Databases, cancellationToken);
                console.Out.WriteLine(restores.Note is { } unread ? $"  note: {unread}" : $"  {restores.Read} full database restores from msdb's restorehistory");
            }
            catch (HistoryStoreException exception)
            {
                unusable = exception;
                return ExitCodes.NothingUsable;
            }

            return ExitCodes.Success;
        }, verbose: settings.Connection.Verbose);
        return (exit, unusable);
    }

    /// <summary>One file into the history: whether it was read, whether it had damaged lines, or the history found unusable.</summary>
    private async Task<(bool Read, bool Damaged, HistoryStoreException? Unusable)> ImportFileAsync(
        HistoryImportSettings settings, string file, SqliteImportedHistory history, CancellationToken cancellationToken)
    {
        await using var reading = await ImportFile.OpenAsync(file, cancellationToken);
        var counted = new CountedRecords(reading.ReadRecordsAsync(cancellationToken), settings.Databases);
        string? instanceName = null;
        HistoryImportResult? imported = null;
        if (reading.Format is not null)
        {
            // The header naming the server comes before the first record.
            await counted.StartAsync(cancellationToken);
            instanceName = settings.Instance ?? reading.Server;
            if (instanceName is not null)
            {
                try
                {
                    imported = await history.ImportAsync(instanceName, counted.Kept(), cancellationToken);
                }
                catch (HistoryStoreException exception)
                {
                    // Every later file would fail on the same pages.
                    await Problems(file, reading);
                    return (false, true, exception);
                }
            }
            else
            {
                // Read to the end all the same, so every damaged line is still located.
                await counted.DrainAsync(cancellationToken);
            }
        }

        var damaged = await Problems(file, reading);
        if (reading.Format is null)
        {
            return (false, damaged, null);
        }

        if (instanceName is null || imported is null)
        {
            await console.Error.WriteLineAsync($"backupxe: {file}: the output does not name its server: give the instance with --instance");
            return (false, true, null);
        }

        var left = counted.Read - counted.KeptCount;
        console.Out.WriteLine(
            $"{file} ({reading.Format}, {instanceName}): {counted.KeptCount} operations{(left > 0 ? $" ({left} of other databases left out)" : string.Empty)}: {imported.Added} added, {imported.Merged} merged with known ones, {imported.Unchanged} already there"
            + (reading.SkippedCommands > 0 ? $"; {reading.SkippedCommands} other commands skipped (not BACKUP/RESTORE, VERIFYONLY, or not executed)" : string.Empty));
        return (true, damaged, null);
    }

    private async Task<bool> Problems(string file, ImportFileReading reading)
    {
        foreach (var problem in reading.Problems)
        {
            await console.Error.WriteLineAsync(Core.Rendering.TerminalText.Line($"backupxe: {file}: {problem.Location}: {problem.Message}"));
        }

        return reading.Problems.Count > 0;
    }

    // A history found damaged (or read-only) half-way: its import was rolled back, so the file is as it was.
    private async Task<int> Unusable(string historyPath, HistoryStoreException exception, bool anyImported)
    {
        var reason = exception.InnerException?.Message ?? exception.Message;
        await console.Error.WriteLineAsync(
            $"backupxe: {historyPath}: file: the history cannot be written ({reason}); nothing more was imported, the file was left as it was");
        return anyImported ? ExitCodes.Partial : ExitCodes.NothingUsable;
    }
}
