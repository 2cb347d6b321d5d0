using System.Runtime.CompilerServices;
using BackupXe.Core.Events;

namespace BackupXe.SqlServer.Live.EventFile;

/// <summary>
/// A <see cref="ResilientLiveSource"/> over an <see cref="EventFileTail"/> whose position is saved durably at
/// the points the analysis marks idle (<see cref="MarkIdle"/>, wired to <c>AnalysisOptions.OnIdle</c>): after an
/// event when no operation is open and every completed one has been recorded. A restart resumes there, so an
/// operation is never split; operations completed after the saved point are read again and recognised by the
/// history's dedup key, so a kill at any moment loses nothing and stores nothing twice.
/// </summary>
internal sealed class CheckpointedLiveSource : ITraceEventSource, IIdleCheckpoint
{
    private readonly ITraceEventSource _inner;
    private readonly EventFileTail _tail;
    private readonly IEventFileCheckpointStore _store;
    private readonly string _instance;
    private readonly TimeSpan _saveInterval;
    private readonly TimeProvider _time;
    private long _yielded;
    private TraceEvent? _lastYielded;
    private TraceEvent? _previousYielded;
    private EventFileCheckpoint? _pending;
    private long _lastSave;

    /// <param name="inner">The resilient source reading <paramref name="tail"/>.</param>
    /// <param name="saveInterval">At most one save per interval; a kill re-reads at most this much (deduplicated).</param>
    public CheckpointedLiveSource(
        ITraceEventSource inner,
        EventFileTail tail,
        IEventFileCheckpointStore store,
        string instance,
        TimeSpan saveInterval,
        TimeProvider? timeProvider = null)
    {
        _inner = inner;
        _tail = tail;
        _store = store;
        _instance = instance;
        _saveInterval = saveInterval;
        _time = timeProvider ?? TimeProvider.System;
    }

    public string Name => _inner.Name;

    public string Format => _inner.Format;

    public EventFileTail Tail => _tail;

    /// <summary>Checkpoints saved by this source.</summary>
    public long Saves { get; private set; }

    /// <summary>
    /// The analysis is idle after <paramref name="observed"/>, one of the two events this source yielded last: its position
    /// becomes the next checkpoint to save.
    /// </summary>
    public void MarkIdle(TraceEvent observed)
    {
        // Only the last two events yielded have a known position; any other call is ignored rather than guessed at.
        if (ReferenceEquals(observed, _lastYielded))
        {
            _pending = _tail.CheckpointAfter(_yielded, observed.Timestamp);
        }
        else if (ReferenceEquals(observed, _previousYielded))
        {
            _pending = _tail.CheckpointAfter(_yielded - 1, observed.Timestamp);
        }
    }

    public async IAsyncEnumerable<TraceEvent> ReadEventsAsync(SourceStatus status, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        _lastSave = _time.GetTimestamp();
        try
        {
            await foreach (var traceEvent in _inner.ReadEventsAsync(status, cancellationToken).ConfigureAwait(false))
            {
                _yielded++;
                _previousYielded = _lastYielded;
                _lastYielded = traceEvent;
                yield return traceEvent;

                // Back here only once the consumer is done with the event, its idle mark included.
                if (_pending is not null && _time.GetElapsedTime(_lastSave) >= _saveInterval)
                {
                    await SaveAsync(cancellationToken).ConfigureAwait(false);
                }
            }
        }
        finally
        {
            if (_pending is not null)
            {
                // On the way out, even when cancelled: the last idle point is worth keeping.
                await SaveAsync(CancellationToken.None).ConfigureAwait(false);
            }

            foreach (var problem in _tail.Problems.Problems)
            {
                status.Report(problem.Location, problem.Message);
            }
        }
    }

    private async Task SaveAsync(CancellationToken cancellationToken)
    {
        var checkpoint = _pending!;
        await _store.SaveAsync(_instance, checkpoint, cancellationToken).ConfigureAwait(false);
        if (ReferenceEquals(_pending, checkpoint))
        {
            _pending = null;
        }

        Saves++;
        _lastSave = _time.GetTimestamp();
    }
}
