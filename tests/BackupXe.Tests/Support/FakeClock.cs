using Microsoft.Extensions.Time.Testing;

namespace BackupXe.Tests.Support;

/// <summary>
/// FakeTimeProvider (its clock moves only on <see cref="FakeTimeProvider.Advance"/>, firing the timers that fall due)
/// plus what FakeTimeProvider does not expose: the delays the code under test asked for, and a wait for the next
/// timer to be scheduled, so back-off, back-pressure and replay timing are asserted exactly.
/// </summary>
public sealed class FakeClock : FakeTimeProvider
{
    private static readonly TimeSpan SafetyTimeout = TimeSpan.FromSeconds(10);

    private readonly object _gate = new();
    private readonly List<RecordedTimer> _timers = [];
    private readonly List<TimeSpan> _scheduled = [];
    private readonly DateTimeOffset _start;
    private TaskCompletionSource _timerScheduled = NewSignal();

    public FakeClock(DateTimeOffset? start = null)
        : base(start ?? new DateTimeOffset(2024, 5, 1, 2, 0, 0, TimeSpan.Zero))
        => _start = GetUtcNow();

    /// <summary>Due times of every timer set so far, in order: the delays the code under test asked for.</summary>
    public IReadOnlyList<TimeSpan> ScheduledDelays
    {
        get
        {
            lock (_gate)
            {
                return [.. _scheduled];
            }
        }
    }

    /// <summary>How long since the start.</summary>
    public TimeSpan Elapsed => GetUtcNow() - _start;

    /// <summary>How many timers are waiting to fire.</summary>
    public int PendingTimers
    {
        get
        {
            lock (_gate)
            {
                return _timers.Count(t => t.DueAt is not null);
            }
        }
    }

    /// <summary>True when a timer is waiting to fire.</summary>
    public bool HasPendingTimer
    {
        get
        {
            lock (_gate)
            {
                return _timers.Any(t => t.DueAt is not null);
            }
        }
    }

    /// <summary>How long until the earliest pending timer is due; null when none is pending.</summary>
    public TimeSpan? UntilNextTimer
    {
        get
        {
            lock (_gate)
            {
                return _timers.Where(t => t.DueAt is not null).Min(t => t.DueAt) is { } due ? due - GetUtcNow() : null;
            }
        }
    }

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        // The test is told of a timer only once FakeTimeProvider holds it: told earlier, it could advance the clock
        // past a timer not yet registered, which would then never fire.
        var timer = new RecordedTimer(this);
        var signal = timer.Record(dueTime, period);
        timer.Inner = base.CreateTimer(s => { timer.Fired(); callback(s); }, state, dueTime, period);
        signal?.TrySetResult();
        return timer;
    }

    /// <summary>
    /// Waits (on a signal, not a sleep) until some timer is pending and returns how long until it is due.
    /// The timeout only turns a hang into a failing test.
    /// </summary>
    public async Task<TimeSpan> NextTimerAsync()
    {
        var deadline = DateTime.UtcNow + SafetyTimeout;
        while (true)
        {
            Task signal;
            lock (_gate)
            {
                var pending = _timers.Where(t => t.DueAt is not null).OrderBy(t => t.DueAt).FirstOrDefault();
                if (pending is not null)
                {
                    return pending.DueAt!.Value - GetUtcNow();
                }

                signal = _timerScheduled.Task;
            }

            var remaining = deadline - DateTime.UtcNow;
            if (remaining <= TimeSpan.Zero)
            {
                throw new TimeoutException("No timer was scheduled.");
            }

            await signal.WaitAsync(remaining);
        }
    }

    /// <summary>Waits for the next timer and fires it; returns the delay it had been asked for.</summary>
    public async Task<TimeSpan> FireNextTimerAsync()
    {
        var delay = await NextTimerAsync();
        Advance(delay);
        return delay;
    }

    private static TaskCompletionSource NewSignal() => new(TaskCreationOptions.RunContinuationsAsynchronously);

    private sealed class RecordedTimer(FakeClock owner) : ITimer
    {
        private TimeSpan _period = Timeout.InfiniteTimeSpan;

        public ITimer Inner { get; set; } = null!;

        /// <summary>When it fires next on the owner's clock; null when not scheduled. Guarded by the owner's lock.</summary>
        public DateTimeOffset? DueAt { get; private set; }

        public bool Change(TimeSpan dueTime, TimeSpan period)
        {
            var signal = Record(dueTime, period);
            var changed = Inner.Change(dueTime, period);
            signal?.TrySetResult();
            return changed;
        }

        /// <summary>Records the schedule; returns the signal to set once the inner timer holds it, if any.</summary>
        public TaskCompletionSource? Record(TimeSpan dueTime, TimeSpan period)
        {
            TaskCompletionSource? signal = null;
            lock (owner._gate)
            {
                _period = period;
                if (dueTime == Timeout.InfiniteTimeSpan)
                {
                    DueAt = null;
                    owner._timers.Remove(this);
                }
                else
                {
                    DueAt = owner.GetUtcNow() + dueTime;
                    if (!owner._timers.Contains(this))
                    {
                        owner._timers.Add(this);
                    }

                    owner._scheduled.Add(dueTime);
                    signal = owner._timerScheduled;
                    owner._timerScheduled = NewSignal();
                }
            }

            return signal;
        }

        public void Fired()
        {
            lock (owner._gate)
            {
                if (_period == Timeout.InfiniteTimeSpan || _period <= TimeSpan.Zero)
                {
                    DueAt = null;
                    owner._timers.Remove(this);
                }
                else
                {
                    DueAt += _period;
                }
            }
        }

        public void Dispose()
        {
            lock (owner._gate)
            {
                DueAt = null;
                owner._timers.Remove(this);
            }

            Inner.Dispose();
        }

        public ValueTask DisposeAsync()
        {
            Dispose();
            return ValueTask.CompletedTask;
        }
    }
}
