using System.Globalization;
using System.Text;
using BackupXe.Core.Analysis;
using BackupXe.Core.Formatting;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Rendering;

/// <summary>
/// The report as Markdown, for tickets and wikis: the same sections as the console report, each operation
/// written as it completes, the inputs and the summary at the end.
/// </summary>
public sealed class MarkdownReportWriter : IReportStream
{
    private readonly RemediesShown _remedies = new();
    private readonly TextWriter _output;
    private readonly ReportSummary _summary = new();
    private readonly StringBuilder _md = new();

    public MarkdownReportWriter(TextWriter output)
    {
        _output = output;
        _output.WriteLine("# BackupXe analysis");
    }

    public void OnOperationCompleted(OperationReport report)
    {
        _summary.Add(report);
        WriteOperation(_md, report);
        Drain();
    }

    public void Complete(AnalysisFindings findings)
    {
        var md = _md;
        WriteRunsCompared(md, findings);
        WriteInputFindings(md, findings);
        md.AppendLine().AppendLine("## Inputs").AppendLine();
        md.AppendLine("| input | format | events | problems |").AppendLine("|---|---|---:|---|");
        foreach (var input in findings.Inputs)
        {
            var problems = input.Problems.Count == 0 ? "none" : string.Join("; ", input.Problems.Select(p => $"{p.Location}: {p.Message}"));
            md.AppendLine(CultureInfo.InvariantCulture, $"| `{input.Path}` | {input.Format} | {input.Events} | {Cell(problems)} |");
        }

        md.AppendLine().AppendLine("## Summary").AppendLine();
        if (_summary.Operations == 0)
        {
            md.AppendLine(ReportFacts.NothingFound(findings.Inputs));
            Drain();
            return;
        }

        foreach (var line in ReportFacts.Totals(_summary, findings))
        {
            md.AppendLine(CultureInfo.InvariantCulture, $"- **{line.Label}**: {line.Value}");
        }

        Drain();
    }

    private static void WriteRunsCompared(StringBuilder md, AnalysisFindings findings)
    {
        if (!RunsComparedLines.Any(findings))
        {
            return;
        }

        md.AppendLine().AppendLine(CultureInfo.InvariantCulture, $"## {RunsComparedLines.Title}");
        foreach (var series in findings.RunsCompared)
        {
            md.AppendLine().AppendLine(CultureInfo.InvariantCulture, $"### {RunsComparedLines.Heading(series)}").AppendLine();
            foreach (var line in RunsComparedLines.Runs(series))
            {
                md.AppendLine(CultureInfo.InvariantCulture, $"- {line}");
            }

            md.AppendLine();
            foreach (var line in RunsComparedLines.Conclusions(series))
            {
                md.AppendLine(CultureInfo.InvariantCulture, $"- **{line[1..line.IndexOf(']', StringComparison.Ordinal)]}**: {line[(line.IndexOf(']', StringComparison.Ordinal) + 2)..]}");
            }
        }

    }

    private static void WriteInputFindings(StringBuilder md, AnalysisFindings findings)
    {
        if (findings.InputFindings.Count > 0)
        {
            md.AppendLine().AppendLine(CultureInfo.InvariantCulture, $"## {RunsComparedLines.FindingsTitle}").AppendLine();
            foreach (var finding in findings.InputFindings)
            {
                md.AppendLine(CultureInfo.InvariantCulture, $"- {RunsComparedLines.Of(finding)}");
            }
        }
    }

    private void Drain()
    {
        // One place for every text of the report: names and messages from inputs reach a terminal through cat or less.
        _output.Write(TerminalText.Block(_md.ToString()));

        _md.Clear();
    }

    private void WriteOperation(StringBuilder md, OperationReport op)
    {
        md.AppendLine().AppendLine(CultureInfo.InvariantCulture, $"## {OperationText.Title(op)}").AppendLine();
        foreach (var fact in ReportFacts.Summary(op))
        {
            md.AppendLine(CultureInfo.InvariantCulture, $"- **{fact.Label}**: {fact.Value}");
        }

        if (op.Phases.Count > 0)
        {
            md.AppendLine().AppendLine("| phase | start | end | seconds |").AppendLine("|---|---|---|---:|");
            foreach (var phase in op.Phases)
            {
                md.AppendLine(CultureInfo.InvariantCulture, $"| {phase.Name} | {Figures.Time(phase.Start)} | {Figures.Time(phase.End)} | {Figures.Duration(phase.Seconds)} |");
            }
        }

        if (op.Waits.Count > 0)
        {
            md.AppendLine().AppendLine("| wait | count | total | max | signal |").AppendLine("|---|---:|---:|---:|---:|");
            foreach (var wait in op.Waits)
            {
                md.AppendLine(CultureInfo.InvariantCulture, $"| {wait.WaitType} | {wait.Count} | {Figures.Milliseconds(wait.TotalMs)} | {Figures.Milliseconds(wait.MaxMs)} | {Figures.Milliseconds(wait.SignalMs)} |");
            }
        }

        if (op.Verdict is { } verdict)
        {
            md.AppendLine().AppendLine(CultureInfo.InvariantCulture, $"**Verdict: {Kebab.Of(verdict.Bottleneck)}** ({Kebab.Of(verdict.Confidence)} confidence)").AppendLine();
            foreach (var evidence in verdict.Evidence)
            {
                md.AppendLine(CultureInfo.InvariantCulture, $"- {evidence}");
            }

            if (verdict.DecidedBy is { } decided)
            {
                md.AppendLine().AppendLine(CultureInfo.InvariantCulture, $"Decided by: {decided}. What would change it: {verdict.WouldChange ?? "-"}");
            }
        }

        if (op.History is { } history)
        {
            md.AppendLine().AppendLine(CultureInfo.InvariantCulture, $"**{BaselineLines.Heading(history)}**").AppendLine();
            foreach (var line in BaselineLines.Of(history))
            {
                md.AppendLine(CultureInfo.InvariantCulture, $"{(line.StartsWith("  ", StringComparison.Ordinal) ? "  - " + line.TrimStart() : "- " + line)}");
            }
        }

        foreach (var rec in op.Recommendations)
        {
            var gain = rec.ExpectedGain;
            if (_remedies.ShownFor(rec, op) is { } first)
            {
                md.AppendLine().AppendLine(CultureInfo.InvariantCulture, $"**{rec.Id}**: as shown above for {first}.");
                if (gain.DiffersPerOperation())
                {
                    md.AppendLine().AppendLine(CultureInfo.InvariantCulture, $"*{gain.Heading()}, here:* {gain.Text}");
                }

                continue;
            }

            md.AppendLine().AppendLine(CultureInfo.InvariantCulture, $"**{rec.Id}**: {rec.Text}").AppendLine();
            md.AppendLine(CultureInfo.InvariantCulture, $"*{gain.Heading()}:* {gain.Text}").AppendLine();
            md.AppendLine("```sql").AppendLine(rec.Tsql.TrimEnd()).AppendLine("```");
        }
    }

    private static string Verdict(OperationReport op)
        => op.Verdict is { } v ? $"{Kebab.Of(v.Bottleneck)} ({Kebab.Of(v.Confidence)})" : "-";

    private static string Cell(string text) => text.Replace("|", "\\|", StringComparison.Ordinal);
}
