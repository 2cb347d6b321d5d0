using BackupXe.History;
using BackupXe.Worker.Logging;
using Microsoft.Extensions.Logging;

namespace BackupXe.Worker.Monitoring;

/// <summary>
/// One instance's monitoring run under its lease in the central store (docs/fleet.md, "Several daemons, one store"): the
/// run starts only once this daemon holds the lease, the lease is renewed every <see cref="RenewEvery"/> while it runs,
/// and the run is stopped as soon as a renewal finds another holder, or when no renewal has succeeded for long enough
/// that the lease may have expired. A daemon that does not hold it tries again every <see cref="RenewEvery"/>; a daemon
/// that stops gives it up, so another takes it at its next try; one that dies leaves it to expire. A store whose script
/// has no lease table runs the instance without one, as before leases, and says so once.
/// </summary>
internal sealed class LeasedInstanceRun(
    string instance, SqlServerInstanceLeases leases, Func<CancellationToken, Task> run, TimeProvider time, ILogger logger)
{
    /// <summary>A third of the lease: two renewals may fail before it can expire.</summary>
    public TimeSpan RenewEvery => leases.Duration / 3;

    public async Task RunAsync(CancellationToken stoppingToken)
    {
        string? lastHolder = null;
        while (!stoppingToken.IsCancellationRequested)
        {
            var lease = await TryTakeAsync(stoppingToken);
            if (stoppingToken.IsCancellationRequested)
            {
                // Stopped while asking: the store may have granted it, so it is given up (a no-op when not held).
                await ReleaseAsync();
                return;
            }

            if (lease is { Unsupported: true })
            {
                logger.LeaseTableMissing(instance);
                await run(stoppingToken);
                return;
            }

            if (lease is not { Held: true })
            {
                if (lease?.Holder is { } holder && holder != lastHolder)
                {
                    logger.LeaseHeldElsewhere(instance, holder, lease.ExpiresAt);
                    lastHolder = holder;
                }

                if (!await WaitAsync(RenewEvery, stoppingToken))
                {
                    return;
                }

                continue;
            }

            lastHolder = null;
            logger.LeaseTaken(instance, leases.Holder, lease.ExpiresAt);
            if (await RunWhileHeldAsync(stoppingToken))
            {
                await ReleaseAsync();
                return;
            }
        }
    }

    /// <summary>Runs until the run ends or the lease is lost; true when the run ended or the daemon stops (the lease to give up).</summary>
    private async Task<bool> RunWhileHeldAsync(CancellationToken stoppingToken)
    {
        using var polling = CancellationTokenSource.CreateLinkedTokenSource(stoppingToken);
        var running = run(polling.Token);
        var confirmed = time.GetTimestamp();
        var lost = false;
        while (!running.IsCompleted)
        {
            var tick = Task.Delay(RenewEvery, time, stoppingToken);
            await Task.WhenAny(running, tick);
            if (running.IsCompleted || stoppingToken.IsCancellationRequested)
            {
                break;
            }

            var lease = await TryTakeAsync(stoppingToken);
            if (lease is { Held: true })
            {
                confirmed = time.GetTimestamp();
                continue;
            }

            // Another holder, or no renewal for two thirds of the lease: it may be another daemon's by now.
            if (lease is not null || time.GetElapsedTime(confirmed) >= leases.Duration - RenewEvery)
            {
                logger.LeaseLost(instance, lease?.Holder);
                lost = true;
                await polling.CancelAsync();
                break;
            }
        }

        try
        {
            await running;
        }
        catch (OperationCanceledException) when (polling.IsCancellationRequested)
        {
            // The run stopped because the lease was lost or the daemon stops: what was asked.
        }

        return !lost;
    }

    /// <summary>The lease after one try; null when the store could not be reached (said, and tried again later).</summary>
    private async Task<InstanceLease?> TryTakeAsync(CancellationToken stoppingToken)
    {
        try
        {
            return await leases.TakeAsync(instance, stoppingToken);
        }
        catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
        {
            return null;
        }
        catch (Exception exception)
        {
            logger.LeaseStoreFailed(instance, exception.GetType().Name, SqlServer.ConnectionStringRedactor.RedactMessage(exception.Message));
            return null;
        }
    }

    private async Task ReleaseAsync()
    {
        try
        {
            // The daemon is stopping: a few seconds for the release, then the lease is left to expire.
            using var bounded = new CancellationTokenSource(TimeSpan.FromSeconds(5), time);
            await leases.ReleaseAsync(instance, bounded.Token);
        }
        catch (Exception exception)
        {
            logger.LeaseStoreFailed(instance, exception.GetType().Name, SqlServer.ConnectionStringRedactor.RedactMessage(exception.Message));
        }
    }

    private async Task<bool> WaitAsync(TimeSpan delay, CancellationToken stoppingToken)
    {
        try
        {
            await Task.Delay(delay, time, stoppingToken);
            return true;
        }
        catch (OperationCanceledException)
        {
            return false;
        }
    }
}
