using BackupXe.History;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.Worker.Configuration;
using BackupXe.Worker.Logging;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace BackupXe.Worker.Imports;

/// <summary>
/// Runs <see cref="PeriodicHistoryImport"/> for every live instance whose HistoryImport:IntervalMinutes is set,
/// each on its own loop: one instance's failures never delay or stop another's imports. An unusable history file
/// stops the daemon (<see cref="Fault"/>, exit code 3), as it does for the monitors.
/// </summary>
internal sealed class HistoryImportService(
    IOptions<BackupXeOptions> options, PeriodicHistoryImport import, ILogger<HistoryImportService> logger, IHostApplicationLifetime? lifetime = null)
    : BackgroundService
{
    /// <summary>The unusable history file that stopped the imports, if one did; Program turns it into exit code 3.</summary>
    public HistoryStoreException? Fault { get; private set; }

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        try
        {
            // Off the host's start, and each instance's start observing a stop that came meanwhile.
            await Task.Yield();
            await Task.WhenAll(options.Value.Instances
                .Where(instance => instance.HasLiveConnection && instance.HistoryImport.Enabled)
                .TakeWhile(_ => !stoppingToken.IsCancellationRequested)
                .Select(instance => import.RunAsync(
                    instance.Name!, new SqlConnectionFactory(LiveInstanceSettings.Build(instance)), instance.HistoryImport, stoppingToken))
                .ToList());
        }
        catch (HistoryStoreException exception)
        {
            Fault = exception;
            logger.DaemonFailed(exception.GetType().Name, exception.Message);
            lifetime?.StopApplication();
        }
    }
}
