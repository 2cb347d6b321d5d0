using BackupXe.Core.Analysis;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Rendering;

/// <summary>
/// A report written while the analysis runs: each operation as it completes, then, once the inputs are read,
/// the inputs and the summary. It keeps only the summary's counts, so its memory does not grow with the
/// number of operations in the input.
/// </summary>
public interface IReportStream : IOperationSink
{
    /// <summary>Writes what only the end of the run knows and closes the document.</summary>
    void Complete(AnalysisFindings findings);
}
