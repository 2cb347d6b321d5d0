using System.Runtime.CompilerServices;
using BackupXe.Core.Events;

namespace BackupXe.Worker.Monitoring;

/// <summary>Passes a source's events through, counting each one (backupxe.events.received).</summary>
internal sealed class CountingEventSource(ITraceEventSource inner, Action onEvent) : ITraceEventSource
{
    public string Name => inner.Name;

    public string Format => inner.Format;

    public async IAsyncEnumerable<TraceEvent> ReadEventsAsync(SourceStatus status, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        await foreach (var traceEvent in inner.ReadEventsAsync(status, cancellationToken))
        {
            onEvent();
            yield return traceEvent;
        }
    }
}
