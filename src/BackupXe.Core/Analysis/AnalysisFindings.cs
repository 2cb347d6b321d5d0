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
    /// <summary>True when not one input could be read at all.</summary>
    public bool NothingUsable { get; init; }

    /// <summary>True when at least one input was damaged or could not be read: the result is partial.</summary>
    public bool Partial { get; init; }
}
