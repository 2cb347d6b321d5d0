using BackupXe.SqlServer;
using BackupXe.SqlServer.Live.EventFile;

namespace BackupXe.Cli.Commands;

/// <summary>
/// The position of one <c>watch --server</c> run, kept in memory only: a watch starts with nothing saved, so it reads
/// the capture session's retained event files from the oldest one, and a reconnect inside the run resumes where it was.
/// </summary>
internal sealed class WatchCheckpoints : IEventFileCheckpointStore
{
    private EventFileCheckpoint? _saved;

    public Task<EventFileCheckpoint?> LoadAsync(string instance, CancellationToken cancellationToken) => Task.FromResult(_saved);

    public Task SaveAsync(string instance, EventFileCheckpoint checkpoint, CancellationToken cancellationToken)
    {
        _saved = checkpoint;
        return Task.CompletedTask;
    }
}
