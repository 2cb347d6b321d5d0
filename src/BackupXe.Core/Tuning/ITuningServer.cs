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
/// A server that can also run trials: the only way the tuner writes anything. Tests use a simulated one
/// (tests/BackupXe.Tests/Tuning); a live server is <c>LiveTrialHost</c>.
/// </summary>
public interface ITrialHost : ITuningServer
{
    /// <summary>
    /// Whether this host deletes trial files itself. A live server cannot (no documented, least-privilege T-SQL deletes a
    /// file), so the tuner keeps them and lists them for the DBA.
    /// </summary>
    bool DeletesFiles { get; }

    /// <summary>What stops any trial from running (a missing permission, the capture not running), one line each; empty when ready.</summary>
    Task<IReadOnlyList<string>> CheckReadyAsync(TuneRequest request, CancellationToken cancellationToken);

    /// <summary>Free bytes on the volume of <paramref name="directory"/> as the server sees it, or why it cannot tell.</summary>
    Task<FreeSpace> FreeSpaceAsync(string directory, CancellationToken cancellationToken);

    /// <summary>
    /// True when <paramref name="path"/> exists; null when the host cannot tell (then the trial statement's own
    /// MEDIANAME check makes the server refuse an existing file, see <see cref="TrialStatement"/>).
    /// </summary>
    Task<bool?> FileExistsAsync(string path, CancellationToken cancellationToken);

    /// <summary>
    /// Runs <paramref name="statement"/> (a COPY_ONLY BACKUP), captured like any other operation, and stops it after
    /// <paramref name="window"/> if it has not finished. On cancellation it stops the backup, and confirms it ended,
    /// before returning. A backup the server refused or failed throws <see cref="TrialFailedException"/>.
    /// </summary>
    Task<TrialCapture> RunTrialAsync(TrialStatement statement, TimeSpan window, CancellationToken cancellationToken);

    /// <summary>Only called when <see cref="DeletesFiles"/>.</summary>
    Task DeleteFileAsync(string path, CancellationToken cancellationToken);
}

/// <summary>
/// A server that can also run restore trials (<c>tune --restore</c>): each restores a complete backup into a new scratch
/// database and drops it. Only a host that implements this runs them.
/// </summary>
public interface IRestoreTrialHost : ITrialHost
{
    /// <summary>What stops a restore trial (the login's CREATE DATABASE permission, which RESTORE needs for a new database); empty when ready.</summary>
    Task<IReadOnlyList<string>> CheckRestoreReadyAsync(CancellationToken cancellationToken);

    /// <summary>The backup's logical files (RESTORE FILELISTONLY). A backup the server cannot read throws <see cref="TrialFailedException"/>.</summary>
    Task<IReadOnlyList<BackupFileEntry>> FileListAsync(IReadOnlyList<string> from, CancellationToken cancellationToken);

    /// <summary>True when a database of that name exists (DB_ID).</summary>
    Task<bool> DatabaseExistsAsync(string name, CancellationToken cancellationToken);

    /// <summary>Enabled, disabled, or null when the server does not say (sys.dm_server_services).</summary>
    Task<bool?> InstantFileInitializationAsync(CancellationToken cancellationToken);

    /// <summary>
    /// Runs the RESTORE, captured like any operation, and stops it after <paramref name="window"/> if it has not finished;
    /// on cancellation it stops it, and confirms it ended, first. A restore the server refused or failed throws
    /// <see cref="TrialFailedException"/>.
    /// </summary>
    Task<TrialCapture> RunRestoreAsync(RestoreTrialStatement statement, TimeSpan window, CancellationToken cancellationToken);

    /// <summary>Drops the scratch database (its files go with it); null when done, else why not.</summary>
    Task<string?> DropAsync(RestoreTrialStatement statement, CancellationToken cancellationToken);
}

/// <summary>
/// One trial as the server ran it: the captured operation (buffer configuration, effective options, waits, progress),
/// the block size msdb recorded for it (null for a trial stopped before it finished: no history row), and the wall time.
/// </summary>
public sealed record TrialCapture(OperationReport Operation, int? EffectiveBlockSizeBytes, double WallSeconds, bool Finished)
{
    /// <summary>
    /// sys.dm_exec_requests.percent_complete of the trial's request, sampled while it ran: a rate where the capture's
    /// progress is too sparse (a large database whose percent messages are far apart); empty when not sampled.
    /// </summary>
    public IReadOnlyList<PercentSample> PercentSamples { get; init; } = [];

    /// <summary>The finished trial's msdb backupset row (its size and duration); null for a stopped trial or without SELECT on msdb.</summary>
    public BackupSetFigures? History { get; init; }
}

/// <summary>One reading of sys.dm_exec_requests.percent_complete (0 to 100) at the server's clock.</summary>
public sealed record PercentSample(DateTime At, double PercentComplete);

/// <summary>A finished backup's size (backupset.backup_size, bytes read) and duration (finish less start, whole seconds) as msdb recorded them.</summary>
public sealed record BackupSetFigures(long Bytes, double Seconds);

/// <summary>Free bytes of a directory's volume; null with the reason when the server cannot say.</summary>
public sealed record FreeSpace(long? Bytes, string? Unknown = null)
{
    public static FreeSpace Of(long bytes) => new(bytes);

    public static FreeSpace CannotTell(string why) => new(null, why);
}

/// <summary>A trial the server refused, failed, or ran without a capture: the tune stops with the server's reason.</summary>
public sealed class TrialFailedException : Exception
{
    public TrialFailedException()
    {
    }

    public TrialFailedException(string message)
        : base(message)
    {
    }

    public TrialFailedException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}

/// <summary>
/// A trial file left on the server: its exact path and at most how many bytes it holds (null when unknown), and the
/// tune's media set it belongs to: the files of one media set hold together at most what one of them may.
/// </summary>
public sealed record KeptTrialFile(string Path, long? BytesAtMost)
{
    /// <summary>The media set (MEDIANAME) the file belongs to; null when it is a set of its own.</summary>
    public string? MediaName { get; init; }
}
