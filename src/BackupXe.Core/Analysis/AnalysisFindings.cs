using BackupXe.Core.Reporting;

namespace BackupXe.Core.Analysis;

/// <summary>
/// What a run noticed about its inputs rather than about any one operation: each input and its problems,
/// waits that could be tied to no operation, progress messages that arrived outside any operation.
/// </summary>
public sealed record AnalysisFindings(
    IReadOnlyList<InputReport> Inputs,
    long UnattributedWaits,
    long OrphanMessages)
{
    /// <summary>
    /// The server-level profile of waits without a session_id that ended while several operations ran, so
    /// could be tied to none of them (each operation counts its share in <see cref="OperationReport.AmbiguousWaits"/>).
    /// </summary>
    public IReadOnlyList<WaitReport> AmbiguousWaits { get; init; } = [];

    /// <summary>Runs of one series set side by side, within an input and across inputs: findings, not problems of an input.</summary>
    public IReadOnlyList<RunsComparedReport> RunsCompared { get; init; } = [];

    /// <summary>What an input shows that is no operation (an excerpt's timed runs compared), located in it: findings, not problems.</summary>
    public IReadOnlyList<InputFindingReport> InputFindings { get; init; } = [];

    /// <summary>True when not one input could be read at all.</summary>
    public bool NothingUsable { get; init; }

    /// <summary>True when at least one input was damaged or could not be read: the result is partial.</summary>
    public bool Partial { get; init; }
}
