using BackupXe.History;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using BackupXe.Worker.Configuration;
using BackupXe.Worker.Imports;
using BackupXe.Worker.Logging;
using BackupXe.Worker.Monitoring;
using BackupXe.Worker.Telemetry;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using OpenTelemetry.Metrics;

namespace BackupXe.Worker;

internal static class WorkerServices
{
    /// <summary>
    /// Everything the daemon needs except the event sources and the analyzer, which Program registers
    /// (tests substitute scripted ones).
    /// </summary>
    public static IServiceCollection AddBackupXeWorker(this IServiceCollection services, IConfiguration configuration, IHostEnvironment environment)
    {
        services.AddOptions<BackupXeOptions>()
            // A misspelt key would otherwise be ignored silently and its default used.
            .Bind(configuration.GetSection(BackupXeOptions.SectionName), binder => binder.ErrorOnUnknownConfiguration = true)
            .ValidateOnStart();
        services.AddSingleton<IValidateOptions<BackupXeOptions>, BackupXeOptionsValidator>();

        services.TryAddSingleton(TimeProvider.System);
        services.AddSingleton<BackupXeMetrics>();
        services.AddSingleton<IHistoryStore>(provider =>
        {
            var history = provider.GetRequiredService<IOptions<BackupXeOptions>>().Value.History;
            if (string.Equals(history.Provider, HistoryProviders.SqlServer, StringComparison.OrdinalIgnoreCase))
            {
                var (connections, retry) = CentralRepository(provider, history);
                return new SqlServerHistoryStore(connections, retry);
            }

            var path = Path.Combine(environment.ContentRootPath, history.Path ?? BackupXeOptionsDefaults.HistoryPath);
            return new SqliteHistoryStore(path, provider.GetRequiredService<TimeProvider>());
        });
        if (string.Equals(configuration[$"{BackupXeOptions.SectionName}:History:Provider"], HistoryProviders.SqlServer, StringComparison.OrdinalIgnoreCase))
        {
            // Daemons sharing the central store split its instances by lease (docs/fleet.md, "Several daemons, one store").
            services.AddSingleton(provider => new SqlServerInstanceLeases(
                new SqlConnectionFactory(LiveInstanceSettings.Build(new InstanceOptions
                {
                    Name = "history", ConnectionString = provider.GetRequiredService<IOptions<BackupXeOptions>>().Value.History.ConnectionString,
                })),
                SqlServerInstanceLeases.ThisProcess(),
                TimeSpan.FromSeconds(provider.GetRequiredService<IOptions<BackupXeOptions>>().Value.History.LeaseSeconds),
                new TransientRetry(
                    observer: new LiveSourceLog("history", provider.GetRequiredService<ILogger<LiveSourceLog>>()),
                    time: provider.GetRequiredService<TimeProvider>())));
        }

        services.AddSingleton(provider => new StoredBaselines(
            provider.GetRequiredService<IHistoryStore>(), provider.GetRequiredService<IOptions<BackupXeOptions>>().Value.Regression.ToComparisonSettings()));
        services.AddSingleton<OperationRecorder>();
        services.AddHostedService<MonitoringService>();

        // The periodic history import writes where the history is: the SQLite file, or the central store (its migration 6).
        services.AddSingleton<IImportedHistory>(provider => Central(provider) is { } central
            ? new SqlServerImportedHistory(central.Connections, central.Retry)
            : new SqliteImportedHistory(HistoryFile(provider), provider.GetRequiredService<TimeProvider>()));
        services.AddSingleton<IReplicaRoleStore>(provider => Central(provider) is { } central
            ? new SqlServerReplicaRoles(central.Connections, central.Retry)
            : new SqliteReplicaRoles(HistoryFile(provider), provider.GetRequiredService<TimeProvider>()));
        services.AddSingleton<IMsdbRestoreStore>(provider => Central(provider) is { } central
            ? new SqlServerMsdbRestores(central.Connections, central.Retry)
            : new SqliteMsdbRestores(HistoryFile(provider), provider.GetRequiredService<TimeProvider>()));
        services.AddSingleton<PeriodicHistoryImport>();

        string HistoryFile(IServiceProvider provider)
            => Path.Combine(environment.ContentRootPath, provider.GetRequiredService<IOptions<BackupXeOptions>>().Value.History.Path ?? BackupXeOptionsDefaults.HistoryPath);
        services.AddHostedService<HistoryImportService>();

        // Restore drills in their windows (off unless an instance lists databases), stored beside the operations.
        services.AddSingleton<IRestoreDrillStore>(provider =>
        {
            var history = provider.GetRequiredService<IOptions<BackupXeOptions>>().Value.History;
            if (string.Equals(history.Provider, HistoryProviders.SqlServer, StringComparison.OrdinalIgnoreCase))
            {
                var (connections, retry) = CentralRepository(provider, history);
                return new SqlServerRestoreDrills(connections, retry);
            }

            return new SqliteRestoreDrills(
                Path.Combine(environment.ContentRootPath, history.Path ?? BackupXeOptionsDefaults.HistoryPath), provider.GetRequiredService<TimeProvider>());
        });
        services.AddHostedService<Drill.RestoreDrillService>();

        // Only when configured: an OTLP exporter with nowhere to send would retry and log forever. The host starts the
        // meter provider and disposes it, which flushes the last export, at shutdown.
        var otlpEndpoint = configuration[$"{BackupXeOptions.SectionName}:Metrics:OtlpEndpoint"];
        if (!string.IsNullOrWhiteSpace(otlpEndpoint))
        {
            // Read when the provider is built, after Program has validated the endpoint.
            services.AddOpenTelemetry().WithMetrics(metrics => metrics
                .AddMeter(BackupXeMetrics.MeterName)
                .AddOtlpExporter(exporter => exporter.Endpoint = new Uri(otlpEndpoint)));
        }

        return services;
    }

    /// <summary>
    /// The central repository's connections, which retry like the live ones, each wait logged as a live source's
    /// (event 161): one home for the operations' store and the drills'.
    /// </summary>
    /// <summary>The central repository's connections when the history's provider is `sqlserver`; null for the SQLite file.</summary>
    private static (SqlConnectionFactory Connections, TransientRetry Retry)? Central(IServiceProvider provider)
    {
        var history = provider.GetRequiredService<IOptions<BackupXeOptions>>().Value.History;
        return string.Equals(history.Provider, HistoryProviders.SqlServer, StringComparison.OrdinalIgnoreCase) ? CentralRepository(provider, history) : null;
    }

    private static (SqlConnectionFactory Connections, TransientRetry Retry) CentralRepository(IServiceProvider provider, HistoryOptions history)
        => (new SqlConnectionFactory(LiveInstanceSettings.Build(new InstanceOptions { Name = "history", ConnectionString = history.ConnectionString })),
            new TransientRetry(
                observer: new LiveSourceLog("history", provider.GetRequiredService<ILogger<LiveSourceLog>>()),
                time: provider.GetRequiredService<TimeProvider>()));
}
