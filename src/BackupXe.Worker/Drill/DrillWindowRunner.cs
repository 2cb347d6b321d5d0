using BackupXe.Core.Diagnosis;
using BackupXe.Core.Drill;
using BackupXe.Core.Rendering;
using BackupXe.History;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Drill;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Sessions;
using BackupXe.SqlServer.Tuning;
using BackupXe.Worker.Configuration;
using BackupXe.Worker.Logging;
using BackupXe.Worker.Telemetry;
using Microsoft.Extensions.Logging;

namespace BackupXe.Worker.Drill;

/// <summary>The two servers of one instance's drills: the source (its msdb chain) and the target (where the scratch database goes).</summary>
internal sealed record DrillServers(string Target, SqlConnectionFactory SourceServer, SqlConnectionFactory TargetServer, CaptureSessionSettings TargetSession);

/// <summary>
/// One instance's restore drills (docs/configuration.md, "Restore drill windows"): when a window opens, each listed
/// database in turn is planned and run by <see cref="RestoreDrillServer"/>, the code behind <c>backupxe restore-drill
/// --execute</c>, with its safety rules unchanged; a drill still running when the window ends is cancelled, which drops
/// its scratch database. Each drill is stored in the history (SQLite or the central table), logged and measured.
/// </summary>
internal sealed class DrillWindowRunner(
    string instance, RestoreDrillsOptions settings, CaptureSchedule schedule, DrillServers servers, SemaphoreSlim gate,
    IRestoreDrillStore store, BackupXeMetrics metrics, TimeProvider time, ILogger logger)
{
    /// <summary>
    /// Drills in each window until <paramref name="stoppingToken"/>; an unusable history file is thrown
    /// (<see cref="HistoryStoreException"/>), any other failure of a drill logged and the next database drilled.
    /// </summary>
    public async Task RunAsync(CancellationToken stoppingToken)
    {
        try
        {
            foreach (var database in Databases)
            {
                if (await store.LatestAsync(instance, database, stoppingToken) is { } last)
                {
                    metrics.RecordDrillSuccess(instance, database, last.DrilledAt);
                }
            }
        }
        catch (Exception exception) when (exception is not (OperationCanceledException or HistoryStoreException))
        {
            // A repository out of reach at start: the drills still run, and store when it is back.
            logger.DrillHistoryNotRead(instance, exception.GetType().Name, ConnectionStringRedactor.RedactMessage(exception.Message));
        }

        while (!stoppingToken.IsCancellationRequested)
        {
            var now = time.GetUtcNow();
            DateTimeOffset wake;
            if (schedule.ArmedUntil(now) is { } until)
            {
                await DrillWindowAsync(until, stoppingToken);
                // Once per window: the rest of it is waited out.
                wake = until;
            }
            else if (schedule.NextArm(now) is { } next)
            {
                wake = next;
            }
            else
            {
                return;
            }

            var wait = wake - time.GetUtcNow();
            try
            {
                await Task.Delay(wait > TimeSpan.Zero ? wait : TimeSpan.Zero, time, stoppingToken);
            }
            catch (OperationCanceledException)
            {
                return;
            }
        }
    }

    private IEnumerable<string> Databases => settings.Databases.Select(d => d.Trim());

    /// <summary>Every database of the list, one drill at a time and at most MaxConcurrentDrills over the daemon, until the window ends.</summary>
    private async Task DrillWindowAsync(DateTimeOffset until, CancellationToken stoppingToken)
    {
        var left = until - time.GetUtcNow();
        using var windowEnd = new CancellationTokenSource(left > TimeSpan.Zero ? left : TimeSpan.Zero, time);
        using var window = CancellationTokenSource.CreateLinkedTokenSource(stoppingToken, windowEnd.Token);
        foreach (var database in Databases)
        {
            try
            {
                await gate.WaitAsync(window.Token);
            }
            catch (OperationCanceledException)
            {
                return;
            }

            try
            {
                await DrillAsync(database, until, window.Token);
            }
            finally
            {
                gate.Release();
            }
        }
    }

    /// <summary>One drill: planned, refused or run, stored, logged and measured.</summary>
    public async Task DrillAsync(string database, DateTimeOffset windowEnd, CancellationToken cancellationToken)
    {
        var request = new DrillRequest(database, null, settings.DataFolder, settings.LogFolder, null, settings.CheckDb, Keep: false, settings.AllowSourceServer);
        RestoreDrillResult result;
        try
        {
            // As the CLI does: each RESTORE measured inside the server by the target's capture session when it runs.
            await using var capture = new TrialOperationCapture(
                LiveSources.Open(new LiveSourceSettings(servers.TargetServer, servers.TargetSession)), new DiagnosisSettings());
            var drill = new RestoreDrillServer(servers.TargetServer, servers.SourceServer, time) { Capture = (servers.TargetSession, capture) };
            var plan = await drill.PlanAsync(request, time.GetLocalNow().DateTime - TimeSpan.FromDays(settings.LookbackDays), [], cancellationToken);
            if (plan.Refusals.Count > 0)
            {
                logger.DrillRefused(instance, TerminalText.Line(database), servers.Target, TerminalText.Line(string.Join("; ", plan.Refusals)));
                metrics.RecordDrillRefused(instance);
                return;
            }

            result = await drill.ExecuteAsync(plan, cancellationToken);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            // Stopped while planning: nothing was created.
            return;
        }
        catch (Exception exception) when (exception is not HistoryStoreException)
        {
            logger.DrillNotRun(instance, TerminalText.Line(database), servers.Target, exception.GetType().Name, ConnectionStringRedactor.RedactMessage(exception.Message));
            return;
        }

        await store.SaveAsync(StoredDrill.Of(result, instance), CancellationToken.None);
        metrics.RecordDrill(instance, result);
        // One line each in the log, whatever the server's messages and the names hold.
        var left = TerminalText.Line(result.LeftBehind ?? "nothing");
        var failure = TerminalText.Line(result.Failure ?? result.Status.ToString().ToLowerInvariant());
        database = TerminalText.Line(database);
        switch (result.Status)
        {
            case DrillStatus.Completed:
                logger.DrillCompleted(instance, database, servers.Target, result.Plan.Scratch, result.RestoreSeconds, result.TotalSeconds, left);
                break;
            case DrillStatus.Cancelled:
                var cause = time.GetUtcNow() >= windowEnd
                    ? "at the end of its window (" + windowEnd.ToString("O", System.Globalization.CultureInfo.InvariantCulture) + ")"
                    : "by the daemon's stop";
                logger.DrillStopped(instance, database, servers.Target, cause, failure, left);
                break;
            default:
                logger.DrillFailed(instance, database, servers.Target, failure, left);
                break;
        }

        // The daemon never keeps a scratch database: anything left is a refused DROP a DBA must run.
        if (result.LeftBehind is { } behind)
        {
            logger.DrillLeftBehind(instance, database, servers.Target, TerminalText.Line(behind));
        }
    }
}
