using System.Globalization;
using System.Text;

namespace BackupXe.Core.Reporting;

/// <summary>The report as Markdown, for tickets and wikis: the same sections as the console report.</summary>
public static class MarkdownReportWriter
{
    public static string Write(AnalysisReport report)
    {
        var md = new StringBuilder();
        md.AppendLine("# BackupXe analysis").AppendLine();
        md.AppendLine("| input | format | events | problems |").AppendLine("|---|---|---:|---|");
        foreach (var input in report.Inputs)
        {
            var problems = input.Problems.Count == 0 ? "none" : string.Join("; ", input.Problems.Select(p => $"{p.Location}: {p.Message}"));
            md.AppendLine(CultureInfo.InvariantCulture, $"| `{input.Path}` | {input.Format} | {input.Events} | {Cell(problems)} |");
        }

        md.AppendLine();
        if (report.Operations.Count == 0)
        {
            md.AppendLine("No backup or restore was found in the input.");
            return md.ToString();
        }

        md.AppendLine("| operation | start | duration | throughput | status | bottleneck |").AppendLine("|---|---|---|---:|---|---|");
        foreach (var op in report.Operations)
        {
            md.AppendLine(CultureInfo.InvariantCulture,
                $"| {Cell(Units.Title(op))} | {Units.Timestamp(op.Start)} | {Units.Duration(op)} | {Units.Rate(op.ThroughputMBps)} | {Kebab.Of(op.Status)} | {Verdict(op)} |");
        }

        foreach (var op in report.Operations)
        {
            WriteOperation(md, op);
        }

        return md.ToString();
    }

    private static void WriteOperation(StringBuilder md, OperationReport op)
    {
        md.AppendLine().AppendLine(CultureInfo.InvariantCulture, $"## {Units.Title(op)}").AppendLine();
        foreach (var fact in ReportFacts.Summary(op))
        {
            md.AppendLine(CultureInfo.InvariantCulture, $"- **{fact.Label}**: {fact.Value}");
        }

        if (op.Phases.Count > 0)
        {
            md.AppendLine().AppendLine("| phase | start | end | seconds |").AppendLine("|---|---|---|---:|");
            foreach (var phase in op.Phases)
            {
                md.AppendLine(CultureInfo.InvariantCulture, $"| {phase.Name} | {Units.Time(phase.Start)} | {Units.Time(phase.End)} | {Units.Duration(phase.Seconds)} |");
            }
        }

        if (op.Waits.Count > 0)
        {
            md.AppendLine().AppendLine("| wait | count | total | max | signal |").AppendLine("|---|---:|---:|---:|---:|");
            foreach (var wait in op.Waits)
            {
                md.AppendLine(CultureInfo.InvariantCulture, $"| {wait.WaitType} | {wait.Count} | {Units.Milliseconds(wait.TotalMs)} | {Units.Milliseconds(wait.MaxMs)} | {Units.Milliseconds(wait.SignalMs)} |");
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

        foreach (var rec in op.Recommendations)
        {
            md.AppendLine().AppendLine(CultureInfo.InvariantCulture, $"**{rec.Id}**: {rec.Text}").AppendLine();
            md.AppendLine("```sql").AppendLine(rec.Tsql.TrimEnd()).AppendLine("```");
        }
    }

    private static string Verdict(OperationReport op)
        => op.Verdict is { } v ? $"{Kebab.Of(v.Bottleneck)} ({Kebab.Of(v.Confidence)})" : "-";

    private static string Cell(string text) => text.Replace("|", "\\|", StringComparison.Ordinal);
}
