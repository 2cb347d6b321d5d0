using System.Globalization;
using BackupXe.Core.Correlation;
using BackupXe.Core.Formatting;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Diagnosis;

/// <summary>
/// One timed run of a published excerpt: the engine's seconds and rate from a completion line whose head (kind,
/// database, often the pages) was cut with "..." (real-world S04, S05).
/// </summary>
/// <param name="Line">Where it was read, for the sentence.</param>
public sealed record TimedRun(int Line, long? Pages, double Seconds, double MegabytesPerSecond)
{
    /// <summary>
    /// Data processed, in MB: pages x 8 KB when the excerpt kept them, else the engine's rate x its seconds (each
    /// printed to 3 decimals, so within 0.2% for runs of half a second or more).
    /// </summary>
    public double Megabytes => Pages is { } pages
        ? pages * 8192d / OperationReportBuilder.BytesPerMegabyte
        : Seconds * MegabytesPerSecond;
}

/// <summary>
/// Two runs of the same excerpt side by side, the way a DBA reads "... in 1.414 seconds" over "... in 0.542 seconds":
/// how much time the second saved, whether both moved the same data, and what that says. The excerpt does not name
/// what changed between them (its author's prose did); the comparison says only what the figures show.
/// </summary>
public sealed record RunComparison(string? Label, TimedRun First, TimedRun Second, double QuickOperationSeconds)
{
    /// <summary>How far apart the two runs' data may be and still count as the same (the engine's own 1%).</summary>
    public const double SameDataTolerance = EngineArithmetic.Tolerance;

    /// <summary>|a - b| / the larger: 0 when both moved the same data.</summary>
    public double DataApart => Math.Abs(First.Megabytes - Second.Megabytes) / Math.Max(First.Megabytes, Second.Megabytes);

    public bool SameData => DataApart <= SameDataTolerance;

    /// <summary>First's seconds over second's: 2.61 when the second took 38% of the first's time.</summary>
    public double TimeRatio => First.Seconds / Second.Seconds;

    /// <summary>Second's rate over first's.</summary>
    public double RateRatio => Second.MegabytesPerSecond / First.MegabytesPerSecond;

    /// <summary>The share of the first run's time the second saved (negative when it took longer): S04c 7%.</summary>
    public double TimeSaved => 1 - (Second.Seconds / First.Seconds);

    /// <summary>
    /// <see cref="Bottleneck.NotAThroughputProblem"/> when both runs are quick (fixed overhead weighs as much as the
    /// data, so the gain is a fraction of a few seconds); null when one ran long enough to be judged.
    /// </summary>
    public Bottleneck? Verdict => Math.Max(First.Seconds, Second.Seconds) < QuickOperationSeconds ? Bottleneck.NotAThroughputProblem : null;

    /// <summary>What the pair shows, with the numbers.</summary>
    public string Sentence()
    {
        var where = Label is null ? $"Lines {First.Line} and {Second.Line}" : $"{Label} (lines {First.Line} and {Second.Line})";
        var data = SameData
            ? $"the same {Mb(First.Megabytes)} (within {Figures.Percent(SameDataTolerance)})"
            : $"{Mb(First.Megabytes)} and {Mb(Second.Megabytes)} ({Figures.Percent(DataApart)} apart, so the rates compare, not the times)";
        var change = TimeSaved >= 0
            ? $"the second took {Figures.Percent(TimeSaved)} less time ({Ratio(TimeRatio)} faster by time, {Ratio(RateRatio)} by rate)"
            : $"the second took {Figures.Percent(-TimeSaved)} more time ({Ratio(1 / TimeRatio)} slower by time, {Ratio(RateRatio)} by rate)";
        var sentence = $"{where}: {data} in {Exact(First.Seconds)} s ({Exact(First.MegabytesPerSecond)} MB/s) and {Exact(Second.Seconds)} s "
            + $"({Exact(Second.MegabytesPerSecond)} MB/s): {change}.";
        if (Verdict == Bottleneck.NotAThroughputProblem)
        {
            return sentence + $" Both ran under {Figures.Seconds(QuickOperationSeconds)}: not a throughput problem; "
                + $"the difference is {Exact(Math.Abs(First.Seconds - Second.Seconds))} s of runs whose fixed steps weigh as much as their data.";
        }

        var (fast, slow) = Second.MegabytesPerSecond >= First.MegabytesPerSecond ? (Second, First) : (First, Second);
        var sameSource = SameData ? "" : ", if both read the same database,";
        return sentence + $" Line {fast.Line}'s run read the data at {Exact(fast.MegabytesPerSecond)} MB/s, so line {slow.Line}'s "
            + $"{Exact(slow.MegabytesPerSecond)} MB/s{sameSource} was not limited by reading the data files: what limited it is on the side "
            + "the change between the runs acted on.";
    }

    private static string Mb(double megabytes) => megabytes.ToString("0.0", CultureInfo.InvariantCulture) + " MB";

    private static string Exact(double value) => value.ToString("0.###", CultureInfo.InvariantCulture);

    private static string Ratio(double ratio) => ratio.ToString("0.00", CultureInfo.InvariantCulture) + "x";
}
