namespace BackupXe.Cli.Commands;

/// <summary>What <c>backupxe history tunes</c> was asked for, parsed by <see cref="HistoryTunesCommand"/>.</summary>
internal sealed record HistoryTunesSettings
{
    /// <summary>The SQLite history the tunes were stored in.</summary>
    public required string Path { get; init; }

    /// <summary>Only these databases; empty for every one.</summary>
    public IReadOnlySet<string> Databases { get; init; } = new HashSet<string>();

    /// <summary>Only this instance; null for every one.</summary>
    public string? Instance { get; init; }

    /// <summary>The most recent tune runs listed.</summary>
    public required int Limit { get; init; }

    /// <summary>console, json or markdown.</summary>
    public required string Format { get; init; }
}
