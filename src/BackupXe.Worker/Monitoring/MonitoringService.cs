using BackupXe.History;
using BackupXe.Worker.Configuration;
using BackupXe.Worker.Logging;
using BackupXe.Worker.Telemetry;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace BackupXe.Worker.Monitoring;

/// <summary>The daemon: prepares the history store, then runs one <see cref="InstanceMonitor"/> per configured instance.</summary>
internal sealed class MonitoringService(
    IOptions<BackupXeOptions> options,
    IInstanceSourceFactory sources,
    IOperationAnalyzer analyzer,
    IHistoryStore history,
    OperationRecorder recorder,
    BackupXeMetrics metrics,
    TimeProvider time,
    ILoggerFactory loggers,
    IHostApplicationLifetime? lifetime = null,
    StoredBaselines? paces = null,
    SqlServerInstanceLeases? leases = null) : BackgroundService
{
    /// <summary>The error that stopped the daemon, if one did; Program turns it into a non-zero exit code.</summary>
    public Exception? Fault { get; private set; }

    public override async Task StartAsync(CancellationToken cancellationToken)
    {
        // Before the monitors start, so that an unusable history file stops the daemon with one clear
        // message instead of every instance failing on its first operation.
        try
        {
            await history.InitializeAsync(cancellationToken);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            // A stop (SIGTERM) during start-up is a stop, not a failure: the host then stops with nothing started and
            // exit code 0, instead of logging "Hosting failed to start" with a stack trace.
            return;
        }

        await base.StartAsync(cancellationToken);
    }

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        try
        {
            await MonitorAllAsync(stoppingToken);
        }
        catch (Exception exception) when (exception is not OperationCanceledException || !stoppingToken.IsCancellationRequested)
        {
            // One line, scrubbed, instead of the host's "BackgroundService failed" with a stack trace in the
            // journal; the host is stopped so that the process exits non-zero and the service manager acts.
            Fault = exception;
            loggers.CreateLogger<MonitoringService>().DaemonFailed(
                exception.GetType().Name, SqlServer.ConnectionStringRedactor.RedactMessage(exception.Message));
            lifetime?.StopApplication();
        }
    }

    /// <summary>An instance with capture windows reads only around them (<see cref="CaptureWindowMonitor"/>); any other reads at all times.</summary>
    private Func<CancellationToken, Task> Runner(InstanceOptions instance, InstanceMonitor monitor, TimeSpan retryDelay)
    {
        if (!instance.CaptureWindows.Enabled || !instance.HasLiveConnection)
        {
            return monitor.RunAsync;
        }

        var schedule = CaptureSchedule.From(instance.CaptureWindows, instance.Name!).Schedule
            ?? throw new InvalidOperationException($"Instance '{instance.Name}': capture windows the validation should have refused.");
        var arming = new SqlServer.Sessions.SessionArming(
            new SqlServer.Client.SqlConnectionFactory(LiveInstanceSettings.Build(instance)), LiveSourceFactory.SessionOf(instance), createWhenMissing: instance.EnsureSession);
        return new CaptureWindowMonitor(monitor.Name, schedule, arming, monitor.RunAsync, time, retryDelay, loggers.CreateLogger<CaptureWindowMonitor>()).RunAsync;
    }

    private async Task MonitorAllAsync(CancellationToken stoppingToken)
    {
        // Off the host's start: thousands of instances are set up after StartAsync has returned, so a stop that comes
        // meanwhile is the host's to handle at once, and every step below sees it.
        await Task.Yield();
        var settings = options.Value;
        var retryDelay = TimeSpan.FromSeconds(settings.RetryDelaySeconds);
        var runs = new List<Task>(settings.Instances.Count);
        foreach (var instance in settings.Instances)
        {
            // Each instance's start observes a stop: none is set up, and none started, once it came.
            if (stoppingToken.IsCancellationRequested)
            {
                break;
            }

            var monitor = new InstanceMonitor(
                instance, sources, analyzer, recorder, metrics, time, retryDelay, loggers.CreateLogger<InstanceMonitor>(),
                TimeSpan.FromSeconds(settings.StallAfterSeconds),
                instance.HasReplay
                    ? null
                    : new StallWaits(new SqlServer.Requests.RunningRequestReader(new SqlServer.Client.SqlConnectionFactory(LiveInstanceSettings.Build(instance))), loggers.CreateLogger<InstanceMonitor>()),
                paces);
            var run = Runner(instance, monitor, retryDelay);
            if (leases is not null)
            {
                // Several daemons share the central store: each instance is polled by the one holding its lease.
                run = new LeasedInstanceRun(instance.Name!, leases, run, time, loggers.CreateLogger<LeasedInstanceRun>()).RunAsync;
            }

            // Task.Run: a source that blocks before its first await must not hold up the instances after it.
            runs.Add(Task.Run(() => stoppingToken.IsCancellationRequested ? Task.CompletedTask : run(stoppingToken), CancellationToken.None));
        }

        await Task.WhenAll(runs);
        if (!stoppingToken.IsCancellationRequested)
        {
            loggers.CreateLogger<MonitoringService>().AllInstancesFinished();
        }
    }
}
