using System.Globalization;
using System.Text;
using BackupXe.Core.Baselines;
using BackupXe.Core.Events;
using BackupXe.Core.Formatting;
using BackupXe.Core.Parsing;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;

namespace BackupXe.Cli.Rendering;

/// <summary>Per-series history statistics as text, Markdown, CSV or JSON (docs/history.md, "Statistics and their resolution").</summary>
internal static class HistoryStatisticsWriter
{
    private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;

    /// <summary>Plain lines: one paragraph per series, then its regression and settings-vs-speed lines.</summary>
    public static void WriteText(TextWriter output, IReadOnlyList<SeriesFigures> series)
    {
        if (series.Count == 0)
        {
            output.WriteLine("No history to summarise.");
            return;
        }

        foreach (var s in series)
        {
            output.WriteLine(Title(s));
            output.WriteLine($"  {Summary(s)}");
            foreach (var line in Findings(s))
            {
                output.WriteLine($"  {line}");
            }

            foreach (var note in s.Notes)
            {
                output.WriteLine($"  note: {note}");
            }

            output.WriteLine();
        }
    }

    public static void WriteMarkdown(TextWriter output, IReadOnlyList<SeriesFigures> series)
    {
        output.WriteLine("| Series | Runs | Failed | Ranked | Median MB/s | p10 | p90 | Min | Max | Median duration | Timed to |");
        output.WriteLine("|---|---|---|---|---|---|---|---|---|---|---|");
        foreach (var s in series)
        {
            output.WriteLine(string.Join(" | ", new[]
            {
                $"| {Cell(Title(s))}", Count(s.Count), Count(s.Failed), Count(s.Ranked), Rate(s.MedianMBps), Rate(s.P10MBps), Rate(s.P90MBps),
                Rate(s.MinMBps), Rate(s.MaxMBps), Figures.Duration(s.MedianSeconds), $"{Resolution(s.ResolutionSeconds)} |",
            }));
        }

        output.WriteLine();
        foreach (var s in series)
        {
            foreach (var line in Findings(s).Concat(s.Notes.Select(n => $"note: {n}")))
            {
                output.WriteLine($"- {Cell(Title(s))}: {Cell(line)}");
            }
        }
    }

    public static void WriteCsv(TextWriter output, IReadOnlyList<SeriesFigures> series)
    {
        output.WriteLine("instance,database,kind,scope,runs,failed,ranked,first,last,median_mbps,p10_mbps,p90_mbps,min_mbps,max_mbps,median_seconds,duration_trend,size_trend,resolution_seconds,sources,regression_since,regression_runs,regression_median_mbps,baseline_median_mbps,fastest_settings,notes");
        foreach (var s in series)
        {
            var fastest = s.SettingsVsSpeed.Count > 0 ? s.SettingsVsSpeed[0].Settings : null;
            string?[] cells =
            [
                s.Key.Instance, s.Key.Database, Kebab.Of(s.Key.Kind), Kebab.Of(s.Key.Scope), Count(s.Count), Count(s.Failed), Count(s.Ranked),
                Stamp(s.First), Stamp(s.Last), Number(s.MedianMBps), Number(s.P10MBps), Number(s.P90MBps), Number(s.MinMBps), Number(s.MaxMBps),
                Number(s.MedianSeconds), Number(s.DurationTrend), Number(s.SizeTrend), Number(s.ResolutionSeconds),
                string.Join(' ', s.Sources.Select(Kebab.Of)), Stamp(s.Regression?.Since), s.Regression is { } r ? Count(r.Runs) : null,
                Number(s.Regression?.MedianMBps), Number(s.Regression?.BaselineMedianMBps), fastest, string.Join(" / ", s.Notes),
            ];
            output.WriteLine(string.Join(',', cells.Select(Csv)));
        }
    }

    // Every text of the summary names its series first: neutralised here, for the console, markdown and CSV alike.
    private static string Title(SeriesFigures s) => TerminalText.Line(RawTitle(s));

    private static string RawTitle(SeriesFigures s)
    {
        var what = (s.Key.Kind, s.Key.Scope) switch
        {
            (OperationKind.Restore, OperationScope.Log) => "log restores",
            (OperationKind.Restore, _) => "restores",
            (_, OperationScope.Log) => "log backups",
            (_, OperationScope.Differential) => "differential backups",
            (_, OperationScope.File) => "file backups",
            _ => "full backups",
        };
        return $"[{s.Key.Database ?? "?"}] on {s.Key.Instance}, {what}";
    }

    private static string Summary(SeriesFigures s)
    {
        var text = new StringBuilder();
        text.Append(Invariant, $"{s.Count} runs");
        if (s.Failed > 0)
        {
            text.Append(Invariant, $" ({s.Failed} failed)");
        }

        text.Append(Invariant, $" from {Figures.Timestamp(s.First)} to {Figures.Timestamp(s.Last)}, {s.Ranked} ranked");
        if (s.MedianMBps is { } median)
        {
            text.Append(Invariant, $": median {Figures.Rate(median)} (p10 {Rate(s.P10MBps)}, p90 {Rate(s.P90MBps)}, min {Rate(s.MinMBps)}, max {Rate(s.MaxMBps)}), median duration {Figures.Duration(s.MedianSeconds)}");
        }
        else
        {
            text.Append(": no speed figure is meaningful (see the notes)");
        }

        if (s.DurationTrend is { } duration)
        {
            text.Append(Invariant, $"; later runs take {duration:0.##}x the time of earlier ones");
        }

        if (s.SizeTrend is { } size)
        {
            text.Append(Invariant, $"; size {size:0.##}x from first to last");
        }

        text.Append(Invariant, $"; sources: {string.Join(", ", s.Sources.Select(Kebab.Of))}");
        return text.ToString();
    }

    private static IEnumerable<string> Findings(SeriesFigures s)
    {
        if (s.Regression is { } r)
        {
            yield return string.Create(
                Invariant,
                $"slower since {Figures.Timestamp(r.Since)}: the last {r.Runs} runs at a median {Figures.Rate(r.MedianMBps)}, the latest {r.Factor:0.0}x slower than the {Figures.Rate(r.BaselineMedianMBps)} median of the {r.BaselineRuns} usual runs before (the regression rule)");
        }

        if (s.SettingsVsSpeed.Count > 0)
        {
            yield return "settings vs speed (fastest first): " + string.Join(
                "; ",
                s.SettingsVsSpeed.Select(v => string.Create(Invariant, $"{v.Settings}: {Figures.Rate(v.MedianMBps)} median over {v.Runs} runs")));
        }

        foreach (var option in s.OptionSpeeds)
        {
            yield return $"by {option.Option} (fastest first): " + string.Join(
                "; ",
                option.Values.Select(v => string.Create(Invariant, $"{v.Settings}: {Figures.Rate(v.MedianMBps)} over {v.Runs} runs")));
        }
    }

    private static string Resolution(double seconds)
        => seconds >= 1 ? string.Create(Invariant, $"{seconds:0.###} s") : string.Create(Invariant, $"{seconds * 1000:0.###} ms");

    private static string Rate(double? value) => value is { } v ? string.Create(Invariant, $"{v:0.#}") : "-";

    private static string Count(int value) => value.ToString(Invariant);

    private static string? Number(double? value) => value?.ToString("0.###", Invariant);

    private static string? Stamp(DateTime? value) => value?.ToString("yyyy-MM-dd'T'HH:mm:ss.fff", Invariant);

    private static string Cell(string text) => text.Replace("|", "\\|", StringComparison.Ordinal);

    private static string Csv(string? value) => CsvCell.Of(value);
}
