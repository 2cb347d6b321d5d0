using BackupXe.Core.Analysis;
using BackupXe.Core.Correlation;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
using BackupXe.Core.Reporting;

namespace BackupXe.Worker.Monitoring;

/// <summary>
/// The production analyzer: the library's <see cref="AnalysisSession"/> over one instance's source. A live source's
/// clock moves on by wall time when it is quiet, so the last backup on a quiet server is recorded once its grace
/// period is over, not when the next backup starts.
/// </summary>
internal sealed class SessionOperationAnalyzer : IOperationAnalyzer
{
    private const string LiveFormat = "live";

    public IAsyncEnumerable<OperationReport> AnalyzeAsync(ITraceEventSource source, SourceStatus status, CancellationToken cancellationToken)
        => AnalyzeAsync(source, status, (Action<TraceEvent>?)null, cancellationToken);

    public IAsyncEnumerable<OperationReport> AnalyzeAsync(ITraceEventSource source, SourceStatus status, Action<TraceEvent>? onIdle, CancellationToken cancellationToken)
        => AnalyzeAsync(source, status, new LiveHooks(onIdle, null, ByteFlow.DefaultStallAfter), cancellationToken);

    public IAsyncEnumerable<OperationReport> AnalyzeAsync(ITraceEventSource source, SourceStatus status, LiveHooks hooks, CancellationToken cancellationToken)
        => new AnalysisSession(
            [new AnalysisInput(source, status)],
            new AnalysisOptions
            {
                OnIdle = hooks.OnIdle,
                OnProgress = hooks.OnProgress,
                Diagnosis = new DiagnosisSettings { StallAfter = hooks.StallAfter },
                QuietInterval = source.Format == LiveFormat ? AnalysisOptions.LiveQuietInterval : null,
                Time = hooks.Time,
            })
            .ReadOperationsAsync(cancellationToken);
}
