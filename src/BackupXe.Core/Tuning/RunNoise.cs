namespace BackupXe.Core.Tuning;

/// <summary>
/// Run-to-run noise as measured: the relative deviation pooled over every option set measured more than once, never
/// less than <see cref="Tuner.MinimumNoise"/> when two means are compared.
/// </summary>
internal static class RunNoise
{
    public static double Pooled(IEnumerable<IComparedTrial> trials)
    {
        var repeated = trials.Select(t => (Mean: t.RateMBps, Rates: t.MeasuredRates)).Where(s => s.Rates.Count >= 2 && s.Mean > 0).ToList();
        var degrees = repeated.Sum(s => s.Rates.Count - 1);
        var squares = repeated.Sum(s => s.Rates.Sum(r => (r - s.Mean) / s.Mean * ((r - s.Mean) / s.Mean)));
        return degrees == 0 ? 0 : Math.Sqrt(squares / degrees);
    }

    /// <summary>The relative standard deviation of the difference of the two trials' means, over the runs behind each.</summary>
    public static double OfDifference(IComparedTrial a, IComparedTrial b, IEnumerable<IComparedTrial> trials) =>
        Math.Max(Tuner.MinimumNoise, Pooled(trials)) * Math.Sqrt(1.0 / Math.Max(1, a.MeasuredRates.Count) + 1.0 / Math.Max(1, b.MeasuredRates.Count));
}
