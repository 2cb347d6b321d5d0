namespace BackupXe.Cli.Commands;

/// <summary>What <c>backupxe events</c> was asked for, parsed by <see cref="EventsCommand"/>.</summary>
internal sealed record EventsSettings
{
    /// <summary>The files listed, in the order named.</summary>
    public required IReadOnlyList<string> Inputs { get; init; }

    /// <summary>jsonl or csv.</summary>
    public required string Format { get; init; }

    /// <summary>Only events of these names (any case); null for every event. A HashSet, not an interface: each event is checked against it.</summary>
    public HashSet<string>? Names { get; init; }

    /// <summary>The file written instead of standard output; null for standard output.</summary>
    public string? Output { get; init; }
}
