using System.Runtime.CompilerServices;
using BackupXe.Core.Events;

namespace BackupXe.Tests.Sources.Support;

/// <summary>A source that yields fixed events, and can throw after them like a buggy source would.</summary>
internal sealed class ListSource(string name, IReadOnlyList<TraceEvent> events, Exception? thenThrow = null) : ITraceEventSource
{
    public string Name => name;

    public string Format => "test";

    public bool Disposed { get; private set; }

    public async IAsyncEnumerable<TraceEvent> ReadEventsAsync(
        SourceStatus status,
        [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        try
        {
            foreach (var traceEvent in events)
            {
                await Task.Yield();
                status.Events++;
                yield return traceEvent;
            }

            if (thenThrow is not null)
            {
                throw thenThrow;
            }
        }
        finally
        {
            Disposed = true;
        }
    }
}
