using BackupXe.Core.Events;
using BackupXe.Core.History;

namespace BackupXe.Core.Baselines;

/// <summary>
/// How a series usually goes: the rates and durations of the usual runs <see cref="BaselineComparer"/> sets a run
/// against, from their 10th to their 90th percentile, for a live ETA before a running operation's own progress gives
/// one (docs/live.md, "The ETA").
/// </summary>
public sealed record UsualPace(string Series, int Runs, double LowMBps, double MedianMBps, double HighMBps, double? LowSeconds, double? MedianSeconds, double? HighSeconds)
{
    /// <summary>The usual pace of <paramref name="running"/>'s series in <paramref name="history"/>; null when the history has too few usual runs of it.</summary>
    public static UsualPace? Of(ComparableRun running, IReadOnlyList<ComparableRun> history, BaselineComparisonSettings settings)
    {
        ArgumentNullException.ThrowIfNull(running);
        var others = history.Where(r => !HistoryMerge.SameOperation(r.Record, running.Record));
        var (_, _, usual, tooFew) = BaselineComparer.Baseline(running, others, settings);
        if (tooFew is not null)
        {
            return null;
        }

        var rates = usual.Select(r => r.ThroughputMBps!.Value).ToList();
        var durations = usual.Select(r => r.Record.DurationSeconds).OfType<double>().Where(d => d > 0).ToList();
        return new UsualPace(
            BaselineComparer.SeriesName(running),
            usual.Count,
            SeriesStatistics.Percentile(rates, 0.1)!.Value,
            SeriesStatistics.Percentile(rates, 0.5)!.Value,
            SeriesStatistics.Percentile(rates, 0.9)!.Value,
            SeriesStatistics.Percentile(durations, 0.1),
            SeriesStatistics.Percentile(durations, 0.5),
            SeriesStatistics.Percentile(durations, 0.9));
    }

    /// <summary>
    /// The time left, fastest, usual and slowest: the bytes left at the usual rates when the operation's size is known
    /// (<paramref name="estimatedBytes"/>), else the usual durations less the time already run, never below zero; null
    /// when neither can be told.
    /// </summary>
    public (TimeSpan Low, TimeSpan Usual, TimeSpan High)? Remaining(long? estimatedBytes, long? bytesDone, TimeSpan elapsed)
    {
        if (estimatedBytes is { } total && total > 0 && LowMBps > 0)
        {
            var left = Math.Max(0, total - (bytesDone ?? 0)) / 1048576.0;
            return (Seconds(left / HighMBps), Seconds(left / MedianMBps), Seconds(left / LowMBps));
        }

        if (LowSeconds is { } fast && MedianSeconds is { } usual && HighSeconds is { } slow)
        {
            var run = elapsed.TotalSeconds;
            return (Seconds(fast - run), Seconds(usual - run), Seconds(slow - run));
        }

        return null;
    }

    private static TimeSpan Seconds(double seconds)
        => TimeSpan.FromSeconds(double.IsFinite(seconds) ? Math.Clamp(seconds, 0, ServerRanges.MaxSeconds) : 0);
}
