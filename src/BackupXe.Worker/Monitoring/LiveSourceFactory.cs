using BackupXe.Core.Events;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Live.EventFile;
using BackupXe.SqlServer.Sessions;
using BackupXe.Worker.Configuration;

namespace BackupXe.Worker.Monitoring;

/// <summary>
/// Opens each instance's source: a replay for ReplayPath, else its transport on a live server through the client
/// layer (<see cref="LiveSources"/>): <c>file</c> resuming from the instance's checkpoint in <paramref name="checkpoints"/>,
/// the experimental <c>stream</c>, or <c>ring_buffer</c>; the last two keep no position and report what they lost. Every <c>file</c> instance
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
        return LiveSources.Open(new LiveSourceSettings(new SqlConnectionFactory(LiveInstanceSettings.Build(instance)), SessionOf(instance))
        {
            Transport = instance.Transport,
            Instance = name,
            // With capture windows the arming starts the session; the source only reads it, and never re-creates it.
            EnsureSession = instance.EnsureSession && !instance.CaptureWindows.Enabled,
            TailOptions = new EventFileTailOptions { PollInterval = TimeSpan.FromSeconds(instance.PollIntervalSeconds), BatchSize = instance.BatchSize },
            Checkpoints = checkpoints,
            CheckpointInterval = TimeSpan.FromSeconds(instance.CheckpointIntervalSeconds),
            Observer = observers(name),
            Time = time,
            ReadLimit = readLimit,
        });
    }

    /// <summary>
    /// The session an instance reads (and creates with EnsureSession). Files named after the session: a daemon that
    /// creates "Nightly" must not write into the BackupXe.xel files of a default session on the same server (and read
    /// them back through its file pattern).
    /// </summary>
    public static CaptureSessionSettings SessionOf(InstanceOptions instance)
        => new(instance.SessionName, instance.SessionName + ".xel", StartWithServer: !instance.CaptureWindows.Enabled);
}
