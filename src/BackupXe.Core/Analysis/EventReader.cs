using BackupXe.Core.Events;

namespace BackupXe.Core.Analysis;

/// <summary>
/// What the analysis loop reads its events from, one at a time: a single synchronous source, whose reads complete at
/// once (<see cref="SynchronousReader"/>: one file, or several merged), or the time-ordered merge of any inputs (<see cref="MergedEventReader"/>).
/// </summary>
/// <remarks>
/// An enumerator whose <see cref="Current"/> and <see cref="SourceIndex"/> are fields, not calls: the loop then pays one
/// call per event, as a plain synchronous loop did (docs/performance.md, "One analysis loop").
/// </remarks>
internal abstract class EventReader : IAsyncDisposable
{
    /// <summary>The event the last successful <see cref="MoveNextAsync"/> read.</summary>
    public TraceEvent Current { get; protected set; } = null!;

    /// <summary>The index of the input <see cref="Current"/> came from.</summary>
    public int SourceIndex { get; protected set; }

    /// <summary>Reads the next event; false at the end of every input.</summary>
    public abstract ValueTask<bool> MoveNextAsync();

    public abstract ValueTask DisposeAsync();
}
