using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.Core.Rendering.Html;

namespace BackupXe.Cli.Rendering;

/// <summary>One output format of the analysis report, written while the analysis runs.</summary>
internal interface IReportRenderer
{
    IReportStream Open(ReportOutput output);
}

/// <summary>The JSON report, as UTF-8 bytes straight to the output.</summary>
internal sealed class JsonReportRenderer : IReportRenderer
{
    public IReportStream Open(ReportOutput output) => new JsonReportWriter(output.Bytes);
}

internal sealed class MarkdownReportRenderer : IReportRenderer
{
    public IReportStream Open(ReportOutput output) => new MarkdownReportWriter(output.Text);
}

/// <summary>The self-contained HTML page (docs/html-report.md): operations in report order, then the summary.</summary>
internal sealed class HtmlReportRenderer(long? memoryBudgetBytes = null) : IReportRenderer
{
    public IReportStream Open(ReportOutput output) => new HtmlReportWriter(output.Text, "BackupXe analysis", memoryBudgetBytes);
}
