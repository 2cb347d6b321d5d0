using BackupXe.Core.Events;
using BackupXe.SqlServer.Live.EventFile;
using BackupXe.SqlServer.Live.EventStream;
using BackupXe.SqlServer.Live.RingBuffer;

namespace BackupXe.SqlServer.Live;

/// <summary>The one place a live server's source is opened, for <c>watch</c>, <c>tune</c> and the daemon alike.</summary>
public static class LiveSources
{
    public static ITraceEventSource Open(LiveSourceSettings settings)
    {
        if (string.Equals(settings.Transport, LiveTransport.Stream, StringComparison.OrdinalIgnoreCase))
        {
            // The stream has no position to keep: it reports what it lost while disconnected instead.
            return new EventStreamLiveSource(settings.Connections, settings.Session, settings.EnsureSession, settings.Observer, settings.Time);
        }

        if (string.Equals(settings.Transport, LiveTransport.RingBuffer, StringComparison.OrdinalIgnoreCase))
        {
            // Reads an existing session's target: there is nothing to create and no position to keep.
            return new RingBufferLiveSource(settings.Connections, settings.Session, settings.TailOptions.PollInterval, settings.Observer, settings.Time);
        }

        return new EventFileLiveSource(
            settings.Instance ?? settings.Connections.Settings.Server,
            settings.Connections,
            settings.Session,
            settings.EnsureSession,
            settings.TailOptions,
            settings.Checkpoints ?? new RunCheckpoints(),
            settings.CheckpointInterval,
            settings.Observer,
            settings.Time,
            settings.ReadLimit);
    }
}
