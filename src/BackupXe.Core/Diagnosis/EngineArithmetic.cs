using System.Globalization;
using BackupXe.Core.Correlation;
using BackupXe.Core.Formatting;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Diagnosis;

/// <summary>
/// Cross-checks the engine's completion line, "N pages in S seconds (R MB/sec)". The printed figures are the engine's
/// and are reported as printed; this only says whether they fit together, and how. The engine rates the bytes it
/// actually moved while its page count rounds them up to whole pages, per file, and both decimals are printed to three
/// places: so the bytes the rate implies, R x S x 1,048,576, lie above N - F pages and at most N pages (F: the files
/// with pages), give or take one unit of each printed decimal (whether the engine rounds or truncates them is not
/// documented). Small log operations show it: 2 pages in 0.074 s at 0.171 MB/sec is 1.6 pages of bytes
/// (docs/diagnosis.md, real-world T02, T12). Every completion line of both real-world sets fits.
/// </summary>
internal static class EngineArithmetic
{
    /// <summary>
    /// How far apart the recomputed and reported rates of large operations are at most (their page rounding is
    /// negligible): what <see cref="RunComparison"/> takes as the same data.
    /// </summary>
    public const double Tolerance = 0.01;

    /// <summary>One unit of the third decimal: the precision of the printed seconds and MB/sec.</summary>
    public const double PrintedUnit = 0.001;

    private const double PageBytes = 8192d;

    /// <summary>The rate the pages and seconds give, in MB (1,048,576 bytes) per second; null for no time.</summary>
    public static double? Recompute(long pages, double seconds) =>
        seconds > 0 && pages >= 0 ? pages * PageBytes / OperationReportBuilder.BytesPerMegabyte / seconds : null;

    /// <summary>The bytes the printed rate and seconds stand for; null for no time.</summary>
    public static double? ImpliedBytes(double seconds, double reportedMBps) =>
        seconds > 0 && reportedMBps >= 0 ? reportedMBps * seconds * OperationReportBuilder.BytesPerMegabyte : null;

    /// <summary>
    /// True when the printed figures fit together once the page rounding (<paramref name="files"/> files, each rounded
    /// up) and the printed decimals are allowed for; false when nothing rounding does explains them; null when not checkable.
    /// </summary>
    public static bool? Agrees(long pages, double seconds, double reportedMBps, int files = 1)
    {
        if (seconds <= 0 || pages < 0 || reportedMBps < 0 || !double.IsFinite(seconds) || !double.IsFinite(reportedMBps))
        {
            return null;
        }

        var least = Math.Max(0, reportedMBps - PrintedUnit) * Math.Max(0, seconds - PrintedUnit) * OperationReportBuilder.BytesPerMegabyte;
        var most = (reportedMBps + PrintedUnit) * (seconds + PrintedUnit) * OperationReportBuilder.BytesPerMegabyte;
        var counted = pages * PageBytes;
        var rounded = Math.Max(1, files) * PageBytes;
        return most > counted - rounded && least <= counted;
    }

    /// <summary>The files of an operation whose page counts were each rounded up: those with pages, at least one.</summary>
    public static int RoundedFiles(IEnumerable<ProcessedFileReport> files) => Math.Max(1, files.Count(f => f.Pages > 0));

    /// <summary>
    /// The evidence sentence for a completion line: that it is consistent, that the page rounding accounts for the
    /// difference, or, stated as a fact about the numbers, that no rounding does.
    /// </summary>
    public static string? Sentence(EngineSummaryReport? summary, int files = 1)
    {
        if (summary is null || Recompute(summary.Pages, summary.Seconds) is not { } computed
            || Agrees(summary.Pages, summary.Seconds, summary.MegabytesPerSecond, files) is not { } agrees)
        {
            return null;
        }

        var seconds = summary.Seconds.ToString("0.###", CultureInfo.InvariantCulture);
        var figures = $"{Figures.AsPrinted(summary.Pages)} pages x 8 KB in {seconds} s = {Three(computed)} MB/s";
        var reported = $"{Three(summary.MegabytesPerSecond)} MB/sec";
        var apart = summary.MegabytesPerSecond > 0 ? Math.Abs(computed - summary.MegabytesPerSecond) / summary.MegabytesPerSecond : 1;
        var bytes = ImpliedBytes(summary.Seconds, summary.MegabytesPerSecond)!.Value;
        var moved = $"{Math.Round(bytes).ToString("#,0", CultureInfo.InvariantCulture)} bytes, "
            + $"{(bytes / PageBytes).ToString("0.0", CultureInfo.InvariantCulture)} pages";
        if (agrees && (apart <= Tolerance || computed == 0))
        {
            return $"The engine's completion line is consistent: {figures}, as reported ({reported}).";
        }

        if (agrees)
        {
            return $"The engine's completion line reports {reported} where {figures} ({Figures.Percent(apart)} apart), and both are right: "
                + $"its rate counts the bytes it moved ({moved}) and its page count rounds them up to whole pages, "
                + "which weighs on an operation of a few pages. The rate is the engine's, reported as printed.";
        }

        return $"The completion line's figures do not fit together: {figures}, but its rate is {reported} ({Figures.Percent(apart)} apart), "
            + $"which stands for {moved}: neither rounding the page count up nor the printed decimals accounts for that. "
            + "The rate is reported as printed; the pages and seconds are the line's own.";
    }

    private static string Three(double value) => value.ToString("0.###", CultureInfo.InvariantCulture);
}
