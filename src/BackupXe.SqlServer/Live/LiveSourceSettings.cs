using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live.EventFile;
using BackupXe.SqlServer.Sessions;

namespace BackupXe.SqlServer.Live;

/// <summary>
/// What opening a live source needs, whichever transport reads it (<see cref="LiveSources.Open"/>). The defaults are
/// a one-off run's: <c>file</c>, the session left as it is, the position kept in memory for the run only.
/// </summary>
public sealed record LiveSourceSettings(SqlConnectionFactory Connections, CaptureSessionSettings Session)
{
    /// <summary>A <see cref="LiveTransport"/> name, as the CLI and the configuration spell it.</summary>
    public string Transport { get; init; } = LiveTransport.File;

    /// <summary>The key of the position in <see cref="Checkpoints"/>; the server's name when not set.</summary>
    public string? Instance { get; init; }

    /// <summary>Create and start the session when it is missing or stopped, and again after it is dropped.</summary>
    public bool EnsureSession { get; init; }

    /// <summary>The poll wait and batch of a <c>file</c> source; a <c>ring_buffer</c> source polls at the same wait.</summary>
    public EventFileTailOptions TailOptions { get; init; } = new();

    /// <summary>Where a <c>file</c> source keeps its position; in memory for this run when not set.</summary>
    public IEventFileCheckpointStore? Checkpoints { get; init; }

    /// <summary>How often the position is saved; zero saves it after every batch.</summary>
    public TimeSpan CheckpointInterval { get; init; }

    public ILiveSourceObserver? Observer { get; init; }

    public TimeProvider? Time { get; init; }

    /// <summary>The bound on reads in flight that <c>file</c> sources of one process share (the daemon's).</summary>
    public ReadConcurrencyLimit? ReadLimit { get; init; }
}
