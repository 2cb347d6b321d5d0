using BackupXe.Cli.Analysis;
using BackupXe.Cli.Rendering;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Drill;
using BackupXe.Core.History;
using BackupXe.History;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Drill;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Sessions;
using BackupXe.SqlServer.Tuning;

namespace BackupXe.Cli.Commands;

/// <summary>
/// Runs one <c>backupxe restore-drill</c>: the plan, and with <c>--execute</c> the drill, written to
/// <paramref name="console"/>; the history read for the estimate and, after a drill, written.
/// </summary>
internal sealed class RestoreDrill(CliConsole console)
{
    public async Task<int> RunAsync(RestoreDrillSettings settings, CancellationToken cancellationToken)
    {
        if (settings.Problem is not null || settings.Request is not { } request)
        {
            await console.Error.WriteLineAsync($"backupxe: {settings.Problem}");
            return ExitCodes.NothingUsable;
        }

        var historyFile = settings.HistoryFile;
        IReadOnlyList<HistoryOperation> operations = [];
        if (historyFile is not null)
        {
            try
            {
                if (settings.Execute)
                {
                    // Checked (created or migrated) before any statement: a history that cannot take the result stops the drill first.
                    await new SqliteImportedHistory(historyFile, console.Time).InitializeAsync(cancellationToken);
                }

                if (File.Exists(historyFile))
                {
                    // The database's runs under any instance: a restore drill's source is named by the DBA, not by the history.
                    var records = await new SqliteImportedHistory(historyFile, console.Time).ReadAsync(settings.Instance, request.Database, cancellationToken);
                    operations = records.Select(r => r.Record).ToList();
                }
            }
            catch (HistoryStoreException exception)
            {
                await console.Error.WriteLineAsync($"backupxe: {exception.Message}");
                return ExitCodes.NothingUsable;
            }
        }

        var connection = settings.Connection.Read(console.Error);
        if (connection is null)
        {
            return ExitCodes.NothingUsable;
        }

        return await ServerCall.RunAsync(console, connection, async targetFactory =>
        {
            var sourceFactory = settings.FromServer is { Length: > 0 } sourceName && !string.Equals(sourceName, connection.Server, StringComparison.OrdinalIgnoreCase)
                ? new SqlConnectionFactory(connection with { Server = sourceName })
                : targetFactory;
            // Each RESTORE is measured inside the server by the capture session on the target, read as tune's trials are.
            var session = new CaptureSessionSettings(SessionName.Default);
            await using var capture = new TrialOperationCapture(LiveSources.Open(new LiveSourceSettings(targetFactory, session)), new DiagnosisSettings());
            var drill = new RestoreDrillServer(targetFactory, sourceFactory, console.Time) { Capture = (session, capture) };
            var plan = await drill.PlanAsync(request, settings.Since, operations, cancellationToken);
            var previous = historyFile is not null && File.Exists(historyFile)
                ? await LatestAsync(historyFile, plan.Database, cancellationToken)
                : null;
            if (!settings.Execute || plan.Refusals.Count > 0)
            {
                RestoreDrillWriter.Write(console.Out, settings.Format, plan, null, previous);
                return plan.Refusals.Count > 0 ? RestoreDrillCommand.Refused : ExitCodes.Success;
            }

            var result = await drill.ExecuteAsync(plan, cancellationToken);
            if (historyFile is not null)
            {
                var stored = StoredDrill.Of(result, settings.Instance ?? sourceFactory.Settings.Server);
                await new SqliteRestoreDrills(historyFile, console.Time).SaveAsync(stored, CancellationToken.None);
            }

            RestoreDrillWriter.Write(console.Out, settings.Format, plan, result, previous);
            return result.Status switch
            {
                DrillStatus.Completed => ExitCodes.Success,
                DrillStatus.Cancelled => RestoreDrillCommand.Cancelled,
                _ => RestoreDrillCommand.Failed,
            };
        }, json: settings.Format == "json", verbose: settings.Connection.Verbose);
    }

    private async Task<StoredDrill?> LatestAsync(string file, string database, CancellationToken cancellationToken)
    {
        try
        {
            return await new SqliteRestoreDrills(file, console.Time).LatestAsync(null, database, cancellationToken);
        }
        catch (HistoryStoreException exception)
        {
            await console.Error.WriteLineAsync($"backupxe: {exception.Message}");
            return null;
        }
    }
}
