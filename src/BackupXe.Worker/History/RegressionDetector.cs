using BackupXe.Core.Reporting;
using BackupXe.Worker.Configuration;
using Microsoft.Extensions.Options;

namespace BackupXe.Worker.History;

/// <summary>
/// Compares a completed operation's throughput with the median of its series' recent history
/// (docs/history.md, "Regression rule").
/// </summary>
public sealed class RegressionDetector(IHistoryStore history, IOptions<BackupXeOptions> options)
{
    private readonly RegressionOptions _settings = options.Value.Regression;

    /// <summary>The regression, or null when the operation is not one or there is too little history to say.</summary>
    public async Task<ThroughputRegression?> CheckAsync(string instance, OperationReport report, CancellationToken cancellationToken)
    {
        if (report.Status != OperationStatus.Completed || report.ThroughputMBps is not { } throughput || report.Start is not { } start)
        {
            return null;
        }

        var series = OperationSeries.Of(instance, report);
        var baseline = await history.RecentCompletedAsync(series, start, _settings.WindowSize, cancellationToken);
        var samples = baseline.Select(stored => stored.Report.ThroughputMBps!.Value).ToList();
        if (samples.Count < _settings.MinimumSamples)
        {
            return null;
        }

        var median = Median(samples);
        return median > 0 && throughput < _settings.ThresholdRatio * median
            ? new ThroughputRegression(series, throughput, median, samples.Count)
            : null;
    }

    // The median, not the mean: one backup that ran during a maintenance window must not move the baseline.
    private static double Median(List<double> values)
    {
        values.Sort();
        var middle = values.Count / 2;
        return values.Count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
    }
}

/// <summary>An operation that ran well below its series' recent median throughput.</summary>
public sealed record ThroughputRegression(OperationSeries Series, double ThroughputMBps, double MedianThroughputMBps, int Samples)
{
    public double PercentOfMedian => 100 * ThroughputMBps / MedianThroughputMBps;
}
