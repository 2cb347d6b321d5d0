using System.Globalization;
using BackupXe.Sources;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Sessions;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;

namespace BackupXe.Worker.Configuration;

/// <summary>
/// Checks the whole section at start-up. Every message names the setting as it is written in configuration
/// (BackupXe:Instances:2:Name) so that a user can find the line to fix.
/// </summary>
/// <param name="environment">
/// Its content root resolves ReplayPath, which is then checked to exist and to be a format BackupXe reads; without
/// one (unit tests of the rules alone) the files are not looked at.
/// </param>
internal sealed class BackupXeOptionsValidator(IHostEnvironment? environment = null) : IValidateOptions<BackupXeOptions>
{
    private const double MaxHistoryImportIntervalMinutes = 7 * 24 * 60;
    private const double MaxHistoryImportLookbackDays = 3650;

    private const string Section = BackupXeOptions.SectionName;

    /// <summary>A day: a longer pause between retries is a typo, and 1e300 seconds overflows every timer.</summary>
    public const double MaxRetryDelaySeconds = 86_400;

    /// <summary>Far beyond any useful baseline, and small enough that the baseline query stays cheap.</summary>
    public const int MaxWindowSize = 10_000;

    /// <summary>Beyond this the bound no longer protects the driver's thread pool (docs/performance.md).</summary>
    public const int MaxConcurrentReadsLimit = 1_024;

    /// <summary>Said whenever a setting would need the SQL Server client libraries this build cannot restore.</summary>
    public const string MissingSqlClient =
        "this build of BackupXe has no Microsoft.Data.SqlClient or XELite (the package mirror cannot supply them)";

    public ValidateOptionsResult Validate(string? name, BackupXeOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return ValidateAll(options);
    }

    private ValidateOptionsResult ValidateAll(BackupXeOptions options)
    {
        var failures = new List<string>();
        ValidateInstances(options.Instances, failures);
        ValidateHistoryImports(options, failures);
        ValidateRestoreDrills(options, failures);
        ValidateRetryDelay(options.RetryDelaySeconds, failures);
        ValidateStallAfter(options.StallAfterSeconds, failures);
        ValidateMaxConcurrentReads(options.MaxConcurrentReads, failures);
        ValidateHistory(options.History, failures);
        ValidateRegression(options.Regression, failures);
        ValidateMetrics(options.Metrics, failures);
        failures.AddRange(Core.Fleet.RecoveryTargets.Problems($"{Section}:Targets", options.Targets.RpoMinutes, options.Targets.RtoMinutes, options.Targets.RuleValues()));
        ValidateDatabaseSeries(options.Targets, failures);
        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }

    private static void ValidateDatabaseSeries(TargetsOptions targets, List<string> failures)
    {
        if (targets.DatabaseSeries is { } pattern && Core.Fleet.NamePattern.Problem(pattern) is { } problem)
        {
            failures.Add($"{Section}:Targets:DatabaseSeries {problem}.");
        }

        if (targets.MaxDatabaseSeries is < 1 or > BackupXeOptionsDefaults.MaxDatabaseSeriesLimit)
        {
            failures.Add(string.Create(CultureInfo.InvariantCulture,
                $"{Section}:Targets:MaxDatabaseSeries must be from 1 to {BackupXeOptionsDefaults.MaxDatabaseSeriesLimit}; it is {targets.MaxDatabaseSeries}."));
        }
    }

    private void ValidateInstances(List<InstanceOptions> instances, List<string> failures)
    {
        if (instances.Count == 0)
        {
            failures.Add($"{Section}:Instances is empty: configure at least one instance to monitor.");
            return;
        }

        var firstIndexByName = new Dictionary<string, int>(StringComparer.OrdinalIgnoreCase);
        for (var index = 0; index < instances.Count; index++)
        {
            var instance = instances[index];
            var key = $"{Section}:Instances:{index}";

            if (string.IsNullOrWhiteSpace(instance.Name))
            {
                failures.Add($"{key}:Name is required.");
            }
            else if (firstIndexByName.TryGetValue(instance.Name, out var first))
            {
                failures.Add($"{key}:Name '{instance.Name}' is already used by {Section}:Instances:{first}:Name; instance names must be unique.");
            }
            else
            {
                firstIndexByName.Add(instance.Name, index);
            }

            if (instance.HasLiveConnection && instance.HasReplay)
            {
                failures.Add($"{key} has both a live connection (ConnectionString/Server) and {key}:ReplayPath; set only one.");
            }
            else if (instance.HasLiveConnection)
            {
                failures.AddRange(LiveInstanceSettings.Problems(instance, key));
            }
            else if (!instance.HasReplay)
            {
                failures.Add($"{key} has no source: set {key}:Server (or ConnectionString) for a live instance, or {key}:ReplayPath.");
            }

            if (string.IsNullOrWhiteSpace(instance.SessionName))
            {
                failures.Add($"{key}:SessionName must not be empty (default '{BackupXeOptionsDefaults.SessionName}').");
            }
            else if (!SessionName.IsValid(instance.SessionName))
            {
                failures.Add($"{key}:SessionName is not valid: use {SessionName.Rule}.");
            }
            else if (instance.EnsureSession && !SessionName.IsCreatable(instance.SessionName))
            {
                // EnsureSession creates the session when it is missing; a session only read may have any sysname.
                failures.Add($"{key}:SessionName '{instance.SessionName}' can be read but not created by BackupXe ({key}:EnsureSession): "
                    + $"a session it creates is named with {SessionName.CreateRule}.");
            }

            if (!double.IsFinite(instance.ReplaySpeed) || !ReplayEventSource.IsValidSpeed(instance.ReplaySpeed))
            {
                failures.Add($"{key}:ReplaySpeed {ReplayEventSource.SpeedRule}; it is {instance.ReplaySpeed}.");
            }

            if (instance.HasReplay && !instance.HasLiveConnection)
            {
                ValidateReplayPath(key, instance.ReplayPath!, failures);
            }

            ValidateCaptureWindows(instance, key, failures);
        }
    }

    /// <summary>
    /// Arming starts and stops the session on the server: a write, so it needs the same opt-in as creating the
    /// session (EnsureSession), and a live instance whose transport reads a session BackupXe may start.
    /// </summary>
    private static void ValidateCaptureWindows(InstanceOptions instance, string key, List<string> failures)
    {
        var windows = instance.CaptureWindows;
        var at = $"{key}:CaptureWindows";
        if (!windows.Enabled)
        {
            return;
        }

        if (!instance.HasLiveConnection)
        {
            failures.Add($"{at} starts and stops a live server's session: it needs {key}:Server (or ConnectionString), not a replay.");
        }
        else if (!instance.EnsureSession)
        {
            failures.Add($"{at} starts and stops the session on the server, a change: allow it with {key}:EnsureSession true (the daemon's opt-in to changing the session).");
        }

        failures.AddRange(CaptureSchedule.From(windows, at).Problems);
    }

    private static void ValidateRestoreDrills(BackupXeOptions options, List<string> failures)
    {
        for (var index = 0; index < options.Instances.Count; index++)
        {
            failures.AddRange(RestoreDrillsOptions.Problems(options.Instances[index], options.Instances, $"{Section}:Instances:{index}:RestoreDrills"));
        }

        if (options.MaxConcurrentDrills is < 1 or > BackupXeOptionsDefaults.MaxConcurrentDrillsLimit)
        {
            failures.Add(string.Create(CultureInfo.InvariantCulture,
                $"{Section}:MaxConcurrentDrills must be from 1 to {BackupXeOptionsDefaults.MaxConcurrentDrillsLimit}; it is {options.MaxConcurrentDrills}."));
        }
    }

    private static void ValidateHistoryImports(BackupXeOptions options, List<string> failures)
    {
        for (var index = 0; index < options.Instances.Count; index++)
        {
            var import = options.Instances[index].HistoryImport;
            var key = $"{Section}:Instances:{index}:HistoryImport";
            if (!double.IsFinite(import.IntervalMinutes) || import.IntervalMinutes < 0 || import.IntervalMinutes > MaxHistoryImportIntervalMinutes)
            {
                failures.Add($"{key}:IntervalMinutes must be 0 (off) or greater, at most {MaxHistoryImportIntervalMinutes} (a week); it is {import.IntervalMinutes.ToString(CultureInfo.InvariantCulture)}.");
            }

            if (!double.IsFinite(import.LookbackDays) || import.LookbackDays <= 0 || import.LookbackDays > MaxHistoryImportLookbackDays)
            {
                failures.Add($"{key}:LookbackDays must be greater than 0 and at most {MaxHistoryImportLookbackDays}; it is {import.LookbackDays.ToString(CultureInfo.InvariantCulture)}.");
            }

            if (import.CommandLogDatabase is { } database && (database.Trim().Length == 0 || database.Length > 128))
            {
                failures.Add($"{key}:CommandLogDatabase must be a database name of 1 to 128 characters.");
            }

            if (!import.Enabled)
            {
                continue;
            }

            if (!options.Instances[index].HasLiveConnection)
            {
                failures.Add($"{key}:IntervalMinutes is set but {Section}:Instances:{index} has no live connection (Server or ConnectionString): history is imported from a server.");
            }
        }
    }

    // A replay that is missing or unreadable would pass start-up and then fail, wait and fail again forever.
    private void ValidateReplayPath(string key, string replayPath, List<string> failures)
    {
        if (environment is null)
        {
            return;
        }

        var path = Path.GetFullPath(replayPath, environment.ContentRootPath);

        // Opening a named pipe waits for a writer, which would hold start-up for ever; a pipe, a device and an
        // empty file all report a length of 0, and none of them is a capture to replay.
        if (File.Exists(path) && new FileInfo(path).Length == 0)
        {
            failures.Add($"{key}:ReplayPath '{replayPath}' cannot be replayed: it is empty, or not a regular file (a pipe or a device).");
            return;
        }

        var recognised = InputSources.Recognise(path);
        if (recognised.Problem is not null)
        {
            failures.Add($"{key}:ReplayPath '{replayPath}' cannot be replayed: {recognised.Problem}.");
        }
    }

    private static void ValidateRetryDelay(double seconds, List<string> failures)
    {
        if (!double.IsFinite(seconds) || seconds <= 0 || seconds > MaxRetryDelaySeconds)
        {
            failures.Add($"{Section}:RetryDelaySeconds must be greater than 0 and at most {MaxRetryDelaySeconds} (a day); it is {seconds}.");
        }
    }

    private static void ValidateStallAfter(double seconds, List<string> failures)
    {
        if (!(seconds is >= 1 and <= MaxRetryDelaySeconds))
        {
            failures.Add($"{Section}:StallAfterSeconds must be from 1 to {MaxRetryDelaySeconds} (a day); it is {seconds}.");
        }
    }

    private static void ValidateMaxConcurrentReads(int reads, List<string> failures)
    {
        if (reads is < 1 or > MaxConcurrentReadsLimit)
        {
            failures.Add($"{Section}:MaxConcurrentReads must be from 1 to {MaxConcurrentReadsLimit}; it is {reads}.");
        }
    }

    private static void ValidateHistory(HistoryOptions history, List<string> failures)
    {
        var key = $"{Section}:History";
        if (string.Equals(history.Provider, HistoryProviders.Sqlite, StringComparison.OrdinalIgnoreCase))
        {
            if (string.IsNullOrWhiteSpace(history.Path))
            {
                failures.Add($"{key}:Path is required when {key}:Provider is '{HistoryProviders.Sqlite}'.");
            }
        }
        else if (string.Equals(history.Provider, HistoryProviders.SqlServer, StringComparison.OrdinalIgnoreCase))
        {
            if (string.IsNullOrWhiteSpace(history.ConnectionString))
            {
                failures.Add($"{key}:ConnectionString is required when {key}:Provider is '{HistoryProviders.SqlServer}'.");
            }
            else
            {
                failures.AddRange(LiveInstanceSettings.Problems(new InstanceOptions { Name = LiveInstanceSettings.HistoryStoreName, ConnectionString = history.ConnectionString }, key));
            }

            if (history.LeaseSeconds is < BackupXeOptionsDefaults.MinLeaseSeconds or > BackupXeOptionsDefaults.MaxLeaseSeconds)
            {
                failures.Add($"{key}:LeaseSeconds must be from {BackupXeOptionsDefaults.MinLeaseSeconds} to {BackupXeOptionsDefaults.MaxLeaseSeconds}; it is {history.LeaseSeconds}.");
            }
        }
        else
        {
            failures.Add($"{key}:Provider must be '{HistoryProviders.Sqlite}' or '{HistoryProviders.SqlServer}'; it is '{history.Provider}'.");
        }
    }

    private static void ValidateRegression(RegressionOptions regression, List<string> failures)
    {
        var key = $"{Section}:Regression";
        if (regression.WindowSize is < 1 or > MaxWindowSize)
        {
            failures.Add($"{key}:WindowSize must be from 1 to {MaxWindowSize}; it is {regression.WindowSize}.");
        }

        if (regression.MinimumSamples < 1)
        {
            failures.Add($"{key}:MinimumSamples must be at least 1; it is {regression.MinimumSamples}.");
        }
        else if (regression.MinimumSamples > regression.WindowSize && regression.WindowSize >= 1)
        {
            failures.Add($"{key}:MinimumSamples ({regression.MinimumSamples}) cannot exceed {key}:WindowSize ({regression.WindowSize}): no regression could ever be reported.");
        }

        if (!double.IsFinite(regression.ThresholdRatio) || regression.ThresholdRatio <= 0 || regression.ThresholdRatio >= 1)
        {
            failures.Add($"{key}:ThresholdRatio must be between 0 and 1 exclusive (0.7 = warn below 70% of the median); it is {regression.ThresholdRatio}.");
        }
    }

    private static void ValidateMetrics(MetricsOptions metrics, List<string> failures)
    {
        if (string.IsNullOrWhiteSpace(metrics.OtlpEndpoint))
        {
            return;
        }

        if (!Uri.TryCreate(metrics.OtlpEndpoint, UriKind.Absolute, out var endpoint)
            || (endpoint.Scheme != Uri.UriSchemeHttp && endpoint.Scheme != Uri.UriSchemeHttps))
        {
            // The value itself is not echoed: an endpoint is where credentials get pasted (user:password@host).
            failures.Add($"{Section}:Metrics:OtlpEndpoint must be an absolute http or https address such as http://localhost:4317; it is '{Scrubbed(metrics.OtlpEndpoint)}'.");
        }
        else if (!string.IsNullOrEmpty(endpoint.UserInfo))
        {
            failures.Add($"{Section}:Metrics:OtlpEndpoint must not carry a user name or password ('{Scrubbed(metrics.OtlpEndpoint)}'): "
                + "the address is logged; give the collector's credentials through OTEL_EXPORTER_OTLP_HEADERS instead.");
        }
    }

    /// <summary>The address with anything before an '@' (user:password) and any query masked.</summary>
    private static string Scrubbed(string endpoint)
    {
        var text = ConnectionStringRedactor.RedactMessage(endpoint);
        var at = text.LastIndexOf('@');
        if (at >= 0)
        {
            var scheme = text.IndexOf("://", StringComparison.Ordinal);
            var start = scheme >= 0 && scheme < at ? scheme + 3 : 0;
            text = string.Concat(text.AsSpan(0, start), "***", text.AsSpan(at));
        }

        var query = text.IndexOf('?');
        return query >= 0 ? text[..query] + "?***" : text;
    }
}
