using BackupXe.Core.Baselines;
using BackupXe.History;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Sessions;

namespace BackupXe.Worker.Configuration;

/// <summary>The defaults of <see cref="BackupXeOptions"/>, named so that docs and tests can refer to them.</summary>
internal static class BackupXeOptionsDefaults
{
    /// <summary>Long enough not to hammer a server that is down, short enough to resume within a minute.</summary>
    public const double RetryDelaySeconds = 30;

    /// <summary>Five minutes without bytes moving: longer than any gap between percent lines of a healthy copy (docs/live.md).</summary>
    public const double StallAfterSeconds = 300;

    /// <summary>
    /// Sixteen: enough for 1,000 instances at 3,000 events/min each on a 2-core machine, few enough that logins
    /// never queue in SqlClient's managed network layer past the handshake timeout (measured: docs/performance.md).
    /// </summary>
    public const int MaxConcurrentReads = 16;

    public const bool Encrypt = true;
    public const bool TrustServerCertificate = false;
    public const bool EnsureSession = false;
    public const string SessionName = "BackupXe";
    public const double ReplaySpeed = 0;

    public const string Transport = LiveTransport.File;

    /// <summary>The session flushes every 2 s (MAX_DISPATCH_LATENCY), so a 1 s poll adds at most about a second.</summary>
    public const double PollIntervalSeconds = 1;

    public const int BatchSize = 2_000;

    public const double CheckpointIntervalSeconds = 5;

    /// <summary>Off: a periodic import is a choice per instance (it queries msdb on the watched server).</summary>
    public const double HistoryImportIntervalMinutes = 0;

    /// <summary>Two days: a daily import overlaps the previous one, and the overlap merges (a re-import adds no rows).</summary>
    public const double HistoryImportLookbackDays = 2;

    /// <summary>Five minutes: a job that starts a little early is still captured from its first event.</summary>
    public const double CaptureLeadMinutes = 5;

    /// <summary>A day: the targets when none are set hold every database to a backup a day (docs/fleet.md).</summary>
    public const double TargetRpoMinutes = 24 * 60;

    /// <summary>None: a restore time is a business's choice, shown but not judged until set.</summary>
    public const double TargetRtoMinutes = 0;

    /// <summary>Twenty databases per instance: their own series stay a small multiple of the instances (docs/metrics.md).</summary>
    public const int MaxDatabaseSeries = 20;

    /// <summary>The most MaxDatabaseSeries accepts: past it, a per-database series is a store's problem, not a gauge.</summary>
    public const int MaxDatabaseSeriesLimit = 500;

    /// <summary>The CLI's --since default: long enough to hold a weekly full backup and its logs.</summary>
    public const double DrillLookbackDays = 30;

    /// <summary>One drill at a time over the whole daemon: a drill writes a whole database on its target.</summary>
    public const int MaxConcurrentDrills = 1;

    public const int MaxConcurrentDrillsLimit = 64;

    public const string HistoryProvider = HistoryProviders.Sqlite;
    public const string HistoryPath = SqliteHistoryStore.DefaultPath;

    public const int LeaseSeconds = 90;

    /// <summary>Renewed every third of it, a lease under 3 s would be renewed more often than once a second.</summary>
    public const int MinLeaseSeconds = 3;

    /// <summary>An hour: past it, a dead daemon's instances go unwatched too long.</summary>
    public const int MaxLeaseSeconds = 3600;

    public const int RegressionWindowSize = BaselineComparisonSettings.DefaultWindow;
    public const int RegressionMinimumSamples = BaselineComparisonSettings.DefaultMinimumRuns;
    public const double RegressionThresholdRatio = BaselineComparisonSettings.DefaultThresholdRatio;
}

internal static class HistoryProviders
{
    public const string Sqlite = "sqlite";
    public const string SqlServer = "sqlserver";
}
