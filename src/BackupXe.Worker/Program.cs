using BackupXe.Worker.Monitoring;
using BackupXe.Worker.Configuration;
using BackupXe.Worker.History;
using BackupXe.Worker.Logging;
using BackupXe.Worker.Telemetry;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Serilog;

namespace BackupXe.Worker;

public static class Program
{
    public static async Task<int> Main(string[] args)
    {
        HostApplicationBuilder builder;
        try
        {
            builder = Host.CreateApplicationBuilder(args);
        }
        catch (Exception exception) when (exception is InvalidDataException or FormatException or System.Text.Json.JsonException)
        {
            // appsettings.json that is empty, truncated or not JSON: the provider's message names the file and
            // the line; its inner exception says what was wrong there.
            var reason = exception.InnerException is { } inner ? $"{exception.Message} {inner.Message}" : exception.Message;
            return Fail(ExitCodes.InvalidConfiguration, $"the configuration cannot be read: {reason}");
        }

        Serilog.Core.Logger serilog;
        try
        {
            serilog = new LoggerConfiguration().ReadFrom.Configuration(builder.Configuration).CreateLogger();
        }
        catch (Exception exception) when (exception is InvalidOperationException or ArgumentException or FormatException)
        {
            return Fail(ExitCodes.InvalidConfiguration, $"the Serilog section of the configuration is invalid: {exception.Message}");
        }

        builder.Logging.ClearProviders();
        builder.Logging.AddSerilog(serilog, dispose: true);
        builder.Services.AddBackupXeWorker(builder.Configuration, builder.Environment);
        builder.Services.AddSingleton<IOperationAnalyzer, SessionOperationAnalyzer>();
        builder.Services.AddSingleton<IInstanceSourceFactory>(services =>
        {
            var time = services.GetService<TimeProvider>() ?? TimeProvider.System;
            var settings = services.GetRequiredService<IOptions<BackupXeOptions>>().Value;
            var history = settings.History;
            // Checkpoints live beside the history file, whichever store keeps the history.
            var checkpoints = new SqliteCheckpointStore(
                Path.Combine(builder.Environment.ContentRootPath, history.Path ?? BackupXeOptionsDefaults.HistoryPath), time);
            var loggers = services.GetRequiredService<ILoggerFactory>();
            return new LiveSourceFactory(
                new ReplaySourceFactory(builder.Environment.ContentRootPath, time),
                checkpoints,
                instance => new LiveSourceLog(instance, loggers.CreateLogger<LiveSourceLog>()),
                time,
                new SqlServer.ReadConcurrencyLimit(settings.MaxConcurrentReads));
        });

        using var host = builder.Build();

        // Validated here as well as by ValidateOnStart, to print the failures as a list instead of the
        // host's exception and stack trace.
        try
        {
            _ = host.Services.GetRequiredService<IOptions<BackupXeOptions>>().Value;
        }
        catch (OptionsValidationException exception)
        {
            return Fail(ExitCodes.InvalidConfiguration, "the configuration is invalid:", exception.Failures);
        }
        catch (InvalidOperationException exception)
        {
            // The binder's complaint about an unknown key or a value of the wrong type; the useful part
            // (which key, which type) is in the inner exceptions.
            var reasons = new List<string>();
            for (Exception? inner = exception; inner is not null; inner = inner.InnerException)
            {
                reasons.Add(inner.Message);
            }

            return Fail(ExitCodes.InvalidConfiguration, "the configuration is invalid:", reasons);
        }

        // Checked before the host starts, so that a read-only, damaged or foreign history file is one line and
        // exit code 3 instead of the host's start-up failure with a stack trace.
        try
        {
            await host.Services.GetRequiredService<IHistoryStore>().InitializeAsync(CancellationToken.None);
        }
        catch (HistoryStoreException exception)
        {
            return Fail(ExitCodes.HistoryUnavailable, exception.Message);
        }

        // Resolved now so that export starts with the host; the container disposes (and flushes) it at shutdown.
        _ = host.Services.GetService<OtlpMetricsExport>();

        // Taken before the run: RunAsync disposes the host, and its services with it, when it returns.
        var monitoring = host.Services.GetServices<IHostedService>().OfType<MonitoringService>().FirstOrDefault();
        var imports = host.Services.GetServices<IHostedService>().OfType<HistoryImportService>().FirstOrDefault();
        try
        {
            await host.RunAsync();
        }
        catch (HistoryStoreException exception)
        {
            return Fail(ExitCodes.HistoryUnavailable, exception.Message);
        }

        // A history file found damaged while in use: a restart would fail the same way, so the code is the
        // start-up one for an unusable history (docs/deploy.md), which a service manager does not restart on.
        if ((monitoring?.Fault as HistoryStoreException ?? imports?.Fault) is { } unusable)
        {
            return Fail(ExitCodes.HistoryUnavailable, unusable.Message);
        }

        return monitoring?.Fault is { } fault
            ? Fail(ExitCodes.Failed, $"stopped on an unexpected error: {SqlServer.ConnectionStringRedactor.RedactMessage(fault.Message)}")
            : ExitCodes.Success;
    }

    private static int Fail(int exitCode, string message, IEnumerable<string>? details = null)
    {
        Console.Error.WriteLine($"backupxe-worker: {message}");
        foreach (var detail in details ?? [])
        {
            Console.Error.WriteLine($"  - {detail}");
        }

        return exitCode;
    }
}
