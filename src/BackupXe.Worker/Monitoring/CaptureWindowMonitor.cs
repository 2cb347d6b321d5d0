using BackupXe.SqlServer;
using BackupXe.SqlServer.Sessions;
using BackupXe.Worker.Configuration;
using BackupXe.Worker.Logging;
using Microsoft.Extensions.Logging;

namespace BackupXe.Worker.Monitoring;

/// <summary>
/// One instance with capture windows: outside them the session is left as it is and not read; from the lead before a
/// window the session is started (<see cref="SessionArming"/>, permissions checked before any change) and read; after
/// the window it is read on while sys.dm_exec_requests shows a BACKUP or RESTORE, then stopped when BackupXe started
/// it, and read for <see cref="DrainTime"/> more so the events it flushed at the stop are handed on.
/// </summary>
/// <param name="read">Reads the instance until its token is cancelled (the daemon's <see cref="InstanceMonitor.RunAsync"/>).</param>
internal sealed class CaptureWindowMonitor(
    string instance,
    CaptureSchedule schedule,
    SessionArming arming,
    Func<CancellationToken, Task> read,
    TimeProvider time,
    TimeSpan retryDelay,
    ILogger logger)
{
    /// <summary>How often a window that has ended asks whether a backup or restore still runs.</summary>
    public static readonly TimeSpan RunningCheckInterval = TimeSpan.FromSeconds(30);

    /// <summary>
    /// Reading goes on this long after the stop: the session dispatches its buffers at most every 2 s
    /// (MAX_DISPATCH_LATENCY) and the file is polled every second, so the last events are read within it.
    /// </summary>
    public static readonly TimeSpan DrainTime = TimeSpan.FromSeconds(10);

    // Bounds the stop at shutdown: the service manager waits for the daemon only so long.
    private static readonly TimeSpan ShutdownStopTimeout = TimeSpan.FromSeconds(10);

    private string SessionName => arming.Settings.SessionName;

    public async Task RunAsync(CancellationToken cancellationToken)
    {
        var first = true;
        while (!cancellationToken.IsCancellationRequested)
        {
            var now = time.GetUtcNow();
            try
            {
                if (schedule.ArmedUntil(now) is { } until)
                {
                    await RunWindowAsync(until, cancellationToken);
                }
                else
                {
                    if (first)
                    {
                        await ReportOutsideWindowAsync(now, cancellationToken);
                    }

                    if (schedule.NextArm(now) is not { } next)
                    {
                        return;
                    }

                    await Task.Delay(next - now, time, cancellationToken);
                }
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                return;
            }

            first = false;
        }
    }

    /// <summary>At start-up outside a window: a session found running was not started by this daemon, and is left alone.</summary>
    private async Task ReportOutsideWindowAsync(DateTimeOffset now, CancellationToken cancellationToken)
    {
        try
        {
            if ((await arming.StatusAsync(cancellationToken)).Running)
            {
                logger.CaptureRunningOutsideWindow(instance, SessionName, schedule.NextArm(now));
            }
        }
        catch (Exception failure) when (!cancellationToken.IsCancellationRequested)
        {
            // Only a report: the windows go on whether or not the state could be read.
            logger.CaptureFailed(instance, SessionName, "checked", failure.GetType().Name, ConnectionStringRedactor.RedactMessage(failure.Message), 0);
        }
    }

    private async Task RunWindowAsync(DateTimeOffset until, CancellationToken cancellationToken)
    {
        ArmingResult armed;
        try
        {
            armed = await arming.ArmAsync(cancellationToken);
        }
        catch (Exception failure) when (!cancellationToken.IsCancellationRequested)
        {
            var wait = Shorter(retryDelay, until - time.GetUtcNow());
            logger.CaptureFailed(instance, SessionName, "started", failure.GetType().Name, ConnectionStringRedactor.RedactMessage(failure.Message), wait.TotalSeconds);
            await Task.Delay(wait, time, cancellationToken);
            return;
        }

        if (armed.Outcome == ArmingOutcome.Refused)
        {
            foreach (var problem in armed.Problems)
            {
                logger.CaptureRefused(instance, SessionName, until, problem.Message);
            }

            // Asked again at the next window, not within this one: a GRANT is not given in minutes.
            await DelayUntilAsync(until, cancellationToken);
            return;
        }

        logger.CaptureArmed(instance, until, SessionName, armed.Outcome switch
        {
            ArmingOutcome.Created => "created (STARTUP_STATE OFF) and started",
            ArmingOutcome.Started => "started",
            _ => "already running, not started by BackupXe: read, and left running after the window",
        });
        var armedAt = time.GetUtcNow();
        using var reading = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        var reader = Task.Run(() => read(reading.Token), CancellationToken.None);
        try
        {
            await WaitAsync(until - time.GetUtcNow(), reader, cancellationToken);
            await WhileBackupsRunAsync(until, reader, cancellationToken);
            await DisarmAsync(armedAt, cancellationToken);
            await WaitAsync(DrainTime, reader, cancellationToken);
        }
        finally
        {
            await reading.CancelAsync();
            try
            {
                await reader;
            }
            finally
            {
                // The daemon stops (asked to, or on a history failure) while the session it started runs.
                if ((cancellationToken.IsCancellationRequested || reader.IsFaulted) && arming.StartedHere)
                {
                    await StopAtShutdownAsync();
                }
            }
        }
    }

    /// <summary>After the window: waits while sys.dm_exec_requests shows a BACKUP or RESTORE, or cannot be read.</summary>
    private async Task WhileBackupsRunAsync(DateTimeOffset windowEnd, Task reader, CancellationToken cancellationToken)
    {
        var said = false;
        while (true)
        {
            var snapshot = await arming.RunningBackupsAsync(cancellationToken);
            if (snapshot.Limitation is null && snapshot.Requests.Count == 0)
            {
                return;
            }

            if (snapshot.Limitation is { } reason)
            {
                logger.CaptureRunningUnknown(instance, reason, SessionName, RunningCheckInterval.TotalSeconds);
            }
            else if (!said)
            {
                var first = snapshot.Requests[0];
                logger.CaptureKeptArmed(instance, windowEnd, snapshot.Requests.Count, first.SessionId, first.Command, first.Database, SessionName);
                said = true;
            }

            await WaitAsync(RunningCheckInterval, reader, cancellationToken);
        }
    }

    private async Task DisarmAsync(DateTimeOffset armedAt, CancellationToken cancellationToken)
    {
        while (true)
        {
            try
            {
                if (await arming.DisarmAsync(cancellationToken))
                {
                    var now = time.GetUtcNow();
                    logger.CaptureDisarmed(instance, SessionName, (now - armedAt).TotalMinutes, schedule.NextArm(now));
                }
                else
                {
                    logger.CaptureLeftRunning(instance, SessionName);
                }

                return;
            }
            catch (Exception failure) when (!cancellationToken.IsCancellationRequested)
            {
                // Still this daemon's to stop: tried again, never forgotten.
                logger.CaptureFailed(instance, SessionName, "stopped", failure.GetType().Name, ConnectionStringRedactor.RedactMessage(failure.Message), retryDelay.TotalSeconds);
                await Task.Delay(retryDelay, time, cancellationToken);
            }
        }
    }

    /// <summary>The daemon stops mid-window: the session it started is stopped too, unless a backup still runs.</summary>
    private async Task StopAtShutdownAsync()
    {
        using var bounded = new CancellationTokenSource(ShutdownStopTimeout, time);
        try
        {
            var snapshot = await arming.RunningBackupsAsync(bounded.Token);
            if (snapshot.Limitation is { } reason)
            {
                logger.CaptureLeftAtShutdown(instance, SessionName, "whether a backup runs could not be read: " + reason, BackupXe.SqlServer.Sessions.SessionName.Quote(SessionName));
            }
            else if (snapshot.Requests.Count > 0)
            {
                logger.CaptureLeftAtShutdown(instance, SessionName, $"{snapshot.Requests.Count} backup or restore request(s) still run", BackupXe.SqlServer.Sessions.SessionName.Quote(SessionName));
            }
            else
            {
                await arming.DisarmAsync(bounded.Token);
            }
        }
        catch (Exception failure)
        {
            logger.CaptureLeftAtShutdown(instance, SessionName, "stopping it failed: " + ConnectionStringRedactor.RedactMessage(failure.Message), BackupXe.SqlServer.Sessions.SessionName.Quote(SessionName));
        }
    }

    /// <summary>
    /// Waits, but a reader that failed ends the wait with its error: the history store failing stops the daemon now,
    /// not at the window's end.
    /// </summary>
    private async Task WaitAsync(TimeSpan wait, Task reader, CancellationToken cancellationToken)
    {
        var delay = wait > TimeSpan.Zero ? Task.Delay(wait, time, cancellationToken) : Task.CompletedTask;
        if (await Task.WhenAny(delay, reader) == reader && reader.IsFaulted)
        {
            await reader;
        }

        await delay;
    }

    private async Task DelayUntilAsync(DateTimeOffset until, CancellationToken cancellationToken)
    {
        var wait = until - time.GetUtcNow();
        if (wait > TimeSpan.Zero)
        {
            await Task.Delay(wait, time, cancellationToken);
        }
    }

    private static TimeSpan Shorter(TimeSpan a, TimeSpan b) => a < b ? a : (b > TimeSpan.Zero ? b : TimeSpan.Zero);
}
