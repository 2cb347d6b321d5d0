namespace BackupXe.Core.Events;

/// <summary>
/// Where events come from: a file of any supported format or a live stream. Every source feeds the same
/// correlator, so the CLI, the daemon and the tests read one report model.
/// </summary>
public interface ITraceEventSource
{
    /// <summary>What the user named: a path, or server/session for a live stream.</summary>
    string Name { get; }

    /// <summary>"xel", "xe-xml", "errorlog" or "live".</summary>
    string Format { get; }

    /// <summary>
    /// Streams the events in the order the source holds them. Damage is not thrown: it is recorded in
    /// <paramref name="status"/> and reading stops (or resumes, where the format allows) so that what was
    /// read before the damage is still analysed.
    /// </summary>
    IAsyncEnumerable<TraceEvent> ReadEventsAsync(SourceStatus status, CancellationToken cancellationToken);
}

/// <summary>
/// A source whose events are ready without waiting (a file read block by block). <see cref="Analysis.AnalysisSession"/>
/// reads a single such input through <see cref="ReadEvents"/>, without the merge and without suspending for any
/// event; both methods yield the same events, problems and counts.
/// </summary>
public interface ISynchronousTraceEventSource : ITraceEventSource
{
    /// <inheritdoc cref="ITraceEventSource.ReadEventsAsync"/>
    IEnumerable<TraceEvent> ReadEvents(SourceStatus status, CancellationToken cancellationToken);
}

/// <summary>
/// A synchronous source that decodes its events in runs (a .xel log buffer): the events of
/// <see cref="ISynchronousTraceEventSource.ReadEvents"/>, handed on a run at a time, so that a reader pays its
/// enumerator's calls per run rather than per event.
/// </summary>
public interface ITraceEventBatchSource : ISynchronousTraceEventSource
{
    /// <summary>The same events, problems and counts as <see cref="ISynchronousTraceEventSource.ReadEvents"/>; each run is the reader's until it asks for the next.</summary>
    IEnumerable<TraceEventList> ReadEventBatches(SourceStatus status, CancellationToken cancellationToken);
}

/// <summary>What one source yielded: how many events, and the problems it met.</summary>
public sealed class SourceStatus
{
    private readonly List<InputProblem> _problems = [];
    private readonly List<InputProblem> _findings = [];

    // Set by a source that may read ahead on a thread of its own, read by the analysis as it diagnoses.
    private ServerVersion? _server;

    /// <summary>The run read nothing at all: every input was unusable (exit code 1).</summary>
    public static bool NoneUsable(IEnumerable<SourceStatus> statuses) => statuses.All(s => s.Unusable);

    /// <summary>The run's result is partial: some input was unusable or damaged (exit code 2).</summary>
    public static bool AnyDamaged(IEnumerable<SourceStatus> statuses) => statuses.Any(s => s.Unusable || s.Problems.Count > 0);

    /// <summary>Events yielded (every kind, including ones not analysed).</summary>
    public long Events { get; set; }

    /// <summary>True when nothing at all could be read (missing, empty, unknown format).</summary>
    public bool Unusable { get; set; }

    public IReadOnlyList<InputProblem> Problems => _problems;

    /// <summary>
    /// The server this input came from, once the input has said it (an ERRORLOG's version banner, a job output's
    /// Version line, a live connection's login response, a restore's database version); null until then and for
    /// inputs that never say. The first one said is kept, except that a version with its build replaces one known
    /// only by its release.
    /// </summary>
    public ServerVersion? Server
    {
        get => Volatile.Read(ref _server);
        set
        {
            var current = Volatile.Read(ref _server);
            while (value is not null && (current is null || (current.Build is null && value.Build is not null)))
            {
                var seen = Interlocked.CompareExchange(ref _server, value, current);
                if (ReferenceEquals(seen, current))
                {
                    return;
                }

                current = seen;
            }
        }
    }

    public void Report(string location, string message) => _problems.Add(new InputProblem(location, message));

    /// <summary>
    /// What the input shows that is neither an operation nor damage (an excerpt's timed runs compared): a finding of
    /// the report, which leaves the exit code alone.
    /// </summary>
    public IReadOnlyList<InputProblem> Findings => _findings;

    /// <summary>Records a finding at <paramref name="location"/> (see <see cref="Findings"/>).</summary>
    public void Find(string location, string message) => _findings.Add(new InputProblem(location, message));

    /// <summary>
    /// A source threw although it is meant to report damage: that source's events end there, located, and the
    /// analysis goes on with what it yielded before (the merge of several inputs and a single input alike).
    /// </summary>
    public void ReadingStopped(Exception exception) => Report("source", $"reading stopped: {exception.Message}");
}
