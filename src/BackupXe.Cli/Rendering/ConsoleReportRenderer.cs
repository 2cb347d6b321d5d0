using System.Globalization;
using BackupXe.Core.Analysis;
using BackupXe.Core.Formatting;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using Spectre.Console;
using Spectre.Console.Rendering;

namespace BackupXe.Cli.Rendering;

/// <summary>
/// The readable report, each operation as it completes: first what a DBA needs first (what, when, how long, how fast,
/// the verdict with its evidence, the first remedy), then the details (buffers, threads, files, timeline, waits, the
/// other remedies); at the end the inputs and the totals.
/// </summary>
internal sealed class ConsoleReportRenderer(bool verbose = false, bool color = true, int width = Terminal.DefaultWidth) : IReportRenderer
{
    // One per renderer: a report, or a whole watch, prints a remedy shared by several operations once.
    private readonly RemediesShown _remedies = new();

    public IReportStream Open(ReportOutput output) => new Stream(this, ConsoleOn(output.Text));

    /// <summary>One operation on its own, as <c>watch</c> shows each one that ends.</summary>
    public void WriteOperation(OperationReport op, TextWriter output) => WriteOperation(ConsoleOn(output), op);

    private IAnsiConsole ConsoleOn(TextWriter output) => Terminal.On(output, color, width);

    private static Table Inputs(IReadOnlyList<InputReport> inputs)
    {
        var table = new Table().Border(TableBorder.Simple).Title("Inputs");
        table.AddColumns("Input", "Format", "Events", "Problems");
        table.Columns[2].RightAligned();
        foreach (var input in inputs)
        {
            var problems = input.Problems.Count == 0
                ? new Markup("[green]none[/]")
                : new Markup(Markup.Escape(string.Join(Environment.NewLine, input.Problems.Select(p => TerminalText.Line($"{p.Location}: {p.Message}")))), new Style(Color.Red));
            table.AddRow(new Text(TerminalText.Line(input.Path)), new Text(input.Format), new Text(input.Events.ToString("N0", CultureInfo.InvariantCulture)), problems);
        }

        return table;
    }

    // Findings across operations and inputs, before the inputs: what the runs together show.
    private static void RunsCompared(IAnsiConsole console, AnalysisFindings findings)
    {
        if (!RunsComparedLines.Any(findings))
        {
            return;
        }

        console.WriteLine();
        console.Write(new Rule($"[bold]{RunsComparedLines.Title}[/]").LeftJustified());
        foreach (var series in findings.RunsCompared)
        {
            var lines = new List<IRenderable>();
            lines.AddRange(RunsComparedLines.Runs(series).Select(line => new Text(TerminalText.Block(line))));
            lines.AddRange(RunsComparedLines.Conclusions(series).Select(line => new Text(TerminalText.Block($"- {line}"))));
            console.Write(new Panel(new MergedSegments(new Rows(lines))).Header(Markup.Escape(TerminalText.Line(RunsComparedLines.Heading(series)))).Border(BoxBorder.Rounded).Expand());
        }

    }

    private static void InputFindings(IAnsiConsole console, AnalysisFindings findings)
    {
        if (findings.InputFindings.Count == 0)
        {
            return;
        }

        console.WriteLine();
        console.Write(new Rule($"[bold]{RunsComparedLines.FindingsTitle}[/]").LeftJustified());
        foreach (var finding in findings.InputFindings)
        {
            console.Write(new Text(TerminalText.Block($"- {RunsComparedLines.Of(finding)}") + Environment.NewLine));
        }
    }

    private sealed class Stream(ConsoleReportRenderer renderer, IAnsiConsole console) : IReportStream
    {
        private readonly ReportSummary _summary = new();

        public void OnOperationCompleted(OperationReport report)
        {
            _summary.Add(report);
            renderer.WriteOperation(console, report);
        }

        public void Complete(AnalysisFindings findings)
        {
            RunsCompared(console, findings);
            InputFindings(console, findings);
            console.WriteLine();
            console.Write(Inputs(findings.Inputs));
            if (_summary.Operations == 0)
            {
                console.MarkupLine($"[yellow]{Markup.Escape(ReportFacts.NothingFound(findings.Inputs))}[/]");
                return;
            }

            console.Write(Facts(ReportFacts.Totals(_summary, findings)));
        }
    }

    private void WriteOperation(IAnsiConsole console, OperationReport op)
    {
        console.WriteLine();
        console.Write(new Rule($"[bold]{Markup.Escape(TerminalText.Line(OperationText.Title(op)))}[/]").LeftJustified());

        var facts = ReportFacts.Summary(op);
        console.Write(Facts(facts.Take(ReportFacts.HeadlineFacts)));

        if (op.Verdict is { } verdict)
        {
            var lines = new List<IRenderable>();
            lines.AddRange(verdict.Evidence.Select(e => new Text(TerminalText.Block($"- {e}"))));
            if (verdict.DecidedBy is { } decided)
            {
                lines.Add(new Text(TerminalText.Block($"Decided by: {decided}. What would change it: {verdict.WouldChange ?? "-"}")));
            }

            var header = $"Verdict: [bold]{Kebab.Of(verdict.Bottleneck)}[/] ({Kebab.Of(verdict.Confidence)} confidence)";
            console.Write(new Panel(new MergedSegments(new Rows(lines))).Header(header).Border(BoxBorder.Rounded).Expand());
        }

        if (op.History is { } history)
        {
            var rows = BaselineLines.Of(history).Select(line => (IRenderable)new Text(TerminalText.Block(line)));
            console.Write(new Panel(new MergedSegments(new Rows(rows))).Header(Markup.Escape(TerminalText.Line(BaselineLines.Heading(history)))).Border(BoxBorder.Rounded).Expand());
        }

        if (op.Recommendations.Count > 0)
        {
            Recommendation(console, 1, op.Recommendations[0], op);
        }

        if (facts.Count > ReportFacts.HeadlineFacts || op.Phases.Count > 0 || op.Waits.Count > 0)
        {
            console.Write(new Rule("[grey]Details[/]").LeftJustified());
            console.Write(Facts(facts.Skip(ReportFacts.HeadlineFacts)));
        }

        if (op.Phases.Count > 0)
        {
            console.Write(Phases(op, width < 100 ? 10 : 20));
        }

        if (op.Waits.Count > 0)
        {
            console.Write(Waits(op));
        }

        for (var i = 1; i < op.Recommendations.Count; i++)
        {
            Recommendation(console, i + 1, op.Recommendations[i], op);
        }

        if (verbose && op.UnknownMessageSamples.Count > 0)
        {
            console.MarkupLine("[grey]Unrecognised messages:[/]");
            foreach (var text in op.UnknownMessageSamples)
            {
                console.WriteLine($"  {TerminalText.Line(text)}");
            }
        }
    }

    private static Grid Facts(IEnumerable<ReportFact> facts)
    {
        var grid = new Grid().AddColumn(new GridColumn().NoWrap()).AddColumn();
        foreach (var fact in facts)
        {
            grid.AddRow(new Markup($"[grey]{Markup.Escape(fact.Label)}[/]"), new Text(TerminalText.Block(fact.Value)));
        }

        return grid;
    }

    private void Recommendation(IAnsiConsole console, int number, Recommendation rec, OperationReport op)
    {
        var gain = rec.ExpectedGain;
        if (_remedies.ShownFor(rec, op) is { } first)
        {
            console.MarkupLine($"[bold]{number}. {Markup.Escape(rec.Id)}[/]: as shown above for {Markup.Escape(TerminalText.Line(first))}.");
            if (gain.DiffersPerOperation())
            {
                console.MarkupLine($"[grey]{Markup.Escape(gain.Heading())}, here:[/] {Markup.Escape(TerminalText.Block(gain.Text))}");
            }

            return;
        }

        console.MarkupLine($"[bold]{number}. {Markup.Escape(rec.Id)}[/]: {Markup.Escape(TerminalText.Block(rec.Text))}");
        console.MarkupLine($"[grey]{Markup.Escape(gain.Heading())}:[/] {Markup.Escape(TerminalText.Block(gain.Text))}");
        console.Write(new Panel(new MergedSegments(new Text(TerminalText.Block(rec.Tsql.TrimEnd()), new Style(Color.Aqua)))).Border(BoxBorder.Square).Expand());
    }

    private static Table Phases(OperationReport op, int barWidth)
    {
        var total = op.DurationSeconds is > 0 ? op.DurationSeconds.Value : op.Phases.Sum(p => p.Seconds ?? 0);
        var longest = op.Phases.Max(p => p.Seconds ?? 0);
        var table = new Table().Border(TableBorder.Simple).Title("Timeline");
        table.AddColumns("Phase", "Start", "End", longest < 60 ? "Seconds" : longest < 3600 ? "m:ss" : "h:mm:ss", "Share");
        foreach (var column in table.Columns)
        {
            column.NoWrap();
        }

        table.Columns[3].RightAligned();
        foreach (var phase in op.Phases)
        {
            var share = phase.Seconds is { } s && total > 0 ? s / total : 0;
            table.AddRow(
                phase.Name,
                Figures.Time(phase.Start),
                Figures.Time(phase.End),
                phase.Seconds is { } seconds ? ColumnUnits.Duration(seconds, longest) : "?",
                $"{Bar(share, barWidth)} {share * 100,3:0}%");
        }

        return table;
    }

    private static Table Waits(OperationReport op)
    {
        var table = new Table().Border(TableBorder.Simple).Title("Waits");
        var totals = ColumnUnits.For(op.Waits.Max(w => w.TotalMs));
        var maxima = ColumnUnits.For(op.Waits.Max(w => w.MaxMs));
        var signals = ColumnUnits.For(op.Waits.Max(w => w.SignalMs));
        var averages = op.Waits.Select(w => w.Count > 0 ? (double)w.TotalMs / w.Count : 0).ToList();
        var average = ColumnUnits.For(averages.Max());
        table.AddColumns("Wait type", "Count", $"Total {totals.Name}", $"Avg {average.Name}", $"Max {maxima.Name}", $"Signal {signals.Name}");
        table.Columns[0].NoWrap();
        for (var i = 1; i < 6; i++)
        {
            table.Columns[i].RightAligned();
        }

        for (var i = 0; i < op.Waits.Count; i++)
        {
            var wait = op.Waits[i];
            table.AddRow(
                TerminalText.Line(wait.WaitType),
                wait.Count.ToString("N0", CultureInfo.InvariantCulture),
                totals.Format(wait.TotalMs),
                average.Format(averages[i], fractionalMilliseconds: true),
                maxima.Format(wait.MaxMs),
                signals.Format(wait.SignalMs));
        }

        return table;
    }

    private static string Bar(double share, int width)
    {
        var filled = (int)Math.Round(Math.Clamp(share, 0, 1) * width);
        return new string('#', filled) + new string('.', width - filled);
    }
}
