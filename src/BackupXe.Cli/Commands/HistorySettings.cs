using BackupXe.Core.Events;

namespace BackupXe.Cli.Commands;

/// <summary>What <c>backupxe history</c> was asked for, parsed by <see cref="HistoryCommand"/>.</summary>
internal sealed record HistorySettings
{
    /// <summary>The history file named with --path; null to find the daemon's.</summary>
    public string? Path { get; init; }

    public required OperationFilter Operations { get; init; }

    /// <summary>Only this instance; null for every one.</summary>
    public string? Instance { get; init; }

    /// <summary>Only backups or only restores; null for both.</summary>
    public OperationKind? Kind { get; init; }

    /// <summary>The most recent operations listed.</summary>
    public required int Limit { get; init; }

    /// <summary>console, json, markdown, csv or html.</summary>
    public required string Format { get; init; }

    /// <summary>The file written instead of standard output; null for standard output.</summary>
    public string? Output { get; init; }

    public bool NoColor { get; init; }
}
