using BackupXe.History;
using BackupXe.SqlServer.Client;
using BackupXe.Worker.Configuration;
using BackupXe.Worker.Logging;
using BackupXe.Worker.Monitoring;
using BackupXe.Worker.Telemetry;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace BackupXe.Worker.Drill;

/// <summary>
/// Runs a <see cref="DrillWindowRunner"/> for every live instance with RestoreDrills:Databases set, all sharing one
/// MaxConcurrentDrills gate. An unusable history file stops the daemon (<see cref="Fault"/>, exit code 3), as it does
/// for the imports.
/// </summary>
internal sealed class RestoreDrillService(
    IOptions<BackupXeOptions> options, IRestoreDrillStore store, BackupXeMetrics metrics, TimeProvider time, ILoggerFactory loggers,
    IHostApplicationLifetime? lifetime = null) : BackgroundService
{
    /// <summary>The unusable history file that stopped the drills, if one did; Program turns it into exit code 3.</summary>
    public HistoryStoreException? Fault { get; private set; }

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        var logger = loggers.CreateLogger<RestoreDrillService>();
        try
        {
            await Task.Yield();
            var settings = options.Value;
            using var gate = new SemaphoreSlim(settings.MaxConcurrentDrills, settings.MaxConcurrentDrills);
            await Task.WhenAll(settings.Instances
                .Where(instance => instance.HasLiveConnection && instance.RestoreDrills.Enabled)
                .TakeWhile(_ => !stoppingToken.IsCancellationRequested)
                .Select(instance => Runner(instance, settings, gate, logger).RunAsync(stoppingToken))
                .ToList());
        }
        catch (HistoryStoreException exception)
        {
            Fault = exception;
            logger.DaemonFailed(exception.GetType().Name, exception.Message);
            lifetime?.StopApplication();
        }
        catch (Exception exception) when (exception is not OperationCanceledException || !stoppingToken.IsCancellationRequested)
        {
            // One line, scrubbed, instead of the host's stack trace; monitoring and imports are not stopped by it.
            logger.DrillsFailed(exception.GetType().Name, SqlServer.ConnectionStringRedactor.RedactMessage(exception.Message));
        }
    }

    private DrillWindowRunner Runner(InstanceOptions instance, BackupXeOptions settings, SemaphoreSlim gate, ILogger logger)
    {
        var drills = instance.RestoreDrills;
        var schedule = CaptureSchedule.From(drills.AsWindows(), instance.Name!).Schedule
            ?? throw new InvalidOperationException($"Instance '{instance.Name}': drill windows the validation should have refused.");
        var target = settings.Instances.First(i => string.Equals(i.Name, drills.TargetInstance, StringComparison.Ordinal));
        var servers = new DrillServers(
            target.Name!,
            new SqlConnectionFactory(LiveInstanceSettings.Build(instance)),
            new SqlConnectionFactory(LiveInstanceSettings.Build(target)),
            LiveSourceFactory.SessionOf(target));
        return new DrillWindowRunner(instance.Name!, drills, schedule, servers, gate, store, metrics, time, logger);
    }
}
