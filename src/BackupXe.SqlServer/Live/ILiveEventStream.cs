using BackupXe.Core.Events;

namespace BackupXe.SqlServer.Live;

/// <summary>
/// One connection to a live event session. An XELite adapter wraps <c>XELiveEventStreamer.ReadEventStream</c>
/// and maps each <c>IXEvent</c> to a <see cref="TraceEvent"/> in exactly one place.
/// </summary>
public interface ILiveEventStream
{
    /// <summary>
    /// Reads until the connection ends: by returning when the server closes the stream, or by throwing on any
    /// failure (XELite has no reconnect of its own). <paramref name="onEvent"/> may wait; the adapter must
    /// await it before reading on. Ends, by returning or throwing, when <paramref name="cancellationToken"/> fires.
    /// </summary>
    Task ReadAsync(Func<TraceEvent, ValueTask> onEvent, CancellationToken cancellationToken);
}

/// <summary>Opens a new <see cref="ILiveEventStream"/> for each (re)connection.</summary>
public interface ILiveEventStreamFactory
{
    /// <summary>
    /// A stream for one connection. <paramref name="onConnected"/> is called once the server accepted the
    /// stream (XELite: from the metadata callback) so that a quiet server still shows as connected; an adapter
    /// that cannot tell may never call it, and the first event then is the first sign of life.
    /// </summary>
    ILiveEventStream Open(Action onConnected);
}
