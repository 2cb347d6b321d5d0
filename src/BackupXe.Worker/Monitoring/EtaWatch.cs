using BackupXe.Core.Baselines;
using BackupXe.Core.Pipeline;

namespace BackupXe.Worker.Monitoring;

/// <summary>
/// The running operations whose ETA is worth a log line: when it is first known and whenever what it rests on changes
/// (the history's usual durations, then its usual rates once the size is known, then the operation's own progress), so
/// a few lines per operation, not one per progress event. Keeps state only for running operations.
/// </summary>
internal sealed class EtaWatch
{
    private readonly PerRunningOperation<string> _said = new();

    public IReadOnlyList<OperationProgress> Update(IReadOnlyList<OperationProgress> running)
    {
        List<OperationProgress>? changed = null;
        foreach (var op in running)
        {
            if (op.RemainingRange is null)
            {
                continue;
            }

            var basis = Basis(op);
            if (!_said.TryGet(op, out var said) || said != basis)
            {
                _said.Set(op, basis);
                (changed ??= []).Add(op);
            }
        }

        _said.KeepOnly(running);
        return changed ?? [];
    }

    /// <summary>What the interval rests on; without a history to look in, an interval is the operation's own.</summary>
    public static string Basis(OperationProgress op) => op.EtaBasis ?? BaselineEta.OwnProgress;
}
