using BackupXe.Core.Reporting;
using BackupXe.Core.Reporting.Html;

namespace BackupXe.Cli.Rendering;

/// <summary>One output format of the analysis report, written while the analysis runs.</summary>
public interface IReportRenderer
{
    IReportStream Open(TextWriter output);
}

public sealed class JsonReportRenderer : IReportRenderer
{
    public IReportStream Open(TextWriter output) => new JsonReportWriter(output);
}

public sealed class MarkdownReportRenderer : IReportRenderer
{
    public IReportStream Open(TextWriter output) => new MarkdownReportWriter(output);
}

/// <summary>The self-contained HTML page (docs/html-report.md): operations in report order, then the summary.</summary>
public sealed class HtmlReportRenderer(long? memoryBudgetBytes = null) : IReportRenderer
{
    public IReportStream Open(TextWriter output) => new HtmlReportWriter(output, "BackupXe analysis", memoryBudgetBytes);
}
