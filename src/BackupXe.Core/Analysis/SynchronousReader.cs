namespace BackupXe.Core.Analysis;

/// <summary>
/// An <see cref="EventReader"/> whose reads complete at once, so the analysis loop can read it in a plain loop and
/// suspend per report, not per event: a single file (<see cref="SynchronousEventReader"/>) or several merged
/// (<see cref="SynchronousMergeReader"/>).
/// </summary>
internal abstract class SynchronousReader : EventReader
{
    /// <summary>Reads the next event; false at the end.</summary>
    public abstract bool MoveNext();

    public sealed override ValueTask<bool> MoveNextAsync() => new(MoveNext());
}
