using BackupXe.Core.Analysis;
using BackupXe.Core.Events;

namespace BackupXe.Sources;

/// <summary>An input that cannot be read at all (missing, empty, unknown format): yields nothing, says why.</summary>
internal sealed class UnreadableInputSource : ISynchronousTraceEventSource, IReadAheadAdvice
{
    public UnreadableInputSource(string name, string problem)
    {
        Name = name;
        Problem = problem;
    }

    public string Name { get; }

    /// <summary>Not one of the readable formats, by definition.</summary>
    public string Format => "unknown";

    public string Problem { get; }

    /// <summary>Nothing to read: a thread of its own would only say the problem.</summary>
    public bool ReadAheadPays => false;

    public IAsyncEnumerable<TraceEvent> ReadEventsAsync(SourceStatus status, CancellationToken cancellationToken) =>
        ReadEvents(status, cancellationToken).ToAsyncEnumerable();

    /// <summary>No events; the problem is said when reading starts, as for a file that is read.</summary>
    public IEnumerable<TraceEvent> ReadEvents(SourceStatus status, CancellationToken cancellationToken)
    {
        status.Unusable = true;
        status.Report("file", Problem);
        yield break;
    }
}
