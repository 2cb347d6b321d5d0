using BackupXe.SqlServer;
using BackupXe.Worker.Configuration;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;

namespace BackupXe.Worker.History;

/// <summary>
/// Runs <see cref="PeriodicHistoryImport"/> for every live instance whose HistoryImport:IntervalMinutes is set,
/// each on its own loop: one instance's failures never delay or stop another's imports.
/// </summary>
public sealed class HistoryImportService(IOptions<BackupXeOptions> options, PeriodicHistoryImport import) : BackgroundService
{
    protected override Task ExecuteAsync(CancellationToken stoppingToken)
        => Task.WhenAll(options.Value.Instances
            .Where(instance => instance.HasLiveConnection && instance.HistoryImport.Enabled)
            .Select(instance => import.RunAsync(
                instance.Name!, new SqlConnectionFactory(LiveInstanceSettings.Build(instance)), instance.HistoryImport, stoppingToken)));
}
