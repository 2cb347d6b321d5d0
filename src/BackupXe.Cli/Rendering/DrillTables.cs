using System.Globalization;
using BackupXe.Core.Drill;
using BackupXe.Core.Formatting;
using BackupXe.Core.Rendering;
using BackupXe.Core.Rendering.Html;

namespace BackupXe.Cli.Rendering;

/// <summary>
/// The drill's measured tables, built once for every format (console, Markdown, HTML): the phases on BackupXe's clock,
/// and the phases inside each RESTORE as the capture session timed them; each format only lays the rows out.
/// </summary>
internal static class DrillTables
{
    /// <summary>Seconds per phase name in the order first run (the log restores are one row), with how many statements.</summary>
    public static HtmlTable Phases(RestoreDrillResult result) => new(
        "phases",
        [new("phase"), new("time"), new("seconds", "seconds"), new("statements", "statements")],
        result.ByPhase().Select(p => (IReadOnlyList<HtmlCell>)
        [
            new(p.Phase), new(Figures.Duration(p.Seconds)), new(p.Seconds.ToString("0.000", CultureInfo.InvariantCulture), p.Seconds),
            new(p.Statements.ToString(CultureInfo.InvariantCulture), p.Statements),
        ]).ToList());

    /// <summary>Each captured RESTORE's phases (a file's zeroing with its path), with time and rate; null when no RESTORE was captured.</summary>
    public static HtmlTable? Inside(RestoreDrillResult result)
    {
        var rows = new List<IReadOnlyList<HtmlCell>>();
        foreach (var (step, capture) in Captured(result))
        {
            foreach (var phase in capture.Phases)
            {
                rows.Add(
                [
                    new(step), new(phase.Detail is null ? phase.Name : phase.Name + " " + phase.Detail),
                    new(Figures.Duration(phase.Seconds)), new(phase.Seconds?.ToString("0.000", CultureInfo.InvariantCulture) ?? string.Empty, phase.Seconds),
                    new(phase.Bytes is { } bytes ? Figures.Bytes(bytes) : string.Empty, phase.Bytes),
                    new(phase.MegabytesPerSecond is { } rate ? Figures.Rate(rate) : string.Empty, phase.MegabytesPerSecond),
                ]);
            }
        }

        return rows.Count == 0 ? null : new HtmlTable(
            "inside",
            [new("restore"), new("phase inside the server"), new("time"), new("seconds", "seconds"), new("bytes", "bytes"), new("rate", "megabytesPerSecond")],
            rows);
    }

    /// <summary>The rows of <see cref="Inside"/> that were timed, as bars: "restore full: transfer-data" and its time.</summary>
    public static IReadOnlyList<HtmlBar> InsideBars(RestoreDrillResult result) =>
        [.. Captured(result).SelectMany(c => c.Capture.Phases.Where(p => p.Seconds is not null).Select(p =>
            new HtmlBar($"{c.Step}: {p.Name}{(p.Detail is null ? string.Empty : " " + Path.GetFileName(p.Detail.Replace('\\', '/')))}", p.Seconds!.Value, Figures.Duration(p.Seconds))))];

    /// <summary>One line per RESTORE run under the capture: its diagnosis (as any operation's), or why it was not captured.</summary>
    public static IReadOnlyList<string> Diagnoses(RestoreDrillResult result)
    {
        var lines = new List<string>();
        foreach (var (step, capture) in Captured(result))
        {
            var whole = $"{Figures.Duration(capture.Seconds)} in the server{(capture.ThroughputMBps is { } rate ? ", " + Figures.Rate(rate) + " overall" : string.Empty)}";
            lines.Add(capture.Verdict is { } verdict
                ? $"{step}: {whole}; {Kebab.Of(verdict.Bottleneck)} ({Kebab.Of(verdict.Confidence)} confidence){(verdict.Evidence.Count > 0 ? ": " + verdict.Evidence[0] : string.Empty)}"
                : $"{step}: {whole}; no diagnosis");
        }

        foreach (var (step, phase) in Numbered(result).Where(p => p.Phase.CaptureProblem is not null))
        {
            lines.Add($"{step}: not measured inside the server: {phase.CaptureProblem}");
        }

        return lines;
    }

    /// <summary>The table as padded columns under a header, each line indented by <paramref name="indent"/>.</summary>
    public static void Console(TextWriter output, HtmlTable table, string indent)
    {
        var cells = table.Rows.Select(r => r.Select(c => TerminalText.Line(c.Text)).ToList()).ToList();
        var widths = table.Columns.Select((c, i) => Math.Max(c.Header.Length, cells.Max(r => (int?)r[i].Length) ?? 0)).ToList();
        string Layout(IReadOnlyList<string> row) => indent + string.Join("  ", row.Select((text, i) =>
            table.Columns[i].NumericField is null ? text.PadRight(widths[i]) : text.PadLeft(widths[i]))).TrimEnd();
        output.WriteLine(Layout(table.Columns.Select(c => c.Header).ToList()));
        foreach (var row in cells)
        {
            output.WriteLine(Layout(row));
        }
    }

    /// <summary>The table as a Markdown pipe table, its header the columns'.</summary>
    public static void Markdown(TextWriter output, HtmlTable table)
    {
        output.WriteLine("| " + string.Join(" | ", table.Columns.Select(c => c.Header)) + " |");
        output.WriteLine("|" + string.Concat(table.Columns.Select(c => c.NumericField is null ? "---|" : "---:|")));
        foreach (var row in table.Rows)
        {
            output.WriteLine("| " + string.Join(" | ", row.Select(c => TerminalText.Line(c.Text).Replace("|", "\\|", StringComparison.Ordinal))) + " |");
        }
    }

    /// <summary>"restore full", "restore log 2": the log restores numbered in the order run.</summary>
    private static IEnumerable<(string Step, DrillPhase Phase)> Numbered(RestoreDrillResult result)
    {
        var counts = new Dictionary<string, int>(StringComparer.Ordinal);
        var totals = result.Phases.GroupBy(p => p.Phase).ToDictionary(g => g.Key, g => g.Count(), StringComparer.Ordinal);
        foreach (var phase in result.Phases)
        {
            counts[phase.Phase] = counts.GetValueOrDefault(phase.Phase) + 1;
            yield return (totals[phase.Phase] > 1 ? $"{phase.Phase} {counts[phase.Phase].ToString(CultureInfo.InvariantCulture)}" : phase.Phase, phase);
        }
    }

    private static IEnumerable<(string Step, CapturedRestore Capture)> Captured(RestoreDrillResult result) =>
        Numbered(result).Where(p => p.Phase.Capture is not null).Select(p => (p.Step, p.Phase.Capture!));
}
