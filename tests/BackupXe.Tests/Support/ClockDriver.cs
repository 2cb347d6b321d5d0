namespace BackupXe.Tests.Support;

/// <summary>Moves a <see cref="FakeClock"/> on in steps, letting the code it drives catch up between them.</summary>
internal static class ClockDriver
{
    /// <summary>
    /// Fires <paramref name="clock"/>'s timers one due time after the other while <paramref name="run"/> is pending,
    /// each only once <paramref name="settled"/> holds (every part of the code under test that waits on the clock has
    /// armed its timer): the clock never outruns the real work between two timers, and no step sleeps. Between checks
    /// it yields, nothing more. <paramref name="limit"/> of fake time turns a run that never ends into a failing test.
    /// </summary>
    public static async Task<T> UntilDoneAsync<T>(FakeClock clock, Task<T> run, Func<bool> settled, TimeSpan limit)
    {
        while (!run.IsCompleted)
        {
            if (clock.Elapsed > limit)
            {
                throw new TimeoutException($"Not done after {limit} of fake time.");
            }

            if (settled() && clock.UntilNextTimer is { } next)
            {
                clock.Advance(next > TimeSpan.Zero ? next : TimeSpan.Zero);
            }

            await Task.Yield();
        }

        return await run;
    }

    /// <summary>
    /// As <see cref="UntilDoneAsync{T}(FakeClock, Task{T}, Func{bool}, TimeSpan)"/>, for code that spends most of its real
    /// time on round trips (a whole CLI run against the TDS double): it pauses a millisecond between checks instead of
    /// spinning, and a run that stays unsettled for <paramref name="stuckAfter"/> of real time fails with
    /// <paramref name="state"/> instead of hanging.
    /// </summary>
    public static async Task<T> UntilDoneAsync<T>(FakeClock clock, Task<T> run, Func<bool> settled, TimeSpan limit, TimeSpan stuckAfter, Func<string> state)
    {
        var unsettledSince = System.Diagnostics.Stopwatch.StartNew();
        while (!run.IsCompleted)
        {
            if (clock.Elapsed > limit)
            {
                throw new TimeoutException($"Not done after {limit} of fake time: {state()}");
            }

            if (settled() && clock.UntilNextTimer is { } next)
            {
                clock.Advance(next > TimeSpan.Zero ? next : TimeSpan.Zero);
                unsettledSince.Restart();
            }
            else if (unsettledSince.Elapsed > stuckAfter)
            {
                throw new TimeoutException($"Not settled for {stuckAfter} of real time at {clock.Elapsed} of fake time: {state()}");
            }

            await Task.WhenAny(run, Task.Delay(1));
        }

        return await run;
    }

    /// <summary>
    /// Advances <paramref name="clock"/> by <paramref name="step"/> until <paramref name="done"/> or <paramref name="limit"/>
    /// of fake time. After each step it waits (in real time, at most <paramref name="settleWithin"/>, 50 ms unless given)
    /// until <paramref name="settled"/> holds, so a reader waiting on the clock has armed its timers before the clock moves again.
    /// </summary>
    public static async Task RunAsync(FakeClock clock, TimeSpan step, TimeSpan limit, Func<bool> done, Func<bool> settled, Func<string>? state = null, TimeSpan? settleWithin = null)
    {
        var spinsAllowed = (int)((settleWithin ?? TimeSpan.FromMilliseconds(50)).TotalMilliseconds);
        while (!done())
        {
            if (clock.Elapsed > limit)
            {
                throw new TimeoutException($"Not done after {limit} of fake time: {state?.Invoke()}");
            }

            clock.Advance(step);
            for (var spins = 0; spins < spinsAllowed && !settled() && !done(); spins++)
            {
                await Task.Delay(1);
            }
        }
    }
}
