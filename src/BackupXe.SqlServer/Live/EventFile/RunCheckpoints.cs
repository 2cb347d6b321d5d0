namespace BackupXe.SqlServer.Live.EventFile;

/// <summary>
/// The position of one run (a <c>watch --server</c>, a tune's trials), kept in memory only: a run starts with nothing
/// saved, so it reads the capture session's retained event files from the oldest one, and a reconnect inside the run
/// resumes where it was.
/// </summary>
internal sealed class RunCheckpoints : IEventFileCheckpointStore
{
    private EventFileCheckpoint? _saved;

    public Task<EventFileCheckpoint?> LoadAsync(string instance, CancellationToken cancellationToken) => Task.FromResult(_saved);

    public Task SaveAsync(string instance, EventFileCheckpoint checkpoint, CancellationToken cancellationToken)
    {
        _saved = checkpoint;
        return Task.CompletedTask;
    }
}
