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
            Restore = result.Restore is { } restore ? Of(restore) : null,
        };
    }

    /// <summary>The restore trials as the record keeps them, rates rounded as the backup side's are.</summary>
    public static RestoreTuneRecord Of(RestoreTuningResult restore)
    {
        ArgumentNullException.ThrowIfNull(restore);
        return new RestoreTuneRecord
        {
            BestOptions = restore.Best?.Options,
            BestMBps = restore.Best is { } best ? Math.Round(best.RateMBps, 2) : null,
            DefaultsMBps = restore.Trials is [{ } first, ..] ? Math.Round(first.RateMBps, 2) : null,
            Gain = restore.Gain is { } gain ? Math.Round(gain, 4) : null,
            InstantFileInitialization = restore.InstantFileInitialization,
            StopReason = restore.StopReason,
            Refused = restore.Refused,
            Trials = [.. restore.Trials.Select(t => new RestoreTrialRecord
            {
                Number = t.Number,
                Options = t.Options,
                RateMBps = Math.Round(t.RateMBps, 2),
                Runs = t.Runs.Count,
                ZeroingSeconds = t.ZeroingSeconds is { } zeroing ? Math.Round(zeroing, 2) : null,
                Limit = t.Limit is { } limit ? Kebab.Of(limit.Side) : null,
                OptionsDiffer = t.OptionsDiffer,
                Differences = t.Differences,
            })],
            NotDropped = restore.NotDropped,
        };
    }
}
