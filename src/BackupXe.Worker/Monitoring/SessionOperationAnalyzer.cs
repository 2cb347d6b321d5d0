using BackupXe.Core.Analysis;
using BackupXe.Core.Events;
using BackupXe.Core.Reporting;

namespace BackupXe.Worker.Monitoring;

/// <summary>The production analyzer: the library's <see cref="AnalysisSession"/> over one instance's source.</summary>
public sealed class SessionOperationAnalyzer : IOperationAnalyzer
{
    /// <summary>
    /// A live source's clock moves on by wall time after this long without an event, so that the last backup on a
    /// quiet server is recorded once its grace period is over, not when the next backup starts (as watch --server does).
    /// </summary>
    public static readonly TimeSpan LiveQuietInterval = TimeSpan.FromMilliseconds(500);

    private const string LiveFormat = "live";

    public IAsyncEnumerable<OperationReport> AnalyzeAsync(ITraceEventSource source, SourceStatus status, CancellationToken cancellationToken)
        => AnalyzeAsync(source, status, null, cancellationToken);

    public IAsyncEnumerable<OperationReport> AnalyzeAsync(ITraceEventSource source, SourceStatus status, Action<TraceEvent>? onIdle, CancellationToken cancellationToken)
        => new AnalysisSession(
            [new AnalysisInput(source, status)],
            new AnalysisOptions { OnIdle = onIdle, QuietInterval = source.Format == LiveFormat ? LiveQuietInterval : null })
            .ReadOperationsAsync(cancellationToken);
}
