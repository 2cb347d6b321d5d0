using System.Runtime.CompilerServices;
using BackupXe.Core.Events;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Analysis;

/// <summary>
/// The one analysis path: inputs merged in time order, through correlation and diagnosis, each operation
/// handed on as it completes. <c>analyze</c>, <c>watch</c>, the daemon and every later consumer run this;
/// none of them keeps a loop of its own. It keeps nothing per operation once the operation is handed on.
/// </summary>
public sealed class AnalysisSession
{
    private readonly IReadOnlyList<AnalysisInput> _inputs;
    private readonly AnalysisOptions _options;
    private OperationPipeline? _pipeline;

    public AnalysisSession(IReadOnlyList<ITraceEventSource> sources, AnalysisOptions? options = null)
        : this(sources.Select(source => new AnalysisInput(source)).ToList(), options)
    {
    }

    public AnalysisSession(IReadOnlyList<AnalysisInput> inputs, AnalysisOptions? options = null)
    {
        _inputs = inputs;
        _options = options ?? new AnalysisOptions();
    }

    public IReadOnlyList<AnalysisInput> Inputs => _inputs;

    /// <summary>What the run noticed; complete once the run has ended.</summary>
    public AnalysisFindings Findings => new(
        _inputs.Select(input => input.ToReport()).ToList(),
        _pipeline?.UnattributedWaits ?? 0,
        _pipeline?.OrphanMessages ?? 0)
    {
        AmbiguousWaits = _pipeline?.AmbiguousWaits() ?? [],
        RunsCompared = _pipeline?.RunsCompared(index => index < _inputs.Count ? _inputs[index].Source.Name : "?") ?? [],
        InputFindings = _inputs.SelectMany(input => input.Status.Findings.Select(f => new InputFindingReport(input.Source.Name, f.Location, f.Message))).ToList(),
        NothingUsable = SourceStatus.NoneUsable(_inputs.Select(input => input.Status)),
        Partial = SourceStatus.AnyDamaged(_inputs.Select(input => input.Status)),
    };

    /// <summary>Runs to the end of every input, handing each operation to <paramref name="sink"/> as it completes.</summary>
    public async Task<AnalysisFindings> RunAsync(IOperationSink sink, CancellationToken cancellationToken)
    {
        await foreach (var report in ReadOperationsAsync(cancellationToken).ConfigureAwait(false))
        {
            sink.OnOperationCompleted(report);
        }

        return Findings;
    }

    /// <summary>
    /// Each operation as soon as it completes, then, at the end of input, those still open (as incomplete).
    /// Can be enumerated once.
    /// </summary>
    public async IAsyncEnumerable<OperationReport> ReadOperationsAsync([EnumeratorCancellation] CancellationToken cancellationToken)
    {
        var run = Start();

        // The reader reads under a token of its own: when a consumer stops early (the daemon's history write failed) while
        // the quiet clock is waiting on a read, that read is cancelled and awaited before the reader is disposed, which
        // a read in progress does not allow.
        using var reading = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        await using var reader = OpenReader(reading.Token);
        var quiet = _options.QuietInterval;
        var time = _options.Time;
        var arrived = time.GetTimestamp();
        Task<bool>? unfinishedRead = null;

        // A single file's reads complete at once and nothing waits on a clock: its events are observed in a plain loop
        // until one completes an operation, so that the loop suspends per report rather than paying its await per event.
        var synchronous = quiet is null ? reader as SynchronousReader : null;
        try
        {
            while (true)
            {
                if (synchronous is not null)
                {
                    if (!run.ObserveUntilCompleted(synchronous))
                    {
                        break;
                    }

                    while (run.Completed.TryDequeue(out var report))
                    {
                        yield return report;
                    }

                    run.HandedOn(synchronous.Current);
                    continue;
                }

                var next = reader.MoveNextAsync();
                if (quiet is { } quietFor && !next.IsCompleted && run.Previous is { } previous)
                {
                    var pending = next.AsTask();
                    unfinishedRead = pending;
                    // On cancellation the pending read is still awaited below: the enumerator cannot be disposed mid-read,
                    // and the source decides how it ends.
                    while (await Task.WhenAny(pending, Task.Delay(quietFor, time, cancellationToken)).ConfigureAwait(false) != pending
                        && !cancellationToken.IsCancellationRequested)
                    {
                        run.Pipeline.AdvanceClock(previous.Timestamp + time.GetElapsedTime(arrived) * _options.ClockRate);
                        while (run.Completed.TryDequeue(out var settled))
                        {
                            yield return settled;
                        }

                        // A heartbeat: a phase that writes no message (zeroing, recovery) still shows its time.
                        _options.OnProgress?.Invoke(run.Pipeline.InFlight());
                    }

                    next = new ValueTask<bool>(pending);
                }

                if (!await next.ConfigureAwait(false))
                {
                    break;
                }

                unfinishedRead = null;
                var traceEvent = reader.Current;
                if (quiet is not null)
                {
                    arrived = time.GetTimestamp();
                }

                run.Observe(traceEvent, reader.SourceIndex);
                while (run.Completed.TryDequeue(out var report))
                {
                    yield return report;
                }

                // After the yields: the consumer has finished with every report before the reader may checkpoint.
                run.HandedOn(traceEvent);
            }
        }
        finally
        {
            if (unfinishedRead is { IsCompleted: false })
            {
                await reading.CancelAsync().ConfigureAwait(false);
                try
                {
                    await unfinishedRead.ConfigureAwait(false);
                }
                catch (Exception)
                {
                    // Abandoned by the consumer: whatever the cancelled read ends with is nobody's to handle.
                }
            }
        }

        run.Pipeline.Flush();
        while (run.Completed.TryDequeue(out var report))
        {
            yield return report;
        }
    }

    // The choice under the one loop: files are never waited for, so their reads complete at once and the loop does not
    // suspend; a single one needs no merge. An input read asynchronously (a live server, a paced replay, the dbatools
    // and RESTORE HEADERONLY tables), or a live run with its quiet clock, goes through the asynchronous merge.
    private EventReader OpenReader(CancellationToken cancellationToken)
    {
        if (_options.QuietInterval is null && _inputs.All(input => input.Source is ISynchronousTraceEventSource))
        {
            // Several inputs are read ahead as the asynchronous merge reads them: each on a thread of its own where that pays.
            var readAhead = _options.ReadAhead && ReadAhead.Pays;
            var readers = _inputs.Select(input => Synchronous(input, readAhead, cancellationToken)).ToArray();
            return readers is [var single] ? single : new SynchronousMergeReader(readers);
        }

        return new MergedEventReader(new TimeOrderedMerge(_inputs, _options.ReadAhead), cancellationToken);
    }

    private static SynchronousEventReader Synchronous(AnalysisInput input, bool readAhead, CancellationToken cancellationToken)
    {
        var source = (ISynchronousTraceEventSource)input.Source;
        if (readAhead && ReadAhead.PaysFor(source))
        {
            return new SynchronousEventReader(ReadAhead.Batches(source, input.Status, cancellationToken).GetEnumerator(), input.Status);
        }

        return source is ITraceEventBatchSource batched
            ? new SynchronousEventReader(batched.ReadEventBatches(input.Status, cancellationToken).GetEnumerator(), input.Status)
            : new SynchronousEventReader(source.ReadEvents(input.Status, cancellationToken).GetEnumerator(), input.Status);
    }

    private RunState Start()
    {
        if (_pipeline is not null)
        {
            throw new InvalidOperationException("An analysis session reads its inputs once.");
        }

        var completed = new Queue<OperationReport>();
        _pipeline = new OperationPipeline(new QueueSink(completed), _options.Diagnosis, _options.CompareRuns)
        {
            ServerOf = input => input >= 0 && input < _inputs.Count ? _inputs[input].Status.Server : null,
        };
        return new RunState(_pipeline, completed, _options);
    }

    /// <summary>One run's pipeline and what the options ask to hear about each event.</summary>
    private sealed class RunState(OperationPipeline pipeline, Queue<OperationReport> completed, AnalysisOptions options)
    {
        private readonly int _interval = Math.Max(1, options.EventsReadInterval);
        private long _events;

        public OperationPipeline Pipeline => pipeline;

        /// <summary>Operations completed by the last event, to hand on before <see cref="HandedOn"/>.</summary>
        public Queue<OperationReport> Completed => completed;

        public TraceEvent? Previous { get; private set; }

        public void Observe(TraceEvent traceEvent, int input)
        {
            pipeline.Observe(traceEvent, input);
            if (options.OnProgress is { } onProgress && traceEvent is ProgressTraceEvent)
            {
                onProgress(pipeline.InFlight());
            }

            if (options.EventsRead is { } eventsRead && ++_events % _interval == 0)
            {
                eventsRead.Report(_events);
            }
        }

        /// <summary>
        /// Observes the reader's events until one completes an operation (true: its reports wait in <see cref="Completed"/>,
        /// to hand on before <see cref="HandedOn"/>) or the events end (false).
        /// </summary>
        public bool ObserveUntilCompleted(SynchronousReader reader)
        {
            while (reader.MoveNext())
            {
                var traceEvent = reader.Current;
                Observe(traceEvent, reader.SourceIndex);
                if (completed.Count > 0)
                {
                    return true;
                }

                HandedOn(traceEvent);
            }

            return false;
        }

        /// <summary>Every report <paramref name="traceEvent"/> completed has been handed on.</summary>
        public void HandedOn(TraceEvent traceEvent)
        {
            if (options.OnIdle is { } onIdle)
            {
                if (pipeline.Idle)
                {
                    onIdle(traceEvent);
                }
                else if (pipeline.IdleBeforeLast && Previous is not null)
                {
                    onIdle(Previous);
                }
            }

            Previous = traceEvent;
        }
    }

    // The pipeline completes operations inside Observe; the queue lets the session yield them between events.
    private sealed class QueueSink(Queue<OperationReport> queue) : IOperationSink
    {
        public void OnOperationCompleted(OperationReport report) => queue.Enqueue(report);
    }
}
