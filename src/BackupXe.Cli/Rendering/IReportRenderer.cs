using BackupXe.Core.Reporting;
using BackupXe.Core.Reporting.Html;

namespace BackupXe.Cli.Rendering;

/// <summary>One output format of the analysis report.</summary>
public interface IReportRenderer
{
    void Render(AnalysisReport report, TextWriter output);
}

public sealed class JsonReportRenderer : IReportRenderer
{
    public void Render(AnalysisReport report, TextWriter output) => output.WriteLine(ReportJson.Serialize(report, indented: true));
}

public sealed class MarkdownReportRenderer : IReportRenderer
{
    public void Render(AnalysisReport report, TextWriter output) => output.Write(MarkdownReportWriter.Write(report));
}

/// <summary>The self-contained HTML page (docs/html-report.md): operations in report order, then the summary.</summary>
public sealed class HtmlReportRenderer(long? memoryBudgetBytes = null) : IReportRenderer
{
    public void Render(AnalysisReport report, TextWriter output)
    {
        var writer = new HtmlReportWriter(output, "BackupXe analysis", memoryBudgetBytes);
        foreach (var operation in report.Operations)
        {
            writer.WriteOperation(operation);
        }

        writer.Finish(report.Inputs);
    }
}
