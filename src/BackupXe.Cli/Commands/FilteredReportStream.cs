using BackupXe.Core.Analysis;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;

namespace BackupXe.Cli.Commands;

/// <summary>A report of only the operations a filter keeps; the inputs and their problems are reported whole.</summary>
internal sealed class FilteredReportStream(IReportStream inner, OperationFilter filter) : IReportStream, IDisposable
{
    public void OnOperationCompleted(OperationReport report)
    {
        if (filter.Matches(report))
        {
            inner.OnOperationCompleted(report);
        }
    }

    public void Complete(AnalysisFindings findings) => inner.Complete(findings);

    public void Dispose() => (inner as IDisposable)?.Dispose();
}
