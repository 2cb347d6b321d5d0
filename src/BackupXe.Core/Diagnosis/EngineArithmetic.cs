using BackupXe.Core.Reporting;

namespace BackupXe.Core.Diagnosis;

/// <summary>
/// Checks the engine's own completion arithmetic: MB/sec = pages x 8192 / 1048576 / seconds. Every real completion
/// line collected (docs/diagnosis.md, real-world fixtures S05, S13) holds within 1%; a line that does not was
/// altered or misread, and neither figure is trusted blindly.
/// </summary>
public static class EngineArithmetic
{
    /// <summary>How far apart the reported and recomputed rates may be: the engine rounds to 3 decimals.</summary>
    public const double Tolerance = 0.01;

    /// <summary>The rate the pages and seconds give, in MB (1,048,576 bytes) per second; null for no time.</summary>
    public static double? Recompute(long pages, double seconds) =>
        seconds > 0 && pages >= 0 ? pages * 8192d / OperationReportBuilder.BytesPerMegabyte / seconds : null;

    /// <summary>True when the reported rate is within <see cref="Tolerance"/> of the recomputed one; null when not checkable.</summary>
    public static bool? Agrees(long pages, double seconds, double reportedMBps) =>
        Recompute(pages, seconds) is not { } computed ? null
        : reportedMBps <= 0 ? computed == 0
        : Math.Abs(computed - reportedMBps) / reportedMBps <= Tolerance;

    /// <summary>The evidence sentence for a completion line: agreement, or the contradiction with both numbers.</summary>
    public static string? Sentence(EngineSummaryReport? summary)
    {
        if (summary is null || Recompute(summary.Pages, summary.Seconds) is not { } computed)
        {
            return null;
        }

        var figures = $"{Figures.AsPrinted(summary.Pages)} pages x 8 KB in {summary.Seconds.ToString("0.###", System.Globalization.CultureInfo.InvariantCulture)} s "
            + $"= {computed.ToString("0.###", System.Globalization.CultureInfo.InvariantCulture)} MB/s";
        var reported = $"{summary.MegabytesPerSecond.ToString("0.###", System.Globalization.CultureInfo.InvariantCulture)} MB/sec";
        if (Agrees(summary.Pages, summary.Seconds, summary.MegabytesPerSecond) == true)
        {
            return $"The engine's completion line is consistent: {figures}, as reported ({reported}).";
        }

        var apart = summary.MegabytesPerSecond > 0 ? Math.Abs(computed - summary.MegabytesPerSecond) / summary.MegabytesPerSecond : 1;
        return $"The engine's completion line contradicts itself: {figures}, but it reports {reported} ({Figures.Percent(apart)} apart; "
            + "every real line holds within 1%): the line was altered or misread, so neither its rate nor its seconds is trusted alone.";
    }
}
