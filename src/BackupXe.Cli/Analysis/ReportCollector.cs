using BackupXe.Core.Analysis;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Reporting;

namespace BackupXe.Cli.Analysis;

/// <summary>
/// Keeps every operation for the renderers that need the whole report before writing (a table of contents,
/// operations in start order). The one place the CLI holds all reports; streaming renderers do not use it.
/// </summary>
public sealed class ReportCollector : IOperationSink
{
    private readonly List<OperationReport> _reports = [];

    public void OnOperationCompleted(OperationReport report) => _reports.Add(report);

    public AnalysisReport ToReport(AnalysisFindings findings)
        => new(
            AnalysisReport.CurrentSchemaVersion,
            findings.Inputs,
            _reports.OrderBy(r => r.Start ?? r.End ?? DateTime.MaxValue).ToList());
}
