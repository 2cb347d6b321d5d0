using BackupXe.Core.Analysis;
using BackupXe.Core.Baselines;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;

namespace BackupXe.Cli.Rendering;

/// <summary>Each completed operation set against its history before the report (or the watch view) receives it.</summary>
internal sealed class BaselineComparingStream(IOperationSink inner, BaselineContext history) : IReportStream, IDisposable
{
    public void OnOperationCompleted(OperationReport report) => inner.OnOperationCompleted(history.Attach(report));

    public void Complete(AnalysisFindings findings) => (inner as IReportStream)?.Complete(findings);

    public void Dispose() => (inner as IDisposable)?.Dispose();
}
