namespace BackupXe.Tests.Support;

/// <summary>
/// A clock that moves only when a test calls <see cref="Advance"/>, so back-off, backpressure and replay timing
/// are asserted exactly. (Microsoft.Extensions.TimeProvider.Testing is not on the package mirror.)
/// </summary>
public sealed class ManualTimeProvider : TimeProvider
{
    private static readonly TimeSpan SafetyTimeout = TimeSpan.FromSeconds(10);

    private readonly object _gate = new();
    private readonly List<ManualTimer> _timers = [];
    private readonly List<TimeSpan> _scheduled = [];
    private readonly DateTimeOffset _start;
    private TimeSpan _elapsed;
    private TaskCompletionSource _timerCreated = NewSignal();

    public ManualTimeProvider(DateTimeOffset? start = null) => _start = start ?? new DateTimeOffset(2024, 5, 1, 2, 0, 0, TimeSpan.Zero);

    /// <summary>Due times of every timer created so far, in order: the delays the code under test asked for.</summary>
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
    public TimeSpan Elapsed
    {
        get
        {
            lock (_gate)
            {
                return _elapsed;
            }
        }
    }

    public override DateTimeOffset GetUtcNow() => _start + Elapsed;

    public override long TimestampFrequency => TimeSpan.TicksPerSecond;

    public override long GetTimestamp() => Elapsed.Ticks;

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        var timer = new ManualTimer(this, callback, state);
        timer.Change(dueTime, period);
        return timer;
    }

    /// <summary>Moves the clock on, firing every timer that falls due on the way, earliest first.</summary>
    public void Advance(TimeSpan by)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(by, TimeSpan.Zero);
        TimeSpan target;
        lock (_gate)
        {
            target = _elapsed + by;
        }

        while (true)
        {
            ManualTimer? due;
            lock (_gate)
            {
                due = _timers.Where(t => t.DueAt <= target).OrderBy(t => t.DueAt).FirstOrDefault();
                if (due is null)
                {
                    _elapsed = target;
                    return;
                }

                _elapsed = due.DueAt!.Value;
                due.Reschedule();
            }

            // Outside the lock: the callback may run continuations that create the next timer.
            due.Fire();
        }
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
                    return pending.DueAt!.Value - _elapsed;
                }

                signal = _timerCreated.Task;
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

    private static TaskCompletionSource NewSignal() => new(TaskCreationOptions.RunContinuationsAsynchronously);

    private void Schedule(ManualTimer timer, TimeSpan dueTime)
    {
        TaskCompletionSource signal;
        lock (_gate)
        {
            timer.DueAt = _elapsed + dueTime;
            if (!_timers.Contains(timer))
            {
                _timers.Add(timer);
            }

            _scheduled.Add(dueTime);
            signal = _timerCreated;
            _timerCreated = NewSignal();
        }

        signal.TrySetResult();
    }

    private void Unschedule(ManualTimer timer)
    {
        lock (_gate)
        {
            timer.DueAt = null;
            _timers.Remove(timer);
        }
    }

    private sealed class ManualTimer(ManualTimeProvider owner, TimerCallback callback, object? state) : ITimer
    {
        private TimeSpan _period = Timeout.InfiniteTimeSpan;

        /// <summary>When it fires next, on the provider's clock; null when not scheduled. Guarded by the owner's lock.</summary>
        public TimeSpan? DueAt { get; set; }

        public bool Change(TimeSpan dueTime, TimeSpan period)
        {
            _period = period;
            if (dueTime == Timeout.InfiniteTimeSpan)
            {
                owner.Unschedule(this);
            }
            else
            {
                owner.Schedule(this, dueTime);
            }

            return true;
        }

        /// <summary>Called under the owner's lock just before firing.</summary>
        public void Reschedule()
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

        public void Fire() => callback(state);

        public void Dispose() => owner.Unschedule(this);

        public ValueTask DisposeAsync()
        {
            Dispose();
            return ValueTask.CompletedTask;
        }
    }
}
