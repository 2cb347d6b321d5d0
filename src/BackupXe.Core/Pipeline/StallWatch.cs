using BackupXe.Core.Reporting;

namespace BackupXe.Core.Pipeline;

/// <summary>A quiet period to announce once: <paramref name="Ended"/> when it was only seen after bytes moved again.</summary>
public sealed record StallNotice(OperationProgress Operation, QuietPeriod Period, bool Ended);

/// <summary>
/// Announces each quiet period of the running operations once (docs/live.md): while it lasts, when the clock ticks
/// through it (a live server, a paced replay), or once it has ended when no tick came in between (a replay read as
/// fast as possible, a poll that arrived after the bytes moved again). Keeps state only for running operations.
/// </summary>
public sealed class StallWatch
{
    private readonly PerRunningOperation<HashSet<DateTime>> _announced = new();

    public IReadOnlyList<StallNotice> Update(IReadOnlyList<OperationProgress> running)
    {
        List<StallNotice>? notices = null;
        foreach (var op in running)
        {
            if (op.Quiet is null && op.EndedQuiet.Count == 0)
            {
                continue;
            }

            if (!_announced.TryGet(op, out var announced))
            {
                _announced.Set(op, announced = []);
            }

            foreach (var ended in op.EndedQuiet)
            {
                if (announced.Add(ended.From))
                {
                    (notices ??= []).Add(new StallNotice(op, ended, Ended: true));
                }
            }

            if (op.Quiet is { } quiet && announced.Add(quiet.From))
            {
                (notices ??= []).Add(new StallNotice(op, quiet, Ended: false));
            }
        }

        _announced.KeepOnly(running);
        return notices ?? [];
    }

    /// <summary>Operations with a quiet period remembered.</summary>
    public int Remembered => _announced.Count;
}
