using BackupXe.Core.Events;

namespace BackupXe.Tests.Sources.Support;

/// <summary>Everything one read of a source gave: the events and the status it filled.</summary>
internal sealed record SourceRun(IReadOnlyList<TraceEvent> Events, SourceStatus Status)
{
    public static async Task<SourceRun> ReadAsync(ITraceEventSource source)
    {
        var status = new SourceStatus();
        var events = new List<TraceEvent>();
        await foreach (var traceEvent in source.ReadEventsAsync(status, CancellationToken.None))
        {
            events.Add(traceEvent);
        }

        return new SourceRun(events, status);
    }

    public IReadOnlyList<ProgressTraceEvent> Progress => Events.OfType<ProgressTraceEvent>().ToList();
}
