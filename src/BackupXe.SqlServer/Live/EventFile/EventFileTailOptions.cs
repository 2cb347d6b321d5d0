namespace BackupXe.SqlServer.Live.EventFile;

/// <summary>How often and how much a <see cref="EventFileTail"/> reads.</summary>
public sealed class EventFileTailOptions
{
    /// <summary>
    /// Wait after a read that reached the end of the files. The session flushes to its file every
    /// MAX_DISPATCH_LATENCY (2 s in sessions/backupxe-session.sql), so polling faster mostly finds nothing new.
    /// </summary>
    public TimeSpan PollInterval { get; init; } = TimeSpan.FromSeconds(1);

    /// <summary>Rows per query (TOP): bounds one round trip's memory on the server and here.</summary>
    public int BatchSize { get; init; } = 2_000;

    /// <summary>
    /// Checked after this many consecutive reads that found nothing new (0 = never): the files stay readable when
    /// the session is stopped or dropped, so only asking the server tells a quiet session from a gone one.
    /// </summary>
    public int SessionCheckEveryEmptyReads { get; init; } = 30;

    public IReadOnlyList<string> Validate()
    {
        var problems = new List<string>();
        if (PollInterval < TimeSpan.Zero)
        {
            problems.Add($"{nameof(PollInterval)} is {PollInterval}; it cannot be negative.");
        }

        if (BatchSize < 1)
        {
            problems.Add($"{nameof(BatchSize)} is {BatchSize}; it must be at least 1.");
        }

        if (SessionCheckEveryEmptyReads < 0)
        {
            problems.Add($"{nameof(SessionCheckEveryEmptyReads)} is {SessionCheckEveryEmptyReads}; it cannot be negative.");
        }

        return problems;
    }
}
