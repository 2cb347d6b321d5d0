using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Sessions;

namespace BackupXe.SqlServer.Live;

/// <summary>How a <see cref="ResilientLiveSource"/> buffers and reconnects. Defaults in <see cref="LiveSourceOptionsDefaults"/>.</summary>
public sealed class LiveSourceOptions
{
    /// <summary>The event session streamed; used in messages.</summary>
    public string SessionName { get; init; } = Sessions.SessionName.Default;

    /// <summary>Events held between the network reader and the analysis before the reader has to wait.</summary>
    public int ChannelCapacity { get; init; } = LiveSourceOptionsDefaults.ChannelCapacity;

    /// <summary>Delay before the first reconnect attempt.</summary>
    public TimeSpan InitialReconnectDelay { get; init; } = LiveSourceOptionsDefaults.InitialReconnectDelay;

    /// <summary>No reconnect delay exceeds this, however many attempts failed.</summary>
    public TimeSpan MaxReconnectDelay { get; init; } = LiveSourceOptionsDefaults.MaxReconnectDelay;

    /// <summary>Each failed attempt multiplies the delay by this.</summary>
    public double BackoffMultiplier { get; init; } = LiveSourceOptionsDefaults.BackoffMultiplier;

    /// <summary>
    /// Up to this fraction of each delay is taken off at random (0 = none, 1 = anywhere down to zero), so that
    /// many readers cut off by one failover do not all reconnect in the same instant.
    /// </summary>
    public double JitterRatio { get; init; } = LiveSourceOptionsDefaults.JitterRatio;

    /// <summary>When the session is missing, re-create it (needs an <see cref="ISessionInstaller"/>) instead of stopping.</summary>
    public bool RecreateSession { get; init; }

    /// <summary>Consecutive failed attempts before giving up; null = never give up (the worker's choice).</summary>
    public int? MaxReconnectAttempts { get; init; }

    /// <summary>Every problem, each naming the setting; empty when valid.</summary>
    public IReadOnlyList<string> Validate()
    {
        var problems = new List<string>();
        if (!Sessions.SessionName.IsValid(SessionName))
        {
            problems.Add($"{nameof(SessionName)} '{SessionName}' is not a valid session name.");
        }

        if (ChannelCapacity < 1)
        {
            problems.Add($"{nameof(ChannelCapacity)} is {ChannelCapacity}; it must be at least 1.");
        }

        if (InitialReconnectDelay < TimeSpan.Zero)
        {
            problems.Add($"{nameof(InitialReconnectDelay)} is {InitialReconnectDelay}; it cannot be negative.");
        }

        if (MaxReconnectDelay < InitialReconnectDelay)
        {
            problems.Add($"{nameof(MaxReconnectDelay)} ({MaxReconnectDelay}) is shorter than {nameof(InitialReconnectDelay)} ({InitialReconnectDelay}).");
        }

        if (!(BackoffMultiplier >= 1) || double.IsInfinity(BackoffMultiplier))
        {
            problems.Add($"{nameof(BackoffMultiplier)} is {BackoffMultiplier}; it must be a number of at least 1.");
        }

        if (!(JitterRatio is >= 0 and <= 1))
        {
            problems.Add($"{nameof(JitterRatio)} is {JitterRatio}; it must be between 0 and 1.");
        }

        if (MaxReconnectAttempts < 0)
        {
            problems.Add($"{nameof(MaxReconnectAttempts)} is {MaxReconnectAttempts}; it cannot be negative.");
        }

        return problems;
    }

    /// <exception cref="ArgumentException">Some setting is invalid; the message names each.</exception>
    public void ThrowIfInvalid()
    {
        var problems = Validate();
        if (problems.Count > 0)
        {
            throw new ArgumentException("Invalid live source options: " + string.Join(" ", problems));
        }
    }
}

/// <summary>The documented defaults of <see cref="LiveSourceOptions"/>.</summary>
internal static class LiveSourceOptionsDefaults
{
    /// <summary>
    /// Room for bursts: a verbose restore trace writes thousands of messages in a second, and the session
    /// dispatches every 2 s (MAX_DISPATCH_LATENCY), so events arrive in clumps.
    /// </summary>
    public const int ChannelCapacity = 10_000;

    public static readonly TimeSpan InitialReconnectDelay = TimeSpan.FromSeconds(1);

    /// <summary>A failover or restart usually takes under a minute; waiting longer only loses events.</summary>
    public static readonly TimeSpan MaxReconnectDelay = TimeSpan.FromSeconds(60);

    public const double BackoffMultiplier = 2;

    public const double JitterRatio = 0.2;
}
