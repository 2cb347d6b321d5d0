namespace BackupXe.SqlServer.Live;

/// <summary>
/// Exponential back-off with a cap and jitter: attempt n waits InitialReconnectDelay x BackoffMultiplier^(n-1),
/// at most MaxReconnectDelay, less a random share of up to JitterRatio of it. Jitter only ever shortens
/// the delay, so the cap holds exactly.
/// </summary>
internal sealed class ReconnectBackoff
{
    private readonly LiveSourceOptions _options;
    private readonly Random _random;

    /// <param name="random">Source of jitter; tests pass a fixed one.</param>
    public ReconnectBackoff(LiveSourceOptions options, Random? random = null)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.ThrowIfInvalid();
        _options = options;
        _random = random ?? Random.Shared;
    }

    /// <summary>The delay before jitter for attempt <paramref name="attempt"/> (1 = first reconnect).</summary>
    public TimeSpan Ceiling(int attempt)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(attempt, 1);
        // In double ticks first: BackoffMultiplier^attempt overflows TimeSpan long before it overflows a double.
        var ticks = _options.InitialReconnectDelay.Ticks * Math.Pow(_options.BackoffMultiplier, attempt - 1);
        return ticks >= _options.MaxReconnectDelay.Ticks ? _options.MaxReconnectDelay : TimeSpan.FromTicks((long)ticks);
    }

    /// <summary>The delay to wait before attempt <paramref name="attempt"/>, jitter applied.</summary>
    public TimeSpan DelayFor(int attempt)
    {
        var ceiling = Ceiling(attempt);
        var cut = _options.JitterRatio * _random.NextDouble();
        return TimeSpan.FromTicks((long)(ceiling.Ticks * (1 - cut)));
    }
}
