namespace BackupXe.Core.Pipeline;

/// <summary>
/// What a live consumer remembers of each running operation between progress updates (what it said, what it looked
/// up), forgotten once the operation is no longer running: memory follows operations in flight. An operation is the
/// same across updates by its session, database and first event (<see cref="OperationProgress.Since"/>).
/// </summary>
public sealed class PerRunningOperation<T>
{
    private readonly Dictionary<(int?, string?, DateTime), T> _state = [];

    /// <summary>Operations remembered.</summary>
    public int Count => _state.Count;

    public bool TryGet(OperationProgress op, out T value) => _state.TryGetValue(Key(op), out value!);

    public void Set(OperationProgress op, T value) => _state[Key(op)] = value;

    /// <summary>Forgets the operations not in <paramref name="running"/>, the latest update's list.</summary>
    public void KeepOnly(IReadOnlyList<OperationProgress> running)
    {
        if (_state.Count == 0)
        {
            return;
        }

        var keep = running.Select(Key).ToHashSet();
        foreach (var gone in _state.Keys.Where(key => !keep.Contains(key)).ToList())
        {
            _state.Remove(gone);
        }
    }

    private static (int?, string?, DateTime) Key(OperationProgress op) => (op.SessionId, op.Database, op.Since);
}
