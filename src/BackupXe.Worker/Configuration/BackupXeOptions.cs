using BackupXe.Core.Baselines;
using BackupXe.Core.Fleet;
using BackupXe.Core.History;

namespace BackupXe.Worker.Configuration;

/// <summary>The "BackupXe" configuration section (docs/configuration.md documents every key).</summary>
internal sealed class BackupXeOptions
{
    public const string SectionName = "BackupXe";

    /// <summary>The SQL Server instances (or replayed captures) to watch.</summary>
    public List<InstanceOptions> Instances { get; set; } = [];

    /// <summary>How long a failed instance waits before its source is opened again.</summary>
    public double RetryDelaySeconds { get; set; } = BackupXeOptionsDefaults.RetryDelaySeconds;

    /// <summary>Seconds a running operation may move no bytes, in one phase, before the quiet is logged (docs/live.md).</summary>
    public double StallAfterSeconds { get; set; } = BackupXeOptionsDefaults.StallAfterSeconds;

    /// <summary>
    /// How many reads of live <c>file</c> instances run at once, over all instances (each poll, and the session
    /// checks): the rest wait their turn instead of piling logins onto the driver (docs/performance.md).
    /// </summary>
    public int MaxConcurrentReads { get; set; } = BackupXeOptionsDefaults.MaxConcurrentReads;

    /// <summary>How many restore drills run at once over all instances (docs/configuration.md, "Restore drill windows").</summary>
    public int MaxConcurrentDrills { get; set; } = BackupXeOptionsDefaults.MaxConcurrentDrills;

    public HistoryOptions History { get; set; } = new();

    public RegressionOptions Regression { get; set; } = new();

    public MetricsOptions Metrics { get; set; } = new();

    /// <summary>The RPO and RTO targets each database is held to (docs/fleet.md, "Targets").</summary>
    public TargetsOptions Targets { get; set; } = new();
}

/// <summary>
/// One watched instance: either a live connection (ConnectionString, or Server with its security settings)
/// or a file replayed as if it were live (ReplayPath).
/// </summary>
internal sealed class InstanceOptions
{
    /// <summary>The name used in logs, history and the metrics "instance" tag; unique per daemon.</summary>
    public string? Name { get; set; }

    public string? ConnectionString { get; set; }

    /// <summary>Used to build a connection when <see cref="ConnectionString"/> is not given.</summary>
    public string? Server { get; set; }

    /// <summary>SqlClient's Authentication keyword value (e.g. ActiveDirectoryIntegrated); null = SQL/Windows default.</summary>
    public string? Authentication { get; set; }

    /// <summary>SqlClient encrypts by default; kept explicit because self-signed certificates are common.</summary>
    public bool Encrypt { get; set; } = BackupXeOptionsDefaults.Encrypt;

    public bool TrustServerCertificate { get; set; } = BackupXeOptionsDefaults.TrustServerCertificate;

    /// <summary>Encrypt=Strict (TDS 8.0): TLS first and the certificate always validated; SQL Server 2022+ and Azure SQL.</summary>
    public bool StrictEncryption { get; set; }

    /// <summary>The host name the server's certificate must carry when it is not <see cref="Server"/>; null: the server name.</summary>
    public string? HostNameInCertificate { get; set; }

    /// <summary>Create or alter the event session on start (needs ALTER ANY EVENT SESSION).</summary>
    public bool EnsureSession { get; set; } = BackupXeOptionsDefaults.EnsureSession;

    public string SessionName { get; set; } = BackupXeOptionsDefaults.SessionName;

    /// <summary>How a live instance is read: "file" (tail the session's event_file target, checkpointed).</summary>
    public string Transport { get; set; } = BackupXeOptionsDefaults.Transport;

    /// <summary>The SQL login (or Entra user) when <see cref="Authentication"/> needs one.</summary>
    public string? UserName { get; set; }

    /// <summary>
    /// The login's password or client secret. Supply it from the environment (BackupXe__Instances__N__Password)
    /// or another configuration provider, never in appsettings.json; it is never logged.
    /// </summary>
    public string? Password { get; set; }

    /// <summary>Wait after a read of the event_file that found nothing new.</summary>
    public double PollIntervalSeconds { get; set; } = BackupXeOptionsDefaults.PollIntervalSeconds;

    /// <summary>Rows per read of the event_file.</summary>
    public int BatchSize { get; set; } = BackupXeOptionsDefaults.BatchSize;

    /// <summary>At most one checkpoint write per this many seconds; a kill re-reads at most this much (deduplicated).</summary>
    public double CheckpointIntervalSeconds { get; set; } = BackupXeOptionsDefaults.CheckpointIntervalSeconds;

    /// <summary>A capture file read instead of a live connection, relative to the content root.</summary>
    public string? ReplayPath { get; set; }

    /// <summary>Multiple of real time at which a replay is paced; 0 replays as fast as it can be read.</summary>
    public double ReplaySpeed { get; set; } = BackupXeOptionsDefaults.ReplaySpeed;

    /// <summary>Periodic import of msdb and CommandLog history from this live instance; off unless IntervalMinutes is set.</summary>
    public HistoryImportOptions HistoryImport { get; set; } = new();

    /// <summary>Backup windows around which the daemon starts and stops the session (docs/configuration.md); none: read at all times.</summary>
    public CaptureWindowsOptions CaptureWindows { get; set; } = new();

    /// <summary>Restore drills of this instance's databases on another instance, in windows; off unless Databases is set.</summary>
    public RestoreDrillsOptions RestoreDrills { get; set; } = new();

    public bool HasLiveConnection
        => !string.IsNullOrWhiteSpace(ConnectionString) || !string.IsNullOrWhiteSpace(Server);

    public bool HasReplay => !string.IsNullOrWhiteSpace(ReplayPath);
}

/// <summary>The daemon's periodic `history import --server` for one live instance (docs/history.md).</summary>
internal sealed class HistoryImportOptions
{
    /// <summary>Minutes between imports; 0 turns the import off.</summary>
    public double IntervalMinutes { get; set; } = BackupXeOptionsDefaults.HistoryImportIntervalMinutes;

    /// <summary>Each import reads the backups that started in the last this many days (server local time).</summary>
    public double LookbackDays { get; set; } = BackupXeOptionsDefaults.HistoryImportLookbackDays;

    /// <summary>The database holding Ola Hallengren's dbo.CommandLog; null searches master, msdb and DBA databases.</summary>
    public string? CommandLogDatabase { get; set; }

    public bool Enabled => IntervalMinutes > 0;
}

/// <summary>
/// The capture windows of one live instance: the session is started <see cref="LeadMinutes"/> before each window, read
/// during it and stopped after it once no backup or restore runs (docs/live.md, "Capturing around backup windows").
/// </summary>
internal sealed class CaptureWindowsOptions
{
    /// <summary>The windows; empty turns arming off.</summary>
    public List<CaptureWindowOptions> Windows { get; set; } = [];

    /// <summary>An IANA or Windows time zone id the rules are read in; null: the daemon machine's local time zone.</summary>
    public string? TimeZone { get; set; }

    /// <summary>Minutes before each window that the session is started.</summary>
    public double LeadMinutes { get; set; } = BackupXeOptionsDefaults.CaptureLeadMinutes;

    public bool Enabled => Windows.Count > 0;
}

/// <summary>One backup window: when it opens (a cron rule) and how long it lasts.</summary>
internal sealed class CaptureWindowOptions
{
    /// <summary>A five-field cron rule (minute hour day-of-month month day-of-week), e.g. "0 22 * * 1-5".</summary>
    public string? Start { get; set; }

    /// <summary>How long the window lasts, in minutes; required (0, the unset value, is refused).</summary>
    public double DurationMinutes { get; set; }
}

/// <summary>Where completed operations are kept.</summary>
internal sealed class HistoryOptions
{
    /// <summary>"sqlite" (a local file) or "sqlserver" (a central repository table).</summary>
    public string Provider { get; set; } = BackupXeOptionsDefaults.HistoryProvider;

    /// <summary>The SQLite file, relative to the content root.</summary>
    public string? Path { get; set; } = BackupXeOptionsDefaults.HistoryPath;

    /// <summary>The central repository when Provider is "sqlserver".</summary>
    public string? ConnectionString { get; set; }

    /// <summary>With "sqlserver": how long an instance's lease lasts unless renewed (renewed every third of it).</summary>
    public int LeaseSeconds { get; set; } = BackupXeOptionsDefaults.LeaseSeconds;
}

/// <summary>When a completed operation counts as a throughput regression.</summary>
internal sealed class RegressionOptions
{
    /// <summary>How many of the most recent comparable operations form the baseline.</summary>
    public int WindowSize { get; set; } = BackupXeOptionsDefaults.RegressionWindowSize;

    /// <summary>No verdict until the baseline has at least this many operations.</summary>
    public int MinimumSamples { get; set; } = BackupXeOptionsDefaults.RegressionMinimumSamples;

    /// <summary>A throughput below this fraction of the baseline median is a regression.</summary>
    public double ThresholdRatio { get; set; } = BackupXeOptionsDefaults.RegressionThresholdRatio;

    /// <summary>These settings as the one history rule takes them.</summary>
    public BaselineComparisonSettings ToComparisonSettings()
        => new() { Window = WindowSize, MinimumRuns = MinimumSamples, ThresholdRatio = ThresholdRatio };
}

internal sealed class MetricsOptions
{
    /// <summary>OTLP collector address (e.g. http://localhost:4317); metrics are not exported when unset.</summary>
    public string? OtlpEndpoint { get; set; }
}

/// <summary>The recovery targets: defaults, and rules for some databases; minutes, 0 for none.</summary>
internal sealed class TargetsOptions
{
    /// <summary>The RPO target of every database no rule sets one for; 0: none.</summary>
    public double RpoMinutes { get; set; } = BackupXeOptionsDefaults.TargetRpoMinutes;

    /// <summary>The RTO target of every database no rule sets one for; 0: none.</summary>
    public double RtoMinutes { get; set; } = BackupXeOptionsDefaults.TargetRtoMinutes;

    /// <summary>Targets of the databases a rule matches; the most specific matching rule wins, per target.</summary>
    public List<TargetRuleOptions> Rules { get; set; } = [];

    /// <summary>
    /// A database name pattern (* and ?) whose databases get series of their own (backupxe.fleet.database.*); null: none,
    /// only the per-instance gauges. Opt-in, because each series is one more for the metrics store to keep.
    /// </summary>
    public string? DatabaseSeries { get; set; }

    /// <summary>At most this many databases per instance get series (the first by name): the cardinality's bound.</summary>
    public int MaxDatabaseSeries { get; set; } = BackupXeOptionsDefaults.MaxDatabaseSeries;

    /// <summary>The rules as the targets' checks and matching take them.</summary>
    public List<(string? Instance, string? Database, string? RecoveryModel, double RpoMinutes, double RtoMinutes)> RuleValues()
        => Rules.Select(r => (r.Instance, r.Database, r.RecoveryModel, r.RpoMinutes, r.RtoMinutes)).ToList();

    /// <summary>These settings as the compliance rule takes them (checked first by the validator).</summary>
    public RecoveryTargets ToTargets() => RecoveryTargets.FromMinutes(RpoMinutes, RtoMinutes, RuleValues());
}

/// <summary>One rule: which databases (null matches any) and their targets (0 leaves it to a less specific rule).</summary>
internal sealed class TargetRuleOptions
{
    /// <summary>An instance name as BackupXe:Instances names it.</summary>
    public string? Instance { get; set; }

    /// <summary>A database name pattern: * any run of characters, ? one; without case.</summary>
    public string? Database { get; set; }

    /// <summary>FULL, BULK_LOGGED or SIMPLE.</summary>
    public string? RecoveryModel { get; set; }

    public double RpoMinutes { get; set; }

    public double RtoMinutes { get; set; }
}
