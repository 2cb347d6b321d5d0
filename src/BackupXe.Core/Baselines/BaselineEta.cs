using System.Globalization;
using BackupXe.Core.Formatting;
using BackupXe.Core.Pipeline;

namespace BackupXe.Core.Baselines;

/// <summary>
/// The live ETA of running operations, for <c>watch</c> and the daemon alike: the operation's own interval once its
/// readings give one, before that the history's (docs/live.md, "The ETA"): the bytes left at its series' usual rates,
/// else its usual durations less the time run. Each running operation's series is looked up once, not at every event;
/// a lookup that has not answered yet, or failed, gives no ETA from the history.
/// </summary>
public sealed class BaselineEta(IUsualPaces history)
{
    /// <summary>What <see cref="OperationProgress.EtaBasis"/> says when the operation's own readings give the interval.</summary>
    public const string OwnProgress = "from its progress";

    private readonly PerRunningOperation<(Task<UsualPace?> Pace, int Devices)> _paces = new();

    public IReadOnlyList<OperationProgress> Apply(IReadOnlyList<OperationProgress> running)
    {
        _paces.KeepOnly(running);
        return running.Select(With).ToList();
    }

    private OperationProgress With(OperationProgress op)
    {
        if (op.RemainingRange is not null)
        {
            return op with { EtaBasis = OwnProgress };
        }

        if (OperationProgress.IsPhaseWithoutProgress(op.Phase))
        {
            // A phase that moves no bytes shows its time in the phase, not an ETA.
            return op;
        }

        // Devices arrive with the first events, and the target type is part of the series: looked up again when they change.
        if (!_paces.TryGet(op, out var known) || known.Devices != op.Devices.Count)
        {
            known = (history.PaceAsync(op.Kind, op.Scope, op.Database, op.Since, op.Devices), op.Devices.Count);
            _paces.Set(op, known);
        }

        if (known.Pace.IsFaulted)
        {
            // Observed, so that it is not rethrown as unobserved: the store's own writes report a failing history.
            _ = known.Pace.Exception;
        }

        if (!known.Pace.IsCompletedSuccessfully || known.Pace.Result is not { } pace
            || pace.Remaining(op.EstimatedBytes, op.BytesProcessed, op.Elapsed) is not { } left)
        {
            return op;
        }

        var basis = op.EstimatedBytes is > 0
            ? string.Create(CultureInfo.InvariantCulture, $"from history: its size at the usual {pace.LowMBps:0} to {pace.HighMBps:0} MB/s of {pace.Runs} runs")
            : $"from history: the usual {Figures.Duration(pace.LowSeconds)} to {Figures.Duration(pace.HighSeconds)} of {pace.Runs} runs, less the time run";
        return op with
        {
            Remaining = left.Usual,
            RemainingRange = (left.Low, left.High),
            EtaBasis = basis,
        };
    }
}
