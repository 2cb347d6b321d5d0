using BackupXe.Core.Events;

namespace BackupXe.Core.Reporting;

/// <summary>
/// Runs of one series (same database, kind and scope) set side by side, within an input and across inputs
/// (docs/diagnosis.md, "Runs compared"): each run with what it was asked to do, then what the pairs show. A finding of
/// the report, never a problem of an input.
/// </summary>
public sealed record RunsComparedReport
{
    /// <summary>"full backup of [Sales]".</summary>
    public required string Series { get; init; }

    public required OperationKind Kind { get; init; }

    public OperationScope? Scope { get; init; }

    public string? Database { get; init; }

    /// <summary>The runs in the order they were read (numbered from 1 in the sentences).</summary>
    public required IReadOnlyList<ComparedRunReport> Runs { get; init; }

    /// <summary>What the runs support, the best-founded first.</summary>
    public required IReadOnlyList<RunsConclusionReport> Conclusions { get; init; }

    /// <summary>Runs of the series beyond the number kept, counted only.</summary>
    public int Skipped { get; init; }
}

/// <summary>One completed run as the comparison sees it: its time and size, and the settings that bear on speed.</summary>
public sealed record ComparedRunReport
{
    /// <summary>The input it was read from (a path as given).</summary>
    public required string Input { get; init; }

    /// <summary>The server's start, else the client's (a job's "Date and time:"); null when the input has neither.</summary>
    public DateTime? Start { get; init; }

    public required double Seconds { get; init; }

    /// <summary>"engine" (the completion line's seconds) or "client" (the command's own span, to its resolution).</summary>
    public required string SecondsFrom { get; init; }

    public long? Bytes { get; init; }

    public double? ThroughputMBps { get; init; }

    /// <summary>Where the settings below come from ("the server's messages", "the job's command"); null when the input names none.</summary>
    public string? SettingsFrom { get; init; }

    /// <summary>Null with a known <see cref="SettingsFrom"/>: not stated, the server's default applied.</summary>
    public int? BufferCount { get; init; }

    public long? MaxTransferSizeBytes { get; init; }

    public bool? Compression { get; init; }

    public int? Stripes { get; init; }

    /// <summary>The folder or URL container written to (read from, for a restore).</summary>
    public string? Target { get; init; }
}

/// <summary>
/// What one pair of runs supports: the ratio (slower over faster, by time when both moved the same data, else by rate),
/// what differed between them and the conclusion with its confidence.
/// </summary>
public sealed record RunsConclusionReport
{
    /// <summary>The faster run's number (1-based, in <see cref="RunsComparedReport.Runs"/>).</summary>
    public required int FasterRun { get; init; }

    public required int SlowerRun { get; init; }

    public required double Ratio { get; init; }

    /// <summary>"time" or "rate".</summary>
    public required string RatioOf { get; init; }

    /// <summary>buffers, stripes, compression, target (one alone), several, or none-recorded.</summary>
    public required string Factor { get; init; }

    /// <summary>Each setting that differed, first run's value then second's: "BUFFERCOUNT default then 50".</summary>
    public IReadOnlyList<string> Differed { get; init; } = [];

    /// <summary>The conclusion in one paragraph, numbers included.</summary>
    public required string Sentence { get; init; }

    public required Confidence Confidence { get; init; }

    /// <summary>The remedy the conclusion supports (docs/diagnosis.md ids); null when none.</summary>
    public string? RecommendationId { get; init; }
}

/// <summary>A finding located in one input that is no operation: an excerpt's timed runs compared (docs/input-formats.md, client output).</summary>
public sealed record InputFindingReport(string Input, string Location, string Message);
