using BackupXe.Core.Reporting;

namespace BackupXe.Core.Tuning;

/// <summary>What the plan reads from a server, read-only: the database's facts and whether another backup or restore of it runs.</summary>
public interface ITuningServer
{
    Task<TuningFacts> DescribeAsync(string database, CancellationToken cancellationToken);

    /// <summary>Another BACKUP or RESTORE of <paramref name="database"/> is running (sys.dm_exec_requests).</summary>
    Task<bool> BackupOrRestoreRunningAsync(string database, CancellationToken cancellationToken);
}

/// <summary>
/// A server that can also run trials and delete their files: the only way the tuner writes anything. Tests use a
/// simulated one (tests/BackupXe.Tests/Tuning).
/// </summary>
public interface ITrialHost : ITuningServer
{
    /// <summary>Free bytes on the volume of <paramref name="directory"/> as the server sees it; null when it cannot tell.</summary>
    Task<long?> FreeBytesAsync(string directory, CancellationToken cancellationToken);

    Task<bool> FileExistsAsync(string path, CancellationToken cancellationToken);

    /// <summary>
    /// Runs <paramref name="statement"/> (a COPY_ONLY BACKUP), captured like any other operation, and stops it after
    /// <paramref name="window"/> if it has not finished. On cancellation it stops the backup before returning.
    /// </summary>
    Task<TrialCapture> RunTrialAsync(TrialStatement statement, TimeSpan window, CancellationToken cancellationToken);

    Task DeleteFileAsync(string path, CancellationToken cancellationToken);
}

/// <summary>
/// One trial as the server ran it: the captured operation (buffer configuration, effective options, waits, progress),
/// the block size msdb recorded for it (null for a trial stopped before it finished: no history row), and the wall time.
/// </summary>
public sealed record TrialCapture(OperationReport Operation, int? EffectiveBlockSizeBytes, double WallSeconds, bool Finished);
