using BackupXe.Core.Correlation;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Pipeline;

/// <summary>Receives each operation once it has ended (or, at the end of input, as it stands).</summary>
public interface IOperationSink
{
    void OnOperationCompleted(OperationReport report);
}

/// <summary>
/// Events in, diagnosed operations out: correlation, aggregation and diagnosis behind one call, shared by the
/// analyzer, the live watcher and the daemon.
/// </summary>
public sealed class OperationPipeline
{
    private readonly IOperationSink _sink;
    private readonly BackupDiagnostician _diagnostician;
    private readonly OperationCorrelator _correlator;
    private readonly OperationRuns? _runs;
    private readonly RunsComparer? _compared;
    private DateTime? _clock;

    public OperationPipeline(IOperationSink sink, DiagnosisSettings? settings = null, bool compareRuns = false)
    {
        _sink = sink;
        _diagnostician = new BackupDiagnostician(settings ?? new DiagnosisSettings());
        _runs = compareRuns ? new OperationRuns(_diagnostician.Settings.QuickOperationSeconds) : null;
        _compared = compareRuns ? new RunsComparer(_diagnostician.Settings.QuickOperationSeconds) : null;
        _correlator = new OperationCorrelator(Complete, new MessageParses(), stallAfter: _diagnostician.Settings.StallAfter);
    }

    /// <summary>
    /// How long an ended operation is held for its late lines before it is released: a live source that advances the
    /// clock past an operation's end by more than this gets it back.
    /// </summary>
    public static TimeSpan EndedOperationGrace => OperationCorrelator.DefaultGrace;

    public long UnattributedWaits => _correlator.UnattributedWaits;

    public long OrphanMessages => _correlator.OrphanMessages;

    /// <summary>The server-level profile of waits that overlapped several operations (each counted once).</summary>
    public IReadOnlyList<WaitReport> AmbiguousWaits() => _correlator.AmbiguousWaits.ToReports();

    /// <summary>
    /// The runs of each series set side by side (docs/diagnosis.md, "Runs compared"), each run named by
    /// <paramref name="inputName"/> from its input's index; empty unless the pipeline compares runs.
    /// </summary>
    public IReadOnlyList<RunsComparedReport> RunsCompared(Func<int, string> inputName) => _compared?.Conclude(inputName) ?? [];

    /// <summary>Nothing open or held: a reader may resume after the last event without splitting an operation.</summary>
    public bool Idle => _correlator.Idle;

    /// <summary>Nothing was open or held just before the last event: a reader may resume after the event before it.</summary>
    public bool IdleBeforeLast => _correlator.IdleBeforeLast;

    /// <summary>
    /// The server each input has said it came from, by the input's index (<see cref="Observe"/>'s <c>input</c>); null
    /// when the inputs are not told apart. Asked when an operation completes, so a banner read before then counts.
    /// </summary>
    public Func<int, ServerVersion?>? ServerOf { get; init; }

    /// <param name="traceEvent">The next event in time order.</param>
    /// <param name="input">Which input it came from (its index), so that an operation it opens knows its server.</param>
    public void Observe(TraceEvent traceEvent, int input = 0)
    {
        _clock = traceEvent.Timestamp;
        _correlator.Input = input;
        _correlator.Observe(traceEvent);
    }

    /// <summary>Live sources call this on quiet streams so that an ended operation is reported without waiting for another event.</summary>
    public void AdvanceClock(DateTime now)
    {
        _clock = now;
        _correlator.Settle(now);
    }

    /// <summary>End of input: releases everything still gathered; unfinished operations report as incomplete.</summary>
    public void Flush() => _correlator.Flush();

    /// <summary>A snapshot of running operations for live progress.</summary>
    public IReadOnlyList<OperationProgress> InFlight()
        => _correlator.InFlight.Select(o => OperationProgress.Of(o, _clock ?? o.LastSeen)).ToList();

    private void Complete(BackupOperation operation)
    {
        var built = OperationReportBuilder.Build(operation) with { Server = ServerOf?.Invoke(operation.Input) };
        var report = FailureReasons.WithRemedy(built, built.Kind == OperationKind.Restore);
        var diagnosis = _diagnostician.Diagnose(report);
        _compared?.Add(report, operation.Input);
        var verdict = _runs?.Compare(report) is { } comparison
            ? diagnosis.Verdict with { Evidence = [.. diagnosis.Verdict.Evidence, comparison] }
            : diagnosis.Verdict;
        _sink.OnOperationCompleted(report with { Verdict = verdict, Recommendations = diagnosis.Recommendations });
    }
}
