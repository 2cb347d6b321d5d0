namespace BackupXe.Cli.Commands;

/// <summary>What <c>backupxe watch</c> was asked for, parsed and validated by <see cref="WatchCommand"/>.</summary>
internal sealed record WatchSettings
{
    /// <summary>The capture replayed instead of a server; null to watch <see cref="Connection"/>.</summary>
    public string? Replay { get; init; }

    /// <summary>Replay speed: 1 the original timing, 0 as fast as possible.</summary>
    public double Speed { get; init; } = 1;

    /// <summary>console, json or html.</summary>
    public required string Format { get; init; }

    /// <summary>The HTML file of <c>--format html</c>.</summary>
    public string? Output { get; init; }

    /// <summary>The databases shown; empty for every one.</summary>
    public IReadOnlySet<string> Databases { get; init; } = new HashSet<string>();

    public long? MemoryBudgetBytes { get; init; }

    public bool NoColor { get; init; }

    /// <summary>The capture session read on the server.</summary>
    public required string SessionName { get; init; }

    /// <summary>file, stream or ring_buffer.</summary>
    public required string Transport { get; init; }

    /// <summary>How often sys.dm_exec_requests is read again; zero to read it once.</summary>
    public TimeSpan PollRequests { get; init; }

    public required TimeSpan StallAfter { get; init; }

    /// <summary>Create the capture session for this watch only, and drop it at the end.</summary>
    public bool StartSession { get; init; }

    public required ServerConnection Connection { get; init; }

    /// <summary>The history each operation is set against; null for none.</summary>
    public HistoryChoice? History { get; init; }
}
