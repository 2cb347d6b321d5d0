using System.Runtime.CompilerServices;
using BackupXe.Core.Events;
using BackupXe.SqlServer.Live;

namespace BackupXe.Tests.Support;

/// <summary>
/// A capture as a live server sends it: format <c>live</c> (so the analysis runs its quiet clock between events), each
/// event held back until <paramref name="clock"/> reaches its recorded offset (<see cref="ReplayEventSource"/> at speed
/// 1), and, like a live stream, no end of its own: after the last event it waits until cancelled.
/// </summary>
internal sealed class PacedLiveSource(ITraceEventSource recording, TimeProvider clock) : ITraceEventSource
{
    private readonly ReplayEventSource _paced = new(recording, 1, clock);

    public string Name => recording.Name;

    public string Format => "live";

    /// <summary>True once the last recorded event has been handed on.</summary>
    public bool Drained { get; private set; }

    public async IAsyncEnumerable<TraceEvent> ReadEventsAsync(SourceStatus status, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        await foreach (var traceEvent in _paced.ReadEventsAsync(status, cancellationToken))
        {
            yield return traceEvent;
        }

        Drained = true;
        await Task.Delay(Timeout.InfiniteTimeSpan, clock, cancellationToken);
    }
}
