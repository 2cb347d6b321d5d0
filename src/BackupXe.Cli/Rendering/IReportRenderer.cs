using BackupXe.Core.Reporting;

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
