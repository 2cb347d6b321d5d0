using System.Runtime.CompilerServices;
using BackupXe.Core.Events;

namespace BackupXe.Sources;

/// <summary>An input that cannot be read at all (missing, empty, unknown format): yields nothing, says why.</summary>
internal sealed class UnreadableInputSource : ITraceEventSource
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

    public async IAsyncEnumerable<TraceEvent> ReadEventsAsync(
        SourceStatus status,
        [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        status.Unusable = true;
        status.Report("file", Problem);
        yield break;
    }
}
