using System.Globalization;
using BackupXe.Core.Analysis;
using BackupXe.Core.Reporting;
using Spectre.Console;
using Spectre.Console.Rendering;

namespace BackupXe.Cli.Rendering;

/// <summary>
/// The readable report: each operation's timeline, throughput, buffers, waits, verdict and recommendations as
/// it completes, then the inputs and the totals.
/// </summary>
public sealed class ConsoleReportRenderer(bool verbose = false, bool color = true, int width = 120) : IReportRenderer
{
    public IReportStream Open(ReportOutput output) => new Stream(this, ConsoleOn(output.Text));

    /// <summary>One operation on its own, as <c>watch</c> shows each one that ends.</summary>
    public void WriteOperation(OperationReport op, TextWriter output) => WriteOperation(ConsoleOn(output), op);

    private IAnsiConsole ConsoleOn(TextWriter output)
    {
        var console = AnsiConsole.Create(new AnsiConsoleSettings
        {
            Out = new AnsiConsoleOutput(output),
            Ansi = color ? AnsiSupport.Detect : AnsiSupport.No,
            ColorSystem = color ? ColorSystemSupport.Detect : ColorSystemSupport.NoColors,
            Interactive = InteractionSupport.No,
        });
        console.Profile.Width = width;
        return console;
    }

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

    private static Grid Totals(ReportSummary summary, AnalysisFindings findings)
    {
        var grid = new Grid().AddColumn(new GridColumn().NoWrap()).AddColumn();
        foreach (var fact in ReportFacts.Totals(summary, findings))
        {
            grid.AddRow(new Markup($"[grey]{Markup.Escape(fact.Label)}[/]"), new Text(TerminalText.Block(fact.Value)));
        }

        return grid;
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
            console.WriteLine();
            console.Write(Inputs(findings.Inputs));
            if (_summary.Operations == 0)
            {
                console.MarkupLine("[yellow]No backup or restore was found in the input.[/]");
                return;
            }

            console.Write(Totals(_summary, findings));
        }
    }

    private void WriteOperation(IAnsiConsole console, OperationReport op)
    {
        console.WriteLine();
        console.Write(new Rule($"[bold]{Markup.Escape(TerminalText.Line(Units.Title(op)))}[/]").LeftJustified());

        var facts = new Grid().AddColumn(new GridColumn().NoWrap()).AddColumn();
        foreach (var fact in ReportFacts.Summary(op))
        {
            facts.AddRow(new Markup($"[grey]{Markup.Escape(fact.Label)}[/]"), new Text(TerminalText.Block(fact.Value)));
        }

        console.Write(facts);

        if (op.Phases.Count > 0)
        {
            console.Write(Phases(op));
        }

        if (op.Waits.Count > 0)
        {
            console.Write(Waits(op));
        }

        if (op.Verdict is { } verdict)
        {
            var lines = new List<IRenderable> { new Markup($"[bold]{Kebab.Of(verdict.Bottleneck)}[/] ({Kebab.Of(verdict.Confidence)} confidence)") };
            lines.AddRange(verdict.Evidence.Select(e => new Text(TerminalText.Block($"- {e}"))));
            if (verdict.DecidedBy is { } decided)
            {
                lines.Add(new Text(TerminalText.Block($"Decided by: {decided}. What would change it: {verdict.WouldChange ?? "-"}")));
            }
            console.Write(new Panel(new Rows(lines)).Header("Verdict").Border(BoxBorder.Rounded).Expand());
        }

        var number = 0;
        foreach (var rec in op.Recommendations)
        {
            console.MarkupLine($"[bold]{++number}. {Markup.Escape(rec.Id)}[/]: {Markup.Escape(TerminalText.Block(rec.Text))}");
            console.Write(new Panel(new Text(TerminalText.Block(rec.Tsql.TrimEnd()), new Style(Color.Aqua))).Border(BoxBorder.Square).Expand());
        }

        if (verbose && op.UnknownMessageSamples.Count > 0)
        {
            console.MarkupLine("[grey]Unrecognised messages:[/]");
            foreach (var text in op.UnknownMessageSamples)
            {
                console.WriteLine($"  {text}");
            }
        }
    }

    private static Table Phases(OperationReport op)
    {
        var total = op.DurationSeconds is > 0 ? op.DurationSeconds.Value : op.Phases.Sum(p => p.Seconds ?? 0);
        var table = new Table().Border(TableBorder.Simple).Title("Timeline");
        table.AddColumns("Phase", "Start", "End", "Duration", "Share");
        table.Columns[3].RightAligned();
        foreach (var phase in op.Phases)
        {
            var share = phase.Seconds is { } s && total > 0 ? s / total : 0;
            table.AddRow(
                phase.Name,
                Units.Time(phase.Start),
                Units.Time(phase.End),
                Units.Duration(phase.Seconds),
                $"{Bar(share)} {share * 100,3:0}%");
        }

        return table;
    }

    private static Table Waits(OperationReport op)
    {
        var table = new Table().Border(TableBorder.Simple).Title("Waits");
        table.AddColumns("Wait type", "Count", "Total", "Average", "Max", "Signal");
        for (var i = 1; i < 6; i++)
        {
            table.Columns[i].RightAligned();
        }

        foreach (var wait in op.Waits)
        {
            var average = wait.Count > 0 ? (double)wait.TotalMs / wait.Count : 0;
            table.AddRow(
                wait.WaitType,
                wait.Count.ToString("N0", CultureInfo.InvariantCulture),
                Units.Milliseconds(wait.TotalMs),
                string.Create(CultureInfo.InvariantCulture, $"{average:0.0} ms"),
                Units.Milliseconds(wait.MaxMs),
                Units.Milliseconds(wait.SignalMs));
        }

        return table;
    }

    private static string Bar(double share)
    {
        const int width = 20;
        var filled = (int)Math.Round(Math.Clamp(share, 0, 1) * width);
        return new string('#', filled) + new string('.', width - filled);
    }
}
