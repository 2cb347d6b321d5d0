using BackupXe.Cli.Analysis;
using BackupXe.Cli.Rendering;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.Core.Tuning;
using BackupXe.History;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Sessions;
using BackupXe.SqlServer.Tuning;

namespace BackupXe.Cli.Commands;

/// <summary>
/// Runs one <c>backupxe tune</c>: the plan printed, and with <c>--execute</c> the trials, their result on
/// <paramref name="console"/> and into the histories asked for (each made ready before any trial).
/// </summary>
/// <param name="servers">How a connection becomes the server the tune talks to: null for the live one, or a test's.</param>
internal sealed class TuneRun(CliConsole console, Func<SqlConnectionFactory, ITuningServer>? servers = null)
{
    public async Task<int> RunAsync(TuneSettings settings, CancellationToken cancellationToken)
    {
        foreach (var problem in settings.Problems)
        {
            await console.Error.WriteLineAsync($"backupxe: {problem}");
        }

        if (settings.Problems.Count > 0)
        {
            return ExitCodes.NothingUsable;
        }

        // Checked (created or migrated) before any trial: a history that cannot take the result stops the tune first.
        if (settings is { Execute: true, HistoryFile: { } historyFile })
        {
            try
            {
                await new SqliteImportedHistory(historyFile, TimeProvider.System).InitializeAsync(cancellationToken);
            }
            catch (HistoryStoreException exception)
            {
                await console.Error.WriteLineAsync($"backupxe: {exception.Message}");
                return ExitCodes.NothingUsable;
            }
        }

        var session = new CaptureSessionSettings(SessionName.Default);
        return await ServerCall.RunAsync(console, settings.Connection, session, factory => TuneAsync(settings, factory, session, cancellationToken), json: settings.Format == "json");
    }

    private async Task<int> TuneAsync(TuneSettings settings, SqlConnectionFactory factory, CaptureSessionSettings session, CancellationToken cancellationToken)
    {
        var request = settings.Request;
        var outputFormat = settings.Format;

        // Trials are measured by the capture session's event file, read as watch reads it.
        // One clock for the trials' windows, the capture's polls and its settling: the console's (a test's fake one).
        await using var capture = servers is null ? new TrialOperationCapture(
            LiveSources.Open(new LiveSourceSettings(factory, session) { Time = console.Time }),
            new DiagnosisSettings { MemoryBudgetBytes = request.MemoryBudgetBytes },
            console.Time) : null;
        var server = servers?.Invoke(factory) ?? new LiveTrialHost(factory, session, capture!, console.Time);
        var plan = await Tuner.PlanAsync(server, request, cancellationToken);
        if (!settings.Execute || outputFormat != "json")
        {
            await console.Out.WriteAsync(TuneReportWriter.Plan(plan, outputFormat, settings.Execute));
        }

        if (!settings.Execute)
        {
            return ExitCodes.Success;
        }

        if (server is not ITrialHost host)
        {
            await console.Error.WriteLineAsync("backupxe: --execute needs a server that can run trials; this one only describes the database. Nothing ran.");
            return TuneCommand.Refused;
        }

        // The central repository is made ready (least privilege read first, the table created only then) before any trial.
        var repository = settings.Central is { } central
            ? new SqlConnectionFactory(factory.Settings with { Server = central.Server, Database = central.Database, HostNameInCertificate = null })
            : null;
        if (repository is not null && await PrepareCentralAsync(repository, request.Restore is not null, cancellationToken) is { } exit)
        {
            return exit;
        }

        var tuner = new Tuner(host, request);
        try
        {
            var result = await tuner.RunAsync(cancellationToken);
            await console.Out.WriteAsync(TuneReportWriter.Result(result, outputFormat));
            var record = TuneRecords.Of(result, settings.Instance ?? factory.Settings.Server, DateTime.UtcNow);
            var stored = settings.HistoryFile is null || result.Trials.Count == 0 || await StoreAsync(settings.HistoryFile, record);
            stored &= repository is null || result.Trials.Count == 0 || await StoreCentralAsync(repository, record);
            if (!stored)
            {
                return ExitCodes.NothingUsable;
            }

            return result.Refused || result.Restore is { Refused: true } ? TuneCommand.Refused : ExitCodes.Success;
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            // Ctrl-C: the running backup was stopped (and confirmed gone) before this; what it left is listed.
            const string cancelled = "tune cancelled: the running trial backup was stopped; no further trial ran.";
            await console.Error.WriteLineAsync("backupxe: " + cancelled);
            await console.Out.WriteAsync(TuneReportWriter.Stopped(cancelled, tuner.KeptFiles, tuner.Facts?.Linux ?? false, outputFormat));
            return TuneCommand.Refused;
        }
        catch (Exception failure) when (failure is not (OperationCanceledException or OutOfMemoryException))
        {
            // A failure midway (the connection lost, a query refused) still lists what the trials left on the server.
            var why = $"tune failed: {ConnectionStringRedactor.RedactMessage(SqlFailureText.Describe(failure))}";
            await console.Error.WriteLineAsync("backupxe: " + TerminalText.Line(why));
            await console.Out.WriteAsync(TuneReportWriter.Stopped(why, tuner.KeptFiles, tuner.Facts?.Linux ?? false, outputFormat));
            return ExitCodes.NothingUsable;
        }
    }

    /// <summary>The result into the history, said on stderr (stdout holds the report); false, with the reason, when it could not be stored.</summary>
    private async Task<bool> StoreAsync(string file, TuneRecord record)
    {
        try
        {
            var added = await new SqliteHistoryStore(file, TimeProvider.System).SaveTuneAsync(record, CancellationToken.None);
            await console.Error.WriteLineAsync(added
                ? $"backupxe: the tune of [{TerminalText.Line(record.Database)}] is stored in the history '{file}' as instance {TerminalText.Line(record.Instance)}."
                : $"backupxe: the history '{file}' already holds this tune.");
            return true;
        }
        catch (HistoryStoreException exception)
        {
            await console.Error.WriteLineAsync($"backupxe: the tune ran but its result was not stored: {exception.Message}");
            return false;
        }
    }

    /// <summary>Null when the central repository can take the tune (its table created if it was missing); else the exit code, the reason on stderr.</summary>
    private async Task<int?> PrepareCentralAsync(SqlConnectionFactory repository, bool restoreTrials, CancellationToken cancellationToken)
    {
        try
        {
            if (await new SqlServerTuneRepository(repository).PrepareAsync(restoreTrials, cancellationToken) is { } missing)
            {
                await console.Error.WriteLineAsync($"backupxe: {TerminalText.Line(missing)} Nothing ran.");
                return TuneCommand.Refused;
            }

            return null;
        }
        catch (HistoryStoreException exception)
        {
            await console.Error.WriteLineAsync($"backupxe: {TerminalText.Line(exception.Message)} Nothing ran.");
            return ExitCodes.NothingUsable;
        }
    }

    /// <summary>The result into the central repository, said on stderr; false, with the reason, when it could not be stored.</summary>
    private async Task<bool> StoreCentralAsync(SqlConnectionFactory repository, TuneRecord record)
    {
        var where = $"{TerminalText.Line(repository.Settings.Server)}, database [{TerminalText.Line(repository.Settings.Database)}]";
        try
        {
            var added = await new SqlServerHistoryStore(repository).SaveTuneAsync(record, CancellationToken.None);
            await console.Error.WriteLineAsync(added
                ? $"backupxe: the tune of [{TerminalText.Line(record.Database)}] is stored in the central history ({where}) as instance {TerminalText.Line(record.Instance)}."
                : $"backupxe: the central history ({where}) already holds this tune.");
            return true;
        }
        catch (Exception exception) when (exception is HistoryStoreException or Microsoft.Data.SqlClient.SqlException)
        {
            await console.Error.WriteLineAsync($"backupxe: the tune ran but its result was not stored in the central history: {TerminalText.Line(ConnectionStringRedactor.RedactMessage(exception.Message))}");
            return false;
        }
    }
}
