namespace BackupXe.SqlServer.Live;

/// <summary>
/// Counters of a <see cref="ResilientLiveSource"/>, safe to read from any thread while it runs. The blocked
/// counters are the backpressure signal: time the network reader spent waiting for the analysis to catch up.
/// While it waits the server keeps buffering, and a reader that stays behind long enough is disconnected
/// (or loses events under ALLOW_SINGLE_EVENT_LOSS), so a growing <see cref="TimeBlocked"/> explains gaps.
/// </summary>
public sealed class LiveSourceStatistics
{
    private long _eventsReceived;
    private long _connections;
    private long _reconnects;
    private long _blockedWrites;
    private long _blockedTicks;
    private long _queueHighWater;
    private int _readerWaiting;

    /// <summary>Events read from the server, delivered or still queued.</summary>
    public long EventsReceived => Interlocked.Read(ref _eventsReceived);

    /// <summary>Connections opened, the first included.</summary>
    public long Connections => Interlocked.Read(ref _connections);

    /// <summary>Reconnect attempts scheduled after a failure.</summary>
    public long Reconnects => Interlocked.Read(ref _reconnects);

    /// <summary>Events the reader could not queue at once because the channel was full.</summary>
    public long BlockedWrites => Interlocked.Read(ref _blockedWrites);

    /// <summary>Total time the reader waited for room in the channel.</summary>
    public TimeSpan TimeBlocked => TimeSpan.FromTicks(Interlocked.Read(ref _blockedTicks));

    /// <summary>The most events ever waiting in the channel at once.</summary>
    public long QueueHighWater => Interlocked.Read(ref _queueHighWater);

    /// <summary>True while the reader is waiting for room right now: a gauge for a live display.</summary>
    public bool ReaderWaiting => Volatile.Read(ref _readerWaiting) == 1;

    internal void RecordWaiting(bool waiting) => Volatile.Write(ref _readerWaiting, waiting ? 1 : 0);

    internal void RecordConnection() => Interlocked.Increment(ref _connections);

    internal void RecordReconnect() => Interlocked.Increment(ref _reconnects);

    internal void RecordQueued(int depth)
    {
        Interlocked.Increment(ref _eventsReceived);
        long seen;
        while (depth > (seen = Interlocked.Read(ref _queueHighWater)))
        {
            if (Interlocked.CompareExchange(ref _queueHighWater, depth, seen) == seen)
            {
                break;
            }
        }
    }

    internal void RecordBlocked(TimeSpan blocked)
    {
        Interlocked.Increment(ref _blockedWrites);
        Interlocked.Add(ref _blockedTicks, blocked.Ticks);
    }
}
