using BackupXe.Core.Reporting;

namespace BackupXe.Tests.Tuning;

/// <summary>The run-to-run and within-run noise the simulated backup and restore hosts draw from their seeded random.</summary>
internal static class SimulatedNoise
{
    /// <summary>A standard normal draw (Box-Muller).</summary>
    public static double Gaussian(this Random random)
    {
        var u1 = 1.0 - random.NextDouble();
        var u2 = random.NextDouble();
        return Math.Sqrt(-2.0 * Math.Log(u1)) * Math.Cos(2.0 * Math.PI * u2);
    }

    /// <summary>Bytes moved second by second at <paramref name="rate"/> MB/s, the rate wobbling around its mean a little (2%).</summary>
    public static ProgressReport WobblingProgress(this Random random, DateTime start, double seconds, double rate, string source)
    {
        var points = new List<ProgressPointReport> { new(start, 0) };
        var bytes = 0.0;
        for (var t = 1.0; t <= seconds; t += 1)
        {
            bytes += rate * ServerModel.MB * Math.Max(0.5, 1 + (0.02 * random.Gaussian()));
            points.Add(new ProgressPointReport(start.AddSeconds(t), (long)bytes));
        }

        return new ProgressReport(source, points);
    }
}
