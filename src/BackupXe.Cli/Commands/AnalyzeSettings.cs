namespace BackupXe.Cli.Commands;

/// <summary>What <c>backupxe analyze</c> was asked for, parsed by <see cref="AnalyzeCommand"/>.</summary>
internal sealed record AnalyzeSettings
{
    /// <summary>The files read (- for standard input), merged in time order.</summary>
    public required IReadOnlyList<string> Inputs { get; init; }

    /// <summary>console, json, markdown or html.</summary>
    public required string Format { get; init; }

    /// <summary>The file written instead of standard output; null for standard output.</summary>
    public string? Output { get; init; }

    /// <summary>Also list the messages not recognised.</summary>
    public bool Verbose { get; init; }

    public long? MemoryBudgetBytes { get; init; }

    public bool NoColor { get; init; }

    /// <summary>Which operations the report shows.</summary>
    public required OperationFilter Operations { get; init; }

    /// <summary>The history each operation is set against; null for none.</summary>
    public HistoryChoice? History { get; init; }
}
