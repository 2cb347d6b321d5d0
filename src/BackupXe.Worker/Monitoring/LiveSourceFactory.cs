using BackupXe.Core.Events;
using BackupXe.SqlServer;
using BackupXe.Worker.Configuration;

namespace BackupXe.Worker.Monitoring;

/// <summary>
/// Opens each instance's source: a replay for ReplayPath, else the <c>file</c> transport on a live server
/// through the client layer, resuming from the instance's checkpoint in <paramref name="checkpoints"/>.
/// </summary>
public sealed class LiveSourceFactory(
    IInstanceSourceFactory replays,
    IEventFileCheckpointStore checkpoints,
    Func<string, ILiveSourceObserver> observers,
    TimeProvider time) : IInstanceSourceFactory
{
    public ITraceEventSource Open(InstanceOptions instance)
    {
        if (instance.HasReplay)
        {
            return replays.Open(instance);
        }

        var name = instance.Name!;
        return new EventFileLiveSource(
            name,
            new SqlConnectionFactory(LiveInstanceSettings.Build(instance)),
            // Files named after the session: a daemon that creates "Nightly" must not write into the BackupXe.xel files
            // of a default session on the same server (and read them back through its file pattern).
            new CaptureSessionSettings(instance.SessionName, instance.SessionName + ".xel"),
            instance.EnsureSession,
            new EventFileTailOptions { PollInterval = TimeSpan.FromSeconds(instance.PollIntervalSeconds), BatchSize = instance.BatchSize },
            checkpoints,
            TimeSpan.FromSeconds(instance.CheckpointIntervalSeconds),
            observers(name),
            time);
    }
}
