using BackupXe.Core.Analysis;
using BackupXe.Core.Events;
using BackupXe.Core.Reporting;

namespace BackupXe.Worker.Monitoring;

/// <summary>The production analyzer: the library's <see cref="AnalysisSession"/> over one instance's source.</summary>
public sealed class SessionOperationAnalyzer : IOperationAnalyzer
{
    public IAsyncEnumerable<OperationReport> AnalyzeAsync(ITraceEventSource source, SourceStatus status, CancellationToken cancellationToken)
        => AnalyzeAsync(source, status, null, cancellationToken);

    public IAsyncEnumerable<OperationReport> AnalyzeAsync(ITraceEventSource source, SourceStatus status, Action<TraceEvent>? onIdle, CancellationToken cancellationToken)
        => new AnalysisSession([new AnalysisInput(source, status)], new AnalysisOptions { OnIdle = onIdle }).ReadOperationsAsync(cancellationToken);
}
