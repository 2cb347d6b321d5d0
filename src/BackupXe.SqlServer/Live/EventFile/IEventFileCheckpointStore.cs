namespace BackupXe.SqlServer.Live.EventFile;

/// <summary>Durable per-instance positions of the <c>file</c> transport (the worker keeps them beside its history).</summary>
public interface IEventFileCheckpointStore
{
    /// <summary>The last saved position of <paramref name="instance"/>, or null when it has none yet.</summary>
    Task<EventFileCheckpoint?> LoadAsync(string instance, CancellationToken cancellationToken);

    /// <summary>Replaces the saved position; atomic, so a kill leaves either the old one or the new one.</summary>
    Task SaveAsync(string instance, EventFileCheckpoint checkpoint, CancellationToken cancellationToken);
}
