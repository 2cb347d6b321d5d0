using BackupXe.Core.History;
using BackupXe.Core.Pipeline;

namespace BackupXe.Worker.Monitoring;

/// <summary>
/// The running operations whose ETA is worth a log line: when it is first known and whenever what it rests on changes
/// (the history's usual durations, then its usual rates once the size is known, then the operation's own progress), so
/// a few lines per operation, not one per progress event. Keeps state only for running operations.
/// </summary>
internal sealed class EtaWatch
{
    private readonly Dictionary<(int?, string?, DateTime), string> _said = [];

    public IReadOnlyList<OperationProgress> Update(IReadOnlyList<OperationProgress> running)
    {
        List<OperationProgress>? changed = null;
        var keys = new HashSet<(int?, string?, DateTime)>();
        foreach (var op in running)
        {
            var key = (op.SessionId, op.Database, op.Since);
            keys.Add(key);
            if (op.RemainingRange is null)
            {
                continue;
            }

            var basis = Basis(op);
            if (!_said.TryGetValue(key, out var said) || said != basis)
            {
                _said[key] = basis;
                (changed ??= []).Add(op);
            }
        }

        foreach (var gone in _said.Keys.Where(key => !keys.Contains(key)).ToList())
        {
            _said.Remove(gone);
        }

        return changed ?? [];
    }

    /// <summary>What the interval rests on; without a history to look in, an interval is the operation's own.</summary>
    public static string Basis(OperationProgress op) => op.EtaBasis ?? HistoryEta.OwnProgress;
}
