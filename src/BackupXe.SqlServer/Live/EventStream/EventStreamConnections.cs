using BackupXe.Core.Events;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live.EventFile;
using BackupXe.SqlServer.Sessions;

namespace BackupXe.SqlServer.Live.EventStream;

/// <summary>
/// The <c>stream</c> transport as an <see cref="ILiveEventStreamFactory"/> for <see cref="ResilientLiveSource"/>: each
/// connection runs <see cref="SqlEventStreamReader"/> and decodes its rows with a fresh <see cref="EventStreamDecoder"/>.
/// It remembers when a connection was lost and, when the next stream is accepted, reports the gap (from when to when)
/// through the observer, since those events will never come. Before reconnecting it checks that the session still runs,
/// so a stopped or dropped session is told apart from a network failure.
/// </summary>
internal sealed class EventStreamConnections(
    SqlConnectionFactory connections,
    SessionClient session,
    ILiveSourceObserver? observer = null,
    TimeProvider? timeProvider = null) : ILiveEventStreamFactory
{
    private readonly TimeProvider _time = timeProvider ?? TimeProvider.System;
    private readonly Lock _gate = new();
    private readonly List<EventStreamGap> _gaps = [];
    private DateTime? _downSince;
    private DateTime? _lastEvent;
    private long _rows;

    /// <summary>Every gap reported so far, oldest first.</summary>
    public IReadOnlyList<EventStreamGap> Gaps
    {
        get
        {
            lock (_gate)
            {
                return [.. _gaps];
            }
        }
    }

    /// <summary>Rows read over all connections.</summary>
    public long Rows => Interlocked.Read(ref _rows);

    public ILiveEventStream Open(Action onConnected) => new Connection(this, onConnected);

    private void Opened(Action onConnected)
    {
        EventStreamGap? gap = null;
        lock (_gate)
        {
            if (_downSince is { } down)
            {
                gap = new EventStreamGap(down, _time.GetUtcNow().UtcDateTime, _lastEvent);
                _gaps.Add(gap);
                _downSince = null;
            }
        }

        onConnected();
        if (gap is not null)
        {
            Notify(new LiveSourceChange.EventsLost(gap.Describe()));
        }
    }

    private void Lost()
    {
        lock (_gate)
        {
            _downSince ??= _time.GetUtcNow().UtcDateTime;
        }
    }

    private void Notify(LiveSourceChange change)
    {
        try
        {
            observer?.OnChange(change);
        }
        catch (Exception)
        {
            // An observer that fails must not stop the capture (ILiveSourceObserver's contract).
        }
    }

    private bool Down
    {
        get
        {
            lock (_gate)
            {
                return _downSince is not null;
            }
        }
    }

    private SqlEventStreamReader Reader() => new(connections, session.Settings.SessionName);

    private Task<SessionStatus> StatusAsync(CancellationToken cancellationToken) => session.StatusAsync(cancellationToken);

    private void Seen(DateTime timestamp)
    {
        lock (_gate)
        {
            _lastEvent = timestamp;
        }
    }

    private sealed class Connection(EventStreamConnections owner, Action onConnected) : ILiveEventStream
    {
        public async Task ReadAsync(Func<TraceEvent, ValueTask> onEvent, CancellationToken cancellationToken)
        {
            var decoder = new EventStreamDecoder();
            try
            {
                if (owner.Down)
                {
                    var state = await owner.StatusAsync(cancellationToken).ConfigureAwait(false);
                    if (!state.Running)
                    {
                        throw new CaptureSessionGoneException(state.SessionName, state.Exists);
                    }
                }

                await foreach (var row in owner.Reader().ReadAsync(() => owner.Opened(onConnected), cancellationToken).ConfigureAwait(false))
                {
                    Interlocked.Increment(ref owner._rows);
                    foreach (var traceEvent in decoder.Decode(row, message => owner.Notify(new LiveSourceChange.StreamProblem(message))))
                    {
                        owner.Seen(traceEvent.Timestamp);
                        await onEvent(traceEvent).ConfigureAwait(false);
                    }
                }
            }
            finally
            {
                if (!cancellationToken.IsCancellationRequested)
                {
                    owner.Lost();
                }
            }
        }
    }
}
