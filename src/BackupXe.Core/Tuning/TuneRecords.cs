using System.Globalization;
using BackupXe.Core.Formatting;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Tuning;

/// <summary>How a tune's result becomes the record the history keeps.</summary>
public static class TuneRecords
{
    /// <summary>The tune's result as its record, finished at <paramref name="tunedAt"/> (UTC).</summary>
    public static TuneRecord Of(TuningResult result, string instance, DateTime tunedAt)
    {
        ArgumentNullException.ThrowIfNull(result);
        return new TuneRecord
        {
            Instance = instance,
            Database = result.Plan.Database,
            TunedAt = DateTime.SpecifyKind(tunedAt, DateTimeKind.Utc),
            BestOptions = result.Best?.Requested.Describe(),
            BestMBps = result.Best is { } best ? Math.Round(best.RateMBps, 2) : null,
            BaselineMBps = result.Baseline is { } baseline ? Math.Round(baseline.RateMBps, 2) : null,
            ReadCeilingMBps = result.ReadCeiling is { } ceiling ? Math.Round(ceiling.RateMBps, 2) : null,
            Gain = result.Gain is { } gain ? Math.Round(gain, 4) : null,
            GainUncertainty = result.GainUncertainty is { } uncertainty ? Math.Round(uncertainty, 4) : null,
            LimitingSide = Kebab.Of(TuningAdvice.Limit(result).Side),
            Trials = result.Trials.Count,
            Runs = result.Trials.Sum(t => t.Runs.Count),
            StopReason = result.StopReason,
            Refused = result.Refused,
            RecommendedSql = TuningAdvice.RecommendedSql(result),
            Differences = [.. result.Trials.Where(t => t.Differences.Count > 0)
                .Select(t => string.Create(CultureInfo.InvariantCulture, $"trial {t.Number}: {string.Join("; ", t.Differences)}"))],
        };
    }
}
