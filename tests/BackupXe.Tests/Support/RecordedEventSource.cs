using System.Runtime.CompilerServices;
using BackupXe.Core.Events;

namespace BackupXe.Tests.Support;

/// <summary>A file source stand-in: yields the given events and counts them like a real source.</summary>
public sealed class RecordedEventSource(string name, string format, params TraceEvent[] events) : ITraceEventSource
{
    public string Name { get; } = name;

    public string Format { get; } = format;

    public async IAsyncEnumerable<TraceEvent> ReadEventsAsync(
        SourceStatus status,
        [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        foreach (var traceEvent in events)
        {
            await Task.Yield();
            cancellationToken.ThrowIfCancellationRequested();
            status.Events++;
            yield return traceEvent;
        }
    }
}

/// <summary>Throwaway trace events with readable timestamps.</summary>
public static class LiveEvents
{
    public static readonly DateTime Start = new(2024, 5, 1, 2, 0, 0, DateTimeKind.Utc);

    public static ProgressTraceEvent Progress(double seconds, string message = "BACKUP DATABASE started") =>
        new(Start.AddSeconds(seconds), 57, OperationKind.Backup, "Sales", message);

    public static TraceEvent[] Numbered(int count) =>
        Enumerable.Range(0, count).Select(i => (TraceEvent)Progress(i, $"message {i}")).ToArray();
}
