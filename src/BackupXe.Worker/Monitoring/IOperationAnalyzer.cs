using BackupXe.Core.Events;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Reporting;

namespace BackupXe.Worker.Monitoring;

/// <summary>
/// Turns a source's events into finished operations. The worker sees the analysis pipeline only through
/// this, so that its tests can script the operations an instance produces.
/// </summary>
internal interface IOperationAnalyzer
{
    /// <summary>Yields each operation as soon as it completes, then whatever is still open when the source ends.</summary>
    IAsyncEnumerable<OperationReport> AnalyzeAsync(ITraceEventSource source, SourceStatus status, CancellationToken cancellationToken);

    /// <summary>
    /// As above, calling <paramref name="onIdle"/> after each event that leaves no operation open and every
    /// completed one dealt with (a live source checkpoints there). Analyzers that cannot tell never call it.
    /// </summary>
    IAsyncEnumerable<OperationReport> AnalyzeAsync(ITraceEventSource source, SourceStatus status, Action<TraceEvent>? onIdle, CancellationToken cancellationToken)
        => AnalyzeAsync(source, status, cancellationToken);

    /// <summary>
    /// As above, also handing <see cref="LiveHooks.OnProgress"/> the running operations after each progress event and
    /// each quiet tick; analyzers that show no progress ignore it.
    /// </summary>
    IAsyncEnumerable<OperationReport> AnalyzeAsync(ITraceEventSource source, SourceStatus status, LiveHooks hooks, CancellationToken cancellationToken)
        => AnalyzeAsync(source, status, hooks.OnIdle, cancellationToken);
}

/// <summary>What the monitor wants to hear while an instance's events are analysed, and the clock a quiet live source is timed on.</summary>
internal sealed record LiveHooks(Action<TraceEvent>? OnIdle, Action<IReadOnlyList<OperationProgress>>? OnProgress, TimeSpan StallAfter)
{
    public TimeProvider Time { get; init; } = TimeProvider.System;
}
