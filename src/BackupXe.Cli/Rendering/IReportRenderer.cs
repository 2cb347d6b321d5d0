using BackupXe.Core.Reporting;

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
