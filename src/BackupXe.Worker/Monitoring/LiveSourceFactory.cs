using BackupXe.Core.Events;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Live.EventFile;
using BackupXe.SqlServer.Live.EventStream;
using BackupXe.SqlServer.Live.RingBuffer;
using BackupXe.SqlServer.Sessions;
using BackupXe.Worker.Configuration;

namespace BackupXe.Worker.Monitoring;

/// <summary>
/// Opens each instance's source: a replay for ReplayPath, else its transport on a live server through the client
/// layer: <c>file</c> resuming from the instance's checkpoint in <paramref name="checkpoints"/>, or the experimental
/// <c>stream</c>, which has no position to keep and reports what it lost while disconnected. Every <c>file</c> instance
/// shares <paramref name="readLimit"/>, the daemon's bound on reads in flight; a <c>stream</c> instance holds its one
/// connection open for good, so it takes no slot (it would keep it forever).
/// </summary>
internal sealed class LiveSourceFactory(
    IInstanceSourceFactory replays,
    IEventFileCheckpointStore checkpoints,
    Func<string, ILiveSourceObserver> observers,
    TimeProvider time,
    ReadConcurrencyLimit? readLimit = null) : IInstanceSourceFactory
{
    public ITraceEventSource Open(InstanceOptions instance)
    {
        if (instance.HasReplay)
        {
            return replays.Open(instance);
        }

        var name = instance.Name!;
        if (string.Equals(instance.Transport, LiveTransports.Stream, StringComparison.OrdinalIgnoreCase))
        {
            return new EventStreamLiveSource(
                new SqlConnectionFactory(LiveInstanceSettings.Build(instance)),
                new CaptureSessionSettings(instance.SessionName),
                instance.EnsureSession,
                observers(name),
                time);
        }

        if (string.Equals(instance.Transport, LiveTransports.RingBuffer, StringComparison.OrdinalIgnoreCase))
        {
            return new RingBufferLiveSource(
                new SqlConnectionFactory(LiveInstanceSettings.Build(instance)),
                new CaptureSessionSettings(instance.SessionName),
                TimeSpan.FromSeconds(instance.PollIntervalSeconds),
                observers(name),
                time);
        }

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
            time,
            readLimit);
    }
}
