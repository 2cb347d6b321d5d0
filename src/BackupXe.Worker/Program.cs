using System.Reflection;
using BackupXe.History;
using BackupXe.Worker.Configuration;
using BackupXe.Worker.Hosting;
using BackupXe.Worker.Imports;
using BackupXe.Worker.Logging;
using BackupXe.Worker.Monitoring;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Serilog;

namespace BackupXe.Worker;

internal static class Program
{
    public static async Task<int> Main(string[] args)
    {
        if (args is ["--help" or "-h" or "-?"])
        {
            Console.Out.Write(Usage);
            return ExitCodes.Success;
        }

        if (args is ["--version"])
        {
            Console.Out.WriteLine(typeof(Program).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion ?? "unknown");
            return ExitCodes.Success;
        }

        if (args is ["--validate"] or ["--validate", _])
        {
            var path = args.Length == 2 ? args[1] : "appsettings.json";
            var check = ConfigurationCheck.Check(path);
            if (check.ExitCode != ExitCodes.Success)
            {
                return Fail(check.ExitCode, $"{Path.GetFullPath(path)} is not a valid configuration:", check.Problems);
            }

            Console.Out.WriteLine($"{Path.GetFullPath(path)}: valid ({check.InstanceCount} instance{(check.InstanceCount == 1 ? "" : "s")}); no connection was made");
            return ExitCodes.Success;
        }

        HostApplicationBuilder builder;
        try
        {
            builder = Host.CreateApplicationBuilder(ServiceHosting.Settings(args));
        }
        catch (DirectoryNotFoundException)
        {
            return Fail(ExitCodes.InvalidConfiguration, $"the content root '{ServiceHosting.ContentRoot(args, isWindowsService: false, AppContext.BaseDirectory)}' does not exist: give --contentRoot an existing folder, the one holding appsettings.json");
        }
        catch (Exception exception) when (exception is InvalidDataException or FormatException or System.Text.Json.JsonException)
        {
            // appsettings.json that is empty, truncated or not JSON: the provider's message names the file and
            // the line; its inner exception says what was wrong there.
            var reason = exception.InnerException is { } inner ? $"{exception.Message} {inner.Message}" : exception.Message;
            return Fail(ExitCodes.InvalidConfiguration, $"the configuration cannot be read: {reason}");
        }

        // Started from another folder, a service starts in System32 or /: say where the settings were looked for,
        // instead of the validation's "Instances is empty".
        var settingsFile = Path.Combine(builder.Environment.ContentRootPath, "appsettings.json");
        if (!File.Exists(settingsFile) && !builder.Configuration.GetSection("BackupXe:Instances").GetChildren().Any())
        {
            return Fail(ExitCodes.InvalidConfiguration,
                $"no appsettings.json in {builder.Environment.ContentRootPath} and no instance configured otherwise: start the worker in its folder or give --contentRoot FOLDER (docs/configuration.md)");
        }

        // A sink that fails (a log file that cannot be written, a server that refuses) reports to Serilog's own
        // diagnostic channel, which is silent unless enabled: standard error reaches the journal or the console.
        Serilog.Debugging.SelfLog.Enable(Console.Error);
        Serilog.Core.Logger serilog;
        try
        {
            serilog = new LoggerConfiguration().ReadFrom.Configuration(builder.Configuration).CreateLogger();
        }
        catch (Exception exception) when (exception is InvalidOperationException or ArgumentException or FormatException)
        {
            return Fail(ExitCodes.InvalidConfiguration, $"the Serilog section of the configuration is invalid: {exception.Message}");
        }
        catch (Exception exception) when (exception is FileNotFoundException or FileLoadException or BadImageFormatException)
        {
            // A sink named under "Using" whose assembly is not installed beside the worker: a configuration error,
            // so the service manager must not restart it for ever.
            return Fail(ExitCodes.InvalidConfiguration,
                $"the Serilog section names a sink that is not installed with the worker: {exception.Message} (docs/configuration.md, Logging)");
        }

        builder.Logging.ClearProviders();
        builder.Services.AddSerilog(serilog, dispose: true);
        builder.Services.AddServiceManagerLifetime();
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
                new SqlServer.Live.EventFile.ReadConcurrencyLimit(settings.MaxConcurrentReads));
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

        // Taken before the run: RunAsync disposes the host, and its services with it, when it returns.
        var monitoring = host.Services.GetServices<IHostedService>().OfType<MonitoringService>().FirstOrDefault();
        var imports = host.Services.GetServices<IHostedService>().OfType<HistoryImportService>().FirstOrDefault();
        var drills = host.Services.GetServices<IHostedService>().OfType<Drill.RestoreDrillService>().FirstOrDefault();
        var lifetime = host.Services.GetRequiredService<IHostApplicationLifetime>();
        try
        {
            await host.RunAsync();
        }
        catch (HistoryStoreException exception)
        {
            return Fail(ExitCodes.HistoryUnavailable, exception.Message);
        }
        catch (OperationCanceledException) when (lifetime.ApplicationStopping.IsCancellationRequested)
        {
            // A stop (SIGTERM, Ctrl-C, a service stop) while the host was still starting: the start it cancelled is
            // the stop asked for, not a failure.
            return ExitCodes.Success;
        }

        // A history file found damaged while in use: a restart would fail the same way, so the code is the
        // start-up one for an unusable history (docs/deploy.md), which a service manager does not restart on.
        if ((monitoring?.Fault as HistoryStoreException ?? imports?.Fault ?? drills?.Fault) is { } unusable)
        {
            return Fail(ExitCodes.HistoryUnavailable, unusable.Message);
        }

        return monitoring?.Fault is { } fault
            ? Fail(ExitCodes.Failed, $"stopped on an unexpected error: {SqlServer.ConnectionStringRedactor.RedactMessage(fault.Message)}")
            : ExitCodes.Success;
    }

    private const string Usage = """
        BackupXe.Worker: the BackupXe monitoring daemon. It watches the SQL Server instances (or replays the captures)
        listed in appsettings.json, keeps their backups and restores in a history, logs a diagnosis of each, raises
        regression warnings and exports metrics.

        Usage: BackupXe.Worker [--contentRoot FOLDER] [--environment NAME] [--KEY=VALUE ...]
               BackupXe.Worker --validate [FILE]
               BackupXe.Worker --help | --version

          --contentRoot FOLDER   where appsettings.json and the history file are (default: the current folder)
          --environment NAME     also reads appsettings.NAME.json (default: Production)
          --KEY=VALUE            any setting, e.g. --BackupXe:RetryDelaySeconds=60; environment variables
                                 BackupXe__RetryDelaySeconds=60 do the same
          --validate [FILE]      check the BackupXe section of FILE (default: appsettings.json) as the worker
                                 would at start-up, without connecting or writing anything; exit 0 or 2

        Exit codes: 0 stopped normally (Ctrl-C, SIGTERM, service stop); 1 stopped on an unexpected error;
        2 invalid configuration (each problem names its setting); 3 the history file cannot be used.
        Settings: docs/configuration.md. Running as a service: docs/deploy.md.

        """;

    private static int Fail(int exitCode, string message, IEnumerable<string>? details = null)
    {
        var text = new System.Text.StringBuilder($"backupxe-worker: {message}");
        foreach (var detail in details ?? [])
        {
            text.Append(Environment.NewLine).Append($"  - {detail}");
        }

        StartupFailureLog.Write(text.ToString(), exitCode);
        return exitCode;
    }
}
