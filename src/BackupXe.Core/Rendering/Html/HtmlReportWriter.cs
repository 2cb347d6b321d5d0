using System.Globalization;
using System.Net;
using System.Text.Encodings.Web;
using System.Text.Json;
using BackupXe.Core.Analysis;
using BackupXe.Core.Events;
using BackupXe.Core.Formatting;
using BackupXe.Core.Parsing;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Rendering.Html;

/// <summary>A past operation as the history page shows it: its throughput against the regression rule's baseline.</summary>
/// <param name="MedianMBps">The median of the baseline the daemon's regression rule compares with; null when there is too little history.</param>
public sealed record HistoryEntry(string Instance, OperationReport Report, double? MedianMBps, bool IsRegression);

/// <summary>
/// The report as one self-contained HTML file (docs/html-report.md). It is written as it is fed: the page head
/// at the first call, each operation's section as soon as it is given (nothing of it is kept afterwards but
/// one summary row), and the summary with in-page links at <see cref="Finish"/>; CSS shows the summary first.
/// Every text from the input is HTML-escaped; chart data sits in <c>application/json</c> blocks whose
/// <c>&lt;</c> and <c>&gt;</c> are JSON-escaped, and the Content-Security-Policy allows no script but the two
/// the page was written with.
/// </summary>
public sealed class HtmlReportWriter(TextWriter output, string heading, long? memoryBudgetBytes = null) : IReportStream
{
    /// <summary>The uPlot version inlined into every page (vendor/ and package-lock.json must agree).</summary>
    public const string ChartLibraryVersion = HtmlAssets.ChartLibraryVersion;

    private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;

    /// <summary>The report's camelCase contract, with HTML-sensitive characters escaped (\u003C) so a block cannot end early.</summary>
    private static readonly JsonSerializerOptions DataJson = new(ReportJson.Options) { Encoder = JavaScriptEncoder.Default, DefaultIgnoreCondition = System.Text.Json.Serialization.JsonIgnoreCondition.WhenWritingNull };

    private readonly List<SummaryRow> _summary = [];
    private bool _started;
    private bool _finished;

    /// <summary>One operation's section, written now.</summary>
    public void OnOperationCompleted(OperationReport report) => WriteOperation(report);

    public void Complete(AnalysisFindings findings)
    {
        ArgumentNullException.ThrowIfNull(findings);
        WriteRunsCompared(findings);
        WriteInputFindings(findings);
        Finish(findings.Inputs);
    }

    /// <summary>The runs of each series side by side, as the console and Markdown reports have them.</summary>
    private void WriteRunsCompared(AnalysisFindings findings)
    {
        if (!RunsComparedLines.Any(findings))
        {
            return;
        }

        Start();
        Line("<section class=\"block\" id=\"runs-compared\" data-section=\"runs-compared\" aria-labelledby=\"runs-compared-title\">");
        Line($"<h2 id=\"runs-compared-title\">{E(RunsComparedLines.Title)}</h2>");
        foreach (var series in findings.RunsCompared)
        {
            Line($"<h3>{E(RunsComparedLines.Heading(series))}</h3>");
            Line("<ul>");
            foreach (var line in RunsComparedLines.Runs(series))
            {
                Line($"<li>{E(line)}</li>");
            }

            Line("</ul>");
            Line("<ul>");
            foreach (var line in RunsComparedLines.Conclusions(series))
            {
                Line($"<li>{E(line)}</li>");
            }

            Line("</ul>");
        }

        Line("</section>");
    }

    /// <summary>What the inputs show besides operations, as the console and Markdown reports have it.</summary>
    private void WriteInputFindings(AnalysisFindings findings)
    {
        if (findings.InputFindings.Count == 0)
        {
            return;
        }

        Start();
        Line("<section class=\"block\" id=\"input-findings\" data-section=\"input-findings\" aria-labelledby=\"input-findings-title\">");
        Line($"<h2 id=\"input-findings-title\">{E(RunsComparedLines.FindingsTitle)}</h2>");
        Line("<ul>");
        foreach (var finding in findings.InputFindings)
        {
            Line($"<li>{E(RunsComparedLines.Of(finding))}</li>");
        }

        Line("</ul>");
        Line("</section>");
    }

    public void WriteOperation(OperationReport operation)
    {
        Start();
        var id = "op-" + (_summary.Count + 1).ToString(Invariant);
        _summary.Add(new SummaryRow(id, operation.Kind, operation.Scope, operation.Database, operation.SessionId, operation.Start, operation.DurationSeconds, operation.ThroughputMBps, operation.Status, operation.Verdict?.Bottleneck, operation.Verdict?.Confidence));
        var charts = OperationCharts.Of(operation, memoryBudgetBytes);
        var title = OperationText.Title(operation);

        Line($"<section class=\"block operation\" id=\"{id}\" data-section=\"operation\" aria-labelledby=\"{id}-title\">");
        Line($"<h2 id=\"{id}-title\">{E(title)}</h2>");
        WriteVerdict(operation);
        WriteHistoryComparison(operation);
        WriteRemedies(id, operation);
        WriteFacts(operation);
        WriteTimeline(id, operation, charts);
        WriteRate(id, operation, charts);
        WriteWaits(id, operation, charts);
        WriteMemory(id, operation, charts);
        WriteFiles(id, operation);
        Line($"<script type=\"application/json\" id=\"{id}-data\">{Json(charts.Data(operation.Phases))}</script>");
        Line("</section>");
        output.Flush();
    }

    /// <summary>Throughput per series over time with the regression rule's verdicts, and the table of every entry.</summary>
    public void WriteHistory(IReadOnlyList<HistoryEntry> entries)
    {
        Start();
        Line("<section class=\"block\" id=\"history\" data-section=\"history\" aria-labelledby=\"history-title\">");
        Line("<h2 id=\"history-title\">Throughput history</h2>");
        var plotted = entries.Where(e => e.Report.ThroughputMBps is not null && e.Report.Start is not null).ToList();
        var series = plotted.GroupBy(e => SeriesName(e), StringComparer.Ordinal).ToList();
        if (plotted.Count == 0)
        {
            Line("<p class=\"none\">No listed operation has both a start time and a throughput: nothing to plot.</p>");
        }
        else
        {
            var regressions = plotted.Count(e => e.IsRegression);
            Line("<figure>");
            Line($"<div class=\"chart\" data-chart=\"history\" data-source=\"history-data\" data-series=\"{series.Count + 1}\" role=\"img\" aria-label=\"{E($"Throughput in MB/s over time for {series.Count} series; {regressions} regression(s) circled. The table below lists every value.")}\"></div>");
            Line("<figcaption>Throughput (MB/s) of each database's operations over time; a circle marks a regression (below the rule's share of its recent median).</figcaption>");
            Line("</figure>");
        }

        Line("<table data-table=\"history\"><thead><tr><th>start</th><th>instance</th><th>operation</th><th class=\"num\">duration</th><th class=\"num\">throughput</th><th class=\"num\">median</th><th class=\"num\">vs median</th><th>regression</th><th>status</th><th>bottleneck</th></tr></thead><tbody>");
        foreach (var entry in entries)
        {
            var op = entry.Report;
            var ratio = entry.MedianMBps is > 0 && op.ThroughputMBps is { } rate ? rate / entry.MedianMBps.Value : (double?)null;
            Line($"<tr{(entry.IsRegression ? " class=\"regression\"" : "")} data-regression=\"{(entry.IsRegression ? "true" : "false")}\">"
                + $"<td>{E(Figures.Timestamp(op.Start))}</td><td>{E(entry.Instance)}</td><td>{E(OperationText.Title(op.Kind, op.Scope, op.Database, null))}</td>"
                + Num("durationSeconds", op.DurationSeconds, Figures.Duration(op.DurationSeconds))
                + Num("throughputMBps", op.ThroughputMBps, Figures.Rate(op.ThroughputMBps))
                + Num("medianMBps", entry.MedianMBps, Figures.Rate(entry.MedianMBps))
                + Num("percentOfMedian", ratio * 100, ratio is { } r ? (r * 100).ToString("0", Invariant) + "%" : "-")
                + $"<td>{(entry.IsRegression ? "yes" : "no")}</td><td class=\"status-{Kebab.Of(op.Status)}\">{Kebab.Of(op.Status)}</td>"
                + $"<td>{(op.Verdict is { } v ? Kebab.Of(v.Bottleneck) : "-")}</td></tr>");
        }

        Line("</tbody></table>");
        var data = new HistoryChartData(new HistoryChart(
            series.Select(g => new ThroughputSeries(
                g.Key,
                g.Select(e => UnixSeconds(e.Report.Start!.Value)),
                g.Select(e => e.Report.ThroughputMBps!.Value))),
            new ThroughputPoints(
                plotted.Where(e => e.IsRegression).Select(e => UnixSeconds(e.Report.Start!.Value)),
                plotted.Where(e => e.IsRegression).Select(e => e.Report.ThroughputMBps!.Value))));
        Line($"<script type=\"application/json\" id=\"history-data\">{Json(data)}</script>");
        Line("</section>");
        output.Flush();
    }

    /// <summary>A section of text and tables (<see cref="HtmlTextSection"/>): every text escaped, numeric cells with their raw value.</summary>
    public void WriteTextSection(HtmlTextSection section)
    {
        ArgumentNullException.ThrowIfNull(section);
        Start();
        Line($"<section class=\"block\" id=\"{E(section.Id)}\" data-section=\"{E(section.Id)}\" aria-labelledby=\"{E(section.Id)}-title\">");
        Line($"<h2 id=\"{E(section.Id)}-title\">{E(section.Title)}</h2>");
        foreach (var line in section.Lines)
        {
            Line($"<p>{E(line)}</p>");
        }

        var number = 0;
        foreach (var block in section.Blocks)
        {
            Line($"<div data-item=\"{E(section.Id)}-{++number}\"><h3>{E(block.Heading)}</h3>");
            if (block.Lines.Count > 0)
            {
                Line("<ul>" + string.Concat(block.Lines.Select(l => $"<li>{E(l)}</li>")) + "</ul>");
            }

            if (block.Table is { } table)
            {
                WriteTable(table);
            }

            if (block.Chart is { Bars.Count: > 0 } chart)
            {
                WriteBarChart(chart);
            }

            if (block.Notes.Count > 0)
            {
                Line("<ul class=\"notes\">" + string.Concat(block.Notes.Select(n => $"<li>note: {E(n)}</li>")) + "</ul>");
            }

            Line("</div>");
        }

        Line("</section>");
        output.Flush();
    }

    /// <summary>Labels in the first 320 px, bars in the next 340 px scaled to the largest value, each bar's text after it.</summary>
    private void WriteBarChart(HtmlBarChart chart)
    {
        const int Row = 18;
        const double LabelWidth = 320;
        const double BarWidth = 340;
        var largest = chart.Bars.Max(b => Math.Max(0, b.Value));
        Line($"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"740\" height=\"{(chart.Bars.Count * Row).ToString(Invariant)}\" role=\"img\" aria-label=\"{E(chart.Label)}\">");
        for (var i = 0; i < chart.Bars.Count; i++)
        {
            var bar = chart.Bars[i];
            var width = largest > 0 ? Math.Round(BarWidth * Math.Max(0, bar.Value) / largest, 1) : 0;
            var top = i * Row;
            Line(string.Create(Invariant, $"<text x=\"0\" y=\"{top + 13}\" font-size=\"12\">{E(bar.Label)}</text><rect x=\"{LabelWidth}\" y=\"{top + 2}\" width=\"{width}\" height=\"14\" fill=\"#4a7ab5\"/><text x=\"{LabelWidth + width + 4}\" y=\"{top + 13}\" font-size=\"12\">{E(bar.Text)}</text>"));
        }

        Line("</svg>");
    }

    private void WriteTable(HtmlTable table)
    {
        Line($"<table data-table=\"{E(table.Field)}\"><thead><tr>"
            + string.Concat(table.Columns.Select(c => c.NumericField is null ? $"<th>{E(c.Header)}</th>" : $"<th class=\"num\">{E(c.Header)}</th>"))
            + "</tr></thead><tbody>");
        foreach (var row in table.Rows)
        {
            var cells = row.Select((cell, i) => i < table.Columns.Count && table.Columns[i].NumericField is { } field
                ? Num(E(field), cell.Value, cell.Text)
                : $"<td>{E(cell.Text)}</td>");
            Line("<tr>" + string.Concat(cells) + "</tr>");
        }

        Line("</tbody></table>");
    }

    /// <summary>
    /// The inputs and the summary of every operation written, linking to each, then the scripts. Null inputs:
    /// the page was not built from input files (history).
    /// </summary>
    public void Finish(IReadOnlyList<InputReport>? inputs)
    {
        if (_finished)
        {
            throw new InvalidOperationException("The HTML report is already finished.");
        }

        Start();
        _finished = true;
        if (inputs is not null || _summary.Count > 0)
        {
            Line("<section class=\"block\" id=\"summary\" data-section=\"summary\" aria-labelledby=\"summary-title\">");
            Line("<h2 id=\"summary-title\">Summary</h2>");
            if (inputs is not null)
            {
                WriteInputs(inputs);
            }

            WriteOperationsTable(inputs);
            Line("</section>");
        }

        Line("</main>");
        var assets = HtmlAssets.Instance;
        Line($"<!-- Charts: uPlot {HtmlAssets.ChartLibraryVersion}, inlined under its licence:\n{assets.ChartLicense.TrimEnd()}\n-->");
        output.Write("<script>");
        output.Write(assets.ChartScript);
        Line("</script>");
        output.Write("<script>");
        output.Write(assets.ReportScript);
        Line("</script>");
        Line("</body>");
        Line("</html>");
        output.Flush();
    }

    private void Start()
    {
        if (_finished)
        {
            throw new InvalidOperationException("The HTML report is already finished.");
        }

        if (_started)
        {
            return;
        }

        _started = true;
        var assets = HtmlAssets.Instance;
        Line("<!DOCTYPE html>");
        Line("<html lang=\"en\">");
        Line("<head>");
        Line("<meta charset=\"utf-8\" />");
        Line($"<meta http-equiv=\"Content-Security-Policy\" content=\"{E(assets.ContentSecurityPolicy)}\" />");
        Line("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\" />");
        Line("<meta name=\"color-scheme\" content=\"light dark\" />");
        Line("<meta name=\"generator\" content=\"BackupXe\" />");
        Line($"<title>{E(heading)}</title>");
        output.Write("<style>");
        output.Write(assets.Styles);
        Line("</style>");
        Line("</head>");
        Line("<body>");
        Line($"<header class=\"page\"><h1>{E(heading)}</h1><p>Written by BackupXe. Every chart has its numbers in the table beside it.</p></header>");
        Line("<main>");
    }

    private void WriteVerdict(OperationReport op)
    {
        Line("<div data-section=\"verdict\">");
        if (op.Verdict is not { } verdict)
        {
            Line("<p class=\"none\">No verdict.</p>");
        }
        else
        {
            Line($"<div class=\"verdict bottleneck-{Kebab.Of(verdict.Bottleneck)}\"><p><strong data-value=\"{Kebab.Of(verdict.Bottleneck)}\">{Kebab.Of(verdict.Bottleneck)}</strong> ({Kebab.Of(verdict.Confidence)} confidence)</p><ul>");
            foreach (var evidence in verdict.Evidence)
            {
                Line($"<li>{E(evidence)}</li>");
            }

            Line("</ul>");
            if (verdict.DecidedBy is { } decided)
            {
                // The same sentence the console and Markdown print under the evidence.
                Line($"<p class=\"decided-by\">Decided by: {E(decided)}. What would change it: {E(verdict.WouldChange ?? "-")}</p>");
            }

            Line("</div>");
        }

        Line("</div>");
    }

    /// <summary>The run against its series: the verdict's lines and a strip of the series' MB/s with this run marked.</summary>
    private void WriteHistoryComparison(OperationReport op)
    {
        if (op.History is not { } history)
        {
            return;
        }

        Line($"<div data-section=\"history-comparison\" data-verdict=\"{Kebab.Of(history.Verdict)}\"><h3>{E(BaselineLines.Heading(history))}</h3>");
        if (history.Points.Count > 0)
        {
            Line(SeriesStrip.Svg(history));
        }

        Line("<ul>");
        foreach (var line in BaselineLines.Of(history))
        {
            Line($"<li>{E(line.TrimStart())}</li>");
        }

        Line("</ul></div>");
    }

    private void WriteRemedies(string id, OperationReport op)
    {
        Line("<div data-section=\"remedies\"><h3>Remedies</h3>");
        if (op.Recommendations.Count == 0)
        {
            Line("<p class=\"none\">No remedy: nothing to change, or the evidence to choose one is missing (see the verdict).</p>");
        }

        var number = 0;
        foreach (var rec in op.Recommendations)
        {
            var code = $"{id}-rec-{++number}";
            Line($"<div class=\"rec\" data-recommendation=\"{E(rec.Id)}\"><p><strong>{number}. {E(rec.Id)}</strong>: {E(rec.Text)}</p>");
            Line($"<p class=\"gain\" data-gain=\"{Kebab.Of(rec.ExpectedGain.Basis)}\"><em>{E(rec.ExpectedGain.Heading())}:</em> {E(rec.ExpectedGain.Text)}</p>");
            Line($"<div class=\"code\"><button type=\"button\" class=\"copy\" data-copy=\"{code}\">Copy T-SQL</button><pre id=\"{code}\"><code>{E(rec.Tsql.TrimEnd())}</code></pre></div></div>");
        }

        Line("</div>");
    }

    private void WriteFacts(OperationReport op)
    {
        Line("<div data-section=\"facts\"><h3>Facts</h3><dl class=\"facts\">");
        foreach (var fact in ReportFacts.Summary(op))
        {
            Line($"<dt>{E(fact.Label)}</dt><dd>{E(fact.Value)}</dd>");
        }

        Line("</dl></div>");
    }

    private void WriteTimeline(string id, OperationReport op, OperationCharts charts)
    {
        if (!Open("timeline", "Timeline", op.Phases.Count > 0 || op.Files.Count > 0 || op.Zeroing.Count > 0, "No phase was captured."))
        {
            return;
        }

        Line("<div class=\"pair\">");
        if (charts.Lanes.Count > 0)
        {
            Chart(id, "timeline", charts.Lanes.Count, $"Gantt chart of {charts.Lanes.Count} bars: phases, data-file reads and file zeroing, in seconds since the start. The table beside it lists each.",
                "Phases (blue), data-file reads (green) and zeroing (orange), seconds since the start.");
        }
        else
        {
            Line("<p class=\"none\">No phase has both a start and an end: nothing to draw.</p>");
        }

        var total = op.DurationSeconds is > 0 ? op.DurationSeconds.Value : op.Phases.Sum(p => p.Seconds ?? 0);
        Line("<table data-table=\"phases\"><thead><tr><th>phase</th><th>start</th><th>end</th><th class=\"num\">seconds</th><th class=\"num\">share</th></tr></thead><tbody>");
        foreach (var phase in op.Phases)
        {
            var share = phase.Seconds is { } s && total > 0 ? s / total : (double?)null;
            Line($"<tr data-key=\"{E(phase.Name)}\"><td class=\"name\">{E(phase.Name)}</td><td class=\"nowrap\">{Figures.Time(phase.Start)}</td><td class=\"nowrap\">{Figures.Time(phase.End)}</td>"
                + Num("seconds", phase.Seconds, Figures.Duration(phase.Seconds))
                + Num("share", share, share is { } x ? (x * 100).ToString("0", Invariant) + "%" : "?") + "</tr>");
        }

        Line("</tbody></table></div></div>");
    }

    private void WriteRate(string id, OperationReport op, OperationCharts charts)
    {
        if (!Open("rate", "Copy rate", charts.Rates.Count > 0, "No progress readings over time (percent lines or the throughput event) were captured."))
        {
            return;
        }

        var source = op.Progress!.Source == "percent" ? "the percent lines" : "the throughput event";
        Line("<div class=\"pair\">");
        Chart(id, "rate", 1, $"Copy rate in MB/s over time from {source}, {charts.Rates.Count} intervals, peak {Figures.Rate(charts.Rates.Max(r => r.MegabytesPerSecond))}; phases shaded. The table beside it lists each interval.",
            $"Average MB/s between readings of {source}; phases shaded behind the curve.");
        Line("<div class=\"scroll\" tabindex=\"0\" role=\"region\" aria-label=\"Copy rate per interval\"><table data-table=\"rate\"><thead><tr><th class=\"num\">from, s</th><th class=\"num\">to, s</th><th class=\"num\">moved</th><th class=\"num\">rate</th></tr></thead><tbody>");
        foreach (var step in charts.Rates)
        {
            Line("<tr>" + Num("from", step.From, step.From.ToString("0.0##", Invariant)) + Num("to", step.To, step.To.ToString("0.0##", Invariant))
                + Num("bytes", step.Bytes, Figures.Bytes(step.Bytes)) + Num("mbps", step.MegabytesPerSecond, Figures.Rate(step.MegabytesPerSecond)) + "</tr>");
        }

        Line("</tbody></table></div></div></div>");
    }

    private void WriteWaits(string id, OperationReport op, OperationCharts charts)
    {
        if (!Open("waits", "Waits", op.Waits.Count > 0, "No wait was tied to this operation."))
        {
            return;
        }

        Line("<div class=\"pair stack\">");
        Chart(id, "waits", 1, $"Bar chart of total wait time in seconds for {op.Waits.Count} wait types. The table beside it lists count, total, average and share of each thread's time.",
            "Total wait time by type (every thread added up, so it can exceed the duration).");
        var against = charts.ElapsedSeconds is { } elapsed ? $"of the {Figures.Duration(elapsed)} {charts.ElapsedName}" : "(duration unknown)";
        Line($"<table data-table=\"waits\"><caption class=\"none\">Share: each thread's wait time {E(against)}.</caption><thead><tr><th>wait type</th><th class=\"num\">count</th><th class=\"num\">total</th><th class=\"num\">average</th><th class=\"num\">max</th><th class=\"num\">signal</th><th class=\"num\">share of thread time</th></tr></thead><tbody>");
        foreach (var row in charts.Waits)
        {
            var wait = row.Wait;
            Line($"<tr data-key=\"{E(wait.WaitType)}\"><td>{E(wait.WaitType)}</td>"
                + Num("count", wait.Count, wait.Count.ToString("N0", Invariant))
                + Num("totalMs", wait.TotalMs, Figures.Milliseconds(wait.TotalMs))
                + Num("averageMs", row.AverageMs, row.AverageMs.ToString("0.0", Invariant) + " ms")
                + Num("maxMs", wait.MaxMs, Figures.Milliseconds(wait.MaxMs))
                + Num("signalMs", wait.SignalMs, Figures.Milliseconds(wait.SignalMs))
                + Num("share", row.Share, row.Share is { } s ? $"{(s * 100).ToString("0", Invariant)}% of {row.ThreadRole}" : "?") + "</tr>");
        }

        Line("</tbody></table></div></div>");
    }

    private void WriteMemory(string id, OperationReport op, OperationCharts charts)
    {
        if (!Open("memory", "Buffer memory", charts.Memory.Count > 0, "The buffer configuration was not captured (trace flag 3213, or the XE trace's buffer lines)."))
        {
            return;
        }

        Line("<div class=\"pair\">");
        Chart(id, "memory", 1, $"Bar chart on a log scale of buffer memory: {string.Join(", ", charts.Memory.Select(m => $"{m.Label} {Figures.Bytes(m.Bytes)}"))}.",
            "Buffer memory in use against what the server reported and the budget (log scale).");
        Line("<table data-table=\"memory\"><thead><tr><th>bar</th><th>what it is</th><th class=\"num\">bytes</th></tr></thead><tbody>");
        foreach (var bar in charts.Memory)
        {
            Line($"<tr data-key=\"{E(bar.Label)}\"><td>{E(bar.Label)}</td><td>{E(bar.Meaning)}</td>" + Num("bytes", bar.Bytes, Figures.Bytes(bar.Bytes)) + "</tr>");
        }

        Line("</tbody></table></div>");
        if (op.BufferConfig is { } config)
        {
            Line($"<p>BUFFERCOUNT {E(config.BufferCount?.ToString(Invariant) ?? "?")} x MAXTRANSFERSIZE {E(Figures.Bytes(config.MaxTransferSizeBytes))}; sets of buffers {E(config.SetsOfBuffers?.ToString(Invariant) ?? "?")}.</p>");
        }

        Line("</div>");
    }

    private void WriteFiles(string id, OperationReport op)
    {
        if (!Open("files", "Files", op.Files.Count > 0 || op.Zeroing.Count > 0, "No data-file read or zeroing was captured."))
        {
            return;
        }

        Line("<table data-table=\"files\"><thead><tr><th>work</th><th>file</th><th>start</th><th>end</th><th class=\"num\">seconds</th><th class=\"num\">size zeroed</th></tr></thead><tbody>");
        foreach (var file in op.Files)
        {
            Line($"<tr data-key=\"read\"><td>read</td><td>{E(file.Path)}</td><td class=\"nowrap\">{Figures.Time(file.Start)}</td><td class=\"nowrap\">{Figures.Time(file.End)}</td>"
                + Num("seconds", file.Seconds, Figures.Duration(file.Seconds)) + "<td class=\"num\">-</td></tr>");
        }

        foreach (var zero in op.Zeroing)
        {
            var bytes = zero.Pages * 8192;
            Line($"<tr data-key=\"zero\"><td>zeroing</td><td>{E(zero.Path)}</td><td class=\"nowrap\">{Figures.Time(zero.Start)}</td><td class=\"nowrap\">{Figures.Time(zero.End)}</td>"
                + Num("seconds", zero.Seconds, Figures.Duration(zero.Seconds)) + Num("pages", zero.Pages, zero.Pages is { } p ? $"{p.ToString("N0", Invariant)} pages ({Figures.Bytes(bytes)})" : "?") + "</tr>");
        }

        Line("</tbody></table></div>");
    }

    private void WriteInputs(IReadOnlyList<InputReport> inputs)
    {
        Line("<h3>Inputs</h3><table data-table=\"inputs\"><thead><tr><th>input</th><th>format</th><th class=\"num\">events</th><th>problems</th></tr></thead><tbody>");
        foreach (var input in inputs)
        {
            var problems = input.Problems.Count == 0 ? "none" : string.Join("; ", input.Problems.Select(p => $"{p.Location}: {p.Message}"));
            Line($"<tr><td>{E(input.Path)}</td><td>{E(input.Format)}</td>" + Num("events", input.Events, input.Events.ToString("N0", Invariant))
                + $"<td{(input.Problems.Count == 0 ? "" : " class=\"problems\"")}>{E(problems)}</td></tr>");
        }

        Line("</tbody></table>");
    }

    private void WriteOperationsTable(IReadOnlyList<InputReport>? inputs)
    {
        Line("<h3>Operations</h3>");
        if (_summary.Count == 0)
        {
            Line($"<p class=\"none\">{E(inputs is null ? "No backup or restore was found in the input." : ReportFacts.NothingFound(inputs))}</p>");
            return;
        }

        Line("<table data-table=\"operations\"><thead><tr><th>operation</th><th>start</th><th class=\"num\">duration</th><th class=\"num\">throughput</th><th>status</th><th>bottleneck</th></tr></thead><tbody>");
        foreach (var row in _summary)
        {
            Line($"<tr><td><a href=\"#{row.Id}\">{E(OperationText.Title(row.Kind, row.Scope, row.Database, row.SessionId))}</a></td><td class=\"nowrap\">{E(Figures.Timestamp(row.Start))}</td>"
                + Num("durationSeconds", row.DurationSeconds, Figures.Duration(row.DurationSeconds))
                + Num("throughputMBps", row.ThroughputMBps, Figures.Rate(row.ThroughputMBps))
                + $"<td class=\"status-{Kebab.Of(row.Status)}\">{Kebab.Of(row.Status)}</td>"
                + $"<td>{(row.Bottleneck is { } b ? $"{Kebab.Of(b)} ({Kebab.Of(row.Confidence!.Value)})" : "-")}</td></tr>");
        }

        Line("</tbody></table>");
    }

    /// <summary>Opens an operation's sub-section; when it has nothing to show, says why and closes it.</summary>
    private bool Open(string section, string title, bool hasContent, string absent)
    {
        Line($"<div data-section=\"{section}\"><h3>{title}</h3>");
        if (!hasContent)
        {
            Line($"<p class=\"none\">{E(absent)}</p></div>");
        }

        return hasContent;
    }

    private void Chart(string id, string kind, int series, string label, string caption)
    {
        Line($"<figure><div class=\"chart\" data-chart=\"{kind}\" data-source=\"{id}-data\" data-series=\"{series}\" role=\"img\" aria-label=\"{E(label)}\"></div><figcaption>{E(caption)}</figcaption></figure>");
    }

    private static string SeriesName(HistoryEntry entry)
        => $"{OperationText.Title(entry.Report.Kind, entry.Report.Scope, entry.Report.Database, null)} on {entry.Instance}";

    /// <summary>The input's wall-clock time as if it were UTC: the chart prints it back unchanged, whatever the viewer's zone.</summary>
    private static double UnixSeconds(DateTime at)
        => (DateTime.SpecifyKind(at, DateTimeKind.Utc) - DateTime.UnixEpoch).TotalMilliseconds / 1000.0;

    /// <summary>A numeric cell: the raw value for tools and tests, the human text for people.</summary>
    private static string Num(string field, double? value, string text)
        => $"<td class=\"num\" data-field=\"{field}\" data-value=\"{(value is { } v ? v.ToString("R", Invariant) : "")}\">{E(text)}</td>";

    private static string Num(string field, long? value, string text)
        => $"<td class=\"num\" data-field=\"{field}\" data-value=\"{(value is { } v ? v.ToString(Invariant) : "")}\">{E(text)}</td>";

    private static string Json<T>(T value) => JsonSerializer.Serialize(value, ReportJson.TypeInfo<T>(DataJson));

    private static string E(string text) => WebUtility.HtmlEncode(text);

    private void Line(string text) => output.Write(text + "\n");

    private sealed record SummaryRow(
        string Id,
        OperationKind Kind,
        OperationScope? Scope,
        string? Database,
        int? SessionId,
        DateTime? Start,
        double? DurationSeconds,
        double? ThroughputMBps,
        OperationStatus Status,
        Bottleneck? Bottleneck,
        Confidence? Confidence);
}
