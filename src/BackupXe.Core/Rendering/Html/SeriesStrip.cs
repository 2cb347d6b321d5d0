using System.Globalization;
using System.Net;
using System.Text;
using BackupXe.Core.Formatting;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Rendering.Html;

/// <summary>
/// A small inline SVG of a series' MB/s, oldest run left: the usual p10-p90 band, the median line, each run a dot
/// (slow runs and this one in their own colours). Presentation attributes only, which the page's policy allows.
/// </summary>
internal static class SeriesStrip
{
    private const int Width = 360;
    private const int Height = 72;
    private const int Pad = 6;

    public static string Svg(BaselineComparisonReport history)
    {
        var points = history.Points;
        var top = Math.Max(points.Max(p => p.ThroughputMBps), history.P90MBps ?? 0) * 1.1;
        if (top <= 0)
        {
            top = 1;
        }

        double X(int i) => points.Count == 1 ? Width / 2.0 : Pad + (i * (Width - (2.0 * Pad)) / (points.Count - 1));
        double Y(double mbps) => Height - Pad - (mbps / top * (Height - (2.0 * Pad)));

        var svg = new StringBuilder();
        var label = string.Create(CultureInfo.InvariantCulture, $"MB/s of {points.Count} runs of {history.Series}, this run last: {points[^1].ThroughputMBps:0.#} MB/s");
        svg.Append(CultureInfo.InvariantCulture, $"<svg class=\"series-strip\" role=\"img\" width=\"{Width}\" height=\"{Height}\" viewBox=\"0 0 {Width} {Height}\" aria-label=\"{WebUtility.HtmlEncode(label)}\">");
        if (history.P10MBps is { } p10 && history.P90MBps is { } p90)
        {
            svg.Append(CultureInfo.InvariantCulture, $"<rect x=\"0\" y=\"{Y(p90):0.#}\" width=\"{Width}\" height=\"{Math.Max(1, Y(p10) - Y(p90)):0.#}\" fill=\"#9ecae1\" fill-opacity=\"0.35\"><title>usual p10-p90</title></rect>");
        }

        if (history.MedianMBps is { } median)
        {
            svg.Append(CultureInfo.InvariantCulture, $"<line x1=\"0\" x2=\"{Width}\" y1=\"{Y(median):0.#}\" y2=\"{Y(median):0.#}\" stroke=\"#3182bd\" stroke-dasharray=\"4 3\"><title>median {median:0.#} MB/s</title></line>");
        }

        for (var i = 0; i < points.Count; i++)
        {
            var p = points[i];
            var (fill, radius) = p.Role switch { "this" => ("#d62728", 5), "slow" => ("#ff7f0e", 3.5), "usual" => ("#3182bd", 3), _ => ("#999999", 3) };
            svg.Append(CultureInfo.InvariantCulture, $"<circle cx=\"{X(i):0.#}\" cy=\"{Y(p.ThroughputMBps):0.#}\" r=\"{radius}\" fill=\"{fill}\" data-role=\"{p.Role}\"><title>{WebUtility.HtmlEncode(Figures.Timestamp(p.Start))}: {p.ThroughputMBps:0.#} MB/s ({p.Role})</title></circle>");
        }

        svg.Append("</svg>");
        return svg.ToString();
    }
}
