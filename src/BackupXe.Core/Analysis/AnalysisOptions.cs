using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
using BackupXe.Core.Pipeline;

namespace BackupXe.Core.Analysis;

/// <summary>How a run is diagnosed and who watches it while it runs.</summary>
public sealed class AnalysisOptions
{
    public DiagnosisSettings Diagnosis { get; init; } = new();

    /// <summary>
    /// Compare each operation with the previous run of the same data in the input (docs/diagnosis.md). For files read
    /// whole: a live worker restarted mid-stream would otherwise store verdicts that depend on when it restarted.
    /// </summary>
    public bool CompareRuns { get; init; }

    /// <summary>
    /// Called after each progress message with the operations still running; only a live view needs it, and
    /// the snapshot is not built at all when this is null.
    /// </summary>
    public Action<IReadOnlyList<OperationProgress>>? OnProgress { get; init; }

    /// <summary>Called every <see cref="EventsReadInterval"/> events with the count so far (a progress display).</summary>
    public IProgress<long>? EventsRead { get; init; }

    public int EventsReadInterval { get; init; } = 65_536;

    /// <summary>
    /// Called with the last event after which no operation was open or held (the event just observed, or the one
    /// before it when that one opened a new operation), once every completed one has been handed on (and,
    /// for <see cref="AnalysisSession.ReadOperationsAsync"/>, dealt with by the consumer). A durable live reader
    /// checkpoints here: resuming after this event re-reads no part of an operation already handed on and skips
    /// no part of one still to come.
    /// </summary>
    public Action<TraceEvent>? OnIdle { get; init; }

    /// <summary>
    /// A single file input is read and parsed on a thread of its own, a few batches ahead of the analysis, when the
    /// machine has a second core (<see cref="Analysis.ReadAhead"/>). The result is the same either way; false keeps
    /// the whole run on the calling thread.
    /// </summary>
    public bool ReadAhead { get; init; } = true;

    /// <summary>
    /// For live inputs: after this long without a new event, the pipeline's clock moves on by the wall time that
    /// passed since the last one arrived, so an operation that ended is reported once its grace period is over
    /// instead of when the next event happens to come (which on a quiet server may be hours). Null for files,
    /// whose clock is their own timestamps.
    /// </summary>
    public TimeSpan? QuietInterval { get; init; }

    /// <summary>The clock the quiet interval is measured on: the system's, a test's fake one.</summary>
    public TimeProvider Time { get; init; } = TimeProvider.System;

    /// <summary>
    /// How much input time passes per second of wall time while the input is quiet: 1 for a live server, the speed
    /// of a paced replay. Moves the clock by <see cref="QuietInterval"/> ticks, and with it the live view's heartbeat.
    /// </summary>
    public double ClockRate { get; init; } = 1;

    /// <summary>
    /// The quiet interval both live readers use (watch --server and the daemon): half a second is well under the
    /// 2 s grace an ended operation waits for its late summary lines, and long enough that a busy stream never
    /// moves its clock by wall time between two events of one poll.
    /// </summary>
    public static readonly TimeSpan LiveQuietInterval = TimeSpan.FromMilliseconds(500);
}
