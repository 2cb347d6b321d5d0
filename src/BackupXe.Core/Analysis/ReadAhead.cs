using System.Collections.Concurrent;
using System.Runtime.ExceptionServices;
using BackupXe.Core.Events;

namespace BackupXe.Core.Analysis;

/// <summary>
/// A synchronous source read on a thread of its own, a few batches ahead of the analysis, so that reading and
/// parsing a file run on one core while correlation, diagnosis and report writing run on another. The events
/// come out in the order the source yields them, and a source that throws ends its events at the same place as
/// without read-ahead: the exception is raised to the caller after every event before it.
/// </summary>
/// <remarks>
/// It pays where reading is a large share of the work but not all of it, as an ERRORLOG's is (docs/performance.md,
/// "ERRORLOG decisions"). Memory stays flat: at most <see cref="BatchesAhead"/> full batches wait, whatever the input's size.
/// </remarks>
internal static class ReadAhead
{
    /// <summary>
    /// Events handed over at once: one hand-over per batch, not per event, keeps the two threads' cost low, and a
    /// batch small enough to be still in the cache when the analysis takes it is what makes the second core pay.
    /// </summary>
    public const int BatchEvents = 256;

    /// <summary>Full batches the reader may be ahead by before it waits for the analysis: 4,096 events, a few MB.</summary>
    public const int BatchesAhead = 16;

    // How long a consumer that stops early waits for the reader to notice. A file read returns at once; a read of a
    // pipe blocks until its writer writes, and a reader left behind there is a background thread that dies with
    // the process.
    private static readonly TimeSpan StopWait = TimeSpan.FromSeconds(1);

    /// <summary>True when a second core is there to read on; with one, read-ahead only adds hand-overs.</summary>
    public static bool Pays => Environment.ProcessorCount > 1;

    /// <summary>Whether <paramref name="source"/> gains from a reader thread: yes unless its <see cref="IReadAheadAdvice"/> says no.</summary>
    public static bool PaysFor(ISynchronousTraceEventSource source) => source is not IReadAheadAdvice advice || advice.ReadAheadPays;

    /// <summary>The source's events, read on a thread of its own.</summary>
    public static IEnumerable<TraceEvent> Events(ISynchronousTraceEventSource source, SourceStatus status, CancellationToken cancellationToken)
        => TraceEventList.Flatten(Batches(source, status, cancellationToken));

    /// <summary>The same events in the batches the reading thread hands over; each batch is the caller's.</summary>
    public static IEnumerable<TraceEventList> Batches(ISynchronousTraceEventSource source, SourceStatus status, CancellationToken cancellationToken)
    {
        var reading = new Reading(source, status, cancellationToken);
        var thread = new Thread(reading.Run) { IsBackground = true, Name = "BackupXe read-ahead" };
        thread.Start();
        var finished = false;
        try
        {
            foreach (var batch in reading.Batches.GetConsumingEnumerable())
            {
                yield return batch;
            }

            finished = true;
        }
        finally
        {
            // Stopped early (the consumer failed or was cancelled): the reader stops at its next event or hand-over.
            if (!finished)
            {
                reading.Stop();
            }

            if (thread.Join(finished ? Timeout.InfiniteTimeSpan : StopWait))
            {
                reading.Dispose();
            }
        }

        reading.Failure?.Throw();
    }

    /// <summary>The reader thread's side: the source's events in batches, then how it ended.</summary>
    private sealed class Reading(ISynchronousTraceEventSource source, SourceStatus status, CancellationToken cancellationToken) : IDisposable
    {
        private readonly CancellationTokenSource _stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);

        public BlockingCollection<TraceEventList> Batches { get; } = new(BatchesAhead);

        /// <summary>What the source threw, raised to the consumer once it has every event before it; null when it ended.</summary>
        public ExceptionDispatchInfo? Failure { get; private set; }

        public void Stop() => _stop.Cancel();

        public void Run()
        {
            var batch = new TraceEventList(BatchEvents);
            try
            {
                try
                {
                    foreach (var traceEvent in source.ReadEvents(status, _stop.Token))
                    {
                        batch.Add(traceEvent);
                        if (batch.Count == BatchEvents)
                        {
                            Batches.Add(batch, _stop.Token);
                            batch = new TraceEventList(BatchEvents);
                        }
                    }
                }
                catch (Exception e) when (!ConsumerLeft)
                {
                    // Raised to the consumer after the events before it, the part batch included.
                    Failure = ExceptionDispatchInfo.Capture(e);
                }

                if (batch.Count > 0 && !ConsumerLeft)
                {
                    Batches.Add(batch, _stop.Token);
                }
            }
            catch (OperationCanceledException)
            {
                // The consumer left, or the run was cancelled while a batch waited for room: nobody is left to hand it to.
            }
            catch (Exception) when (ConsumerLeft)
            {
                // Whatever the source did once the consumer had left is nobody's to handle.
            }
            finally
            {
                Batches.CompleteAdding();
            }
        }

        // Stop was called: the consumer stopped reading before the end.
        private bool ConsumerLeft => _stop.IsCancellationRequested && !cancellationToken.IsCancellationRequested;

        public void Dispose()
        {
            _stop.Dispose();
            Batches.Dispose();
        }
    }
}
