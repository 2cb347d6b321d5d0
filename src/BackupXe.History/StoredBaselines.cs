using BackupXe.Core.Baselines;
using BackupXe.Core.Reporting;

namespace BackupXe.History;

/// <summary>
/// Sets a completed operation against its series in the store with the one history rule (<see cref="BaselineComparer"/>;
/// docs/history.md, "The regression rule" and "This run against its history").
/// </summary>
public sealed class StoredBaselines(IHistoryStore history, BaselineComparisonSettings settings)
{
    /// <summary>Operations of the instance read around the series for the concurrency figures; a day covers any backup's span.</summary>
    private const int ConcurrentLimit = 10_000;

    /// <summary>The comparison when it finds a regression, or null when the operation is not one or there is too little history to say.</summary>
    public async Task<BaselineComparisonReport?> CheckAsync(string instance, OperationReport report, CancellationToken cancellationToken)
        => Regression(await CompareAsync(instance, report, cancellationToken));

    /// <summary>
    /// The comparison when it amounts to a regression: slower than usual, by the rule's threshold and spread, with this
    /// run's rate and the usual median to say it by; else null.
    /// </summary>
    public static BaselineComparisonReport? Regression(BaselineComparisonReport? comparison)
        => comparison is { Verdict: BaselineVerdict.Slower, ThroughputMBps: not null, MedianMBps: not null } ? comparison : null;

    /// <summary>
    /// How a running operation's series usually goes on <paramref name="instance"/>, from the same earlier runs a
    /// comparison reads (<see cref="UsualPace"/>); null when they hold too few usual runs.
    /// </summary>
    public async Task<UsualPace?> PaceAsync(
        string instance, Core.Events.OperationKind kind, Core.Events.OperationScope? scope, string? database, DateTime start, IReadOnlyList<string> devices,
        CancellationToken cancellationToken)
    {
        var series = await history.RecentCompletedAsync(new OperationSeries(instance, database, kind, scope ?? Core.Events.OperationScope.Database), start, settings.Window * 3, cancellationToken);
        var runs = series.Select(s => ComparableRun.Of(s.Report)).OfType<ComparableRun>().ToList();
        return UsualPace.Of(ComparableRun.Running(kind, scope, database, start, devices), runs, settings);
    }

    /// <summary>The usual paces of one instance's series, for its live ETA (<see cref="BaselineEta"/>).</summary>
    public IUsualPaces PacesOf(string instance, CancellationToken cancellationToken) => new InstancePaces(this, instance, cancellationToken);

    /// <summary>The operation against its series; null when it has no start time (nothing places it in a series).</summary>
    public async Task<BaselineComparisonReport?> CompareAsync(string instance, OperationReport report, CancellationToken cancellationToken)
    {
        if (ComparableRun.Of(report) is not { } current || report.Start is not { } start)
        {
            return null;
        }

        // Enough earlier runs to find where a slow streak began and still have a window of usual runs before it.
        var series = await history.RecentCompletedAsync(OperationSeries.Of(instance, report), start, settings.Window * 3, cancellationToken);
        var from = series.Select(s => s.Report.Start).OfType<DateTime>().DefaultIfEmpty(start).Min().AddDays(-1);
        var around = await history.QueryAsync(
            new HistoryQuery(instance, Limit: ConcurrentLimit) { Since = from, Until = report.End ?? start },
            cancellationToken);

        var seen = new HashSet<(string?, Core.Events.OperationKind, Core.Events.OperationScope?, DateTime?)>();
        var runs = new List<ComparableRun>();
        foreach (var stored in series.Concat(around))
        {
            var r = stored.Report;
            if (seen.Add((r.Database?.ToUpperInvariant(), r.Kind, r.Scope, r.Start)) && ComparableRun.Of(r) is { } run)
            {
                runs.Add(run);
            }
        }

        var comparison = BaselineComparer.Compare(current, instance, runs, settings);

        // Whether production got what the last tune found: its result beside this run's rate.
        return report is { Kind: Core.Events.OperationKind.Backup, Scope: Core.Events.OperationScope.Database, Database: { } database }
            && await history.LastTuneAsync(instance, database, start, cancellationToken) is { } tune
            ? comparison with { LastTune = tune }
            : comparison;
    }
}

/// <summary>One instance's usual paces in the store, read under the monitor's token.</summary>
internal sealed class InstancePaces(StoredBaselines detector, string instance, CancellationToken cancellationToken) : IUsualPaces
{
    public Task<UsualPace?> PaceAsync(Core.Events.OperationKind kind, Core.Events.OperationScope? scope, string? database, DateTime start, IReadOnlyList<string> devices)
        => detector.PaceAsync(instance, kind, scope, database, start, devices, cancellationToken);
}
