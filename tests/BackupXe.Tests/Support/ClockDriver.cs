namespace BackupXe.Tests.Support;

/// <summary>Moves a <see cref="FakeClock"/> on in steps, letting the code it drives catch up between them.</summary>
internal static class ClockDriver
{
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
