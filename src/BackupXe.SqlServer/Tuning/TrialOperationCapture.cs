using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Reporting;

namespace BackupXe.SqlServer.Tuning;

/// <summary>
/// The tune's own reading of the BackupXe capture session: one live source (the session's event file, as <c>watch</c>
/// reads it) read in the background through the same pipeline as every other capture, and each trial's operation
/// taken out by the session id of the connection that ran it, its database and its start. A trial that finished is
/// taken when its completion message arrives; one stopped at its window, once the session has had time to dispatch its
/// last events (<see cref="Settle"/>), as it then stands.
/// </summary>
public sealed class TrialOperationCapture : IOperationSink, IAsyncDisposable
{
    /// <summary>The session's MAX_DISPATCH_LATENCY (2 s) plus the file tail's poll (1 s), with a margin.</summary>
    public static readonly TimeSpan Settle = TimeSpan.FromSeconds(5);

    /// <summary>How often a trial's operation is looked for while the session settles.</summary>
    public static readonly TimeSpan Poll = TimeSpan.FromMilliseconds(200);

    /// <summary>How long a trial's operation is waited for at most, behind history the reader may still be reading.</summary>
    public static readonly TimeSpan Timeout = TimeSpan.FromSeconds(60);

    /// <summary>Just past the pipeline's grace for late lines of an ended operation, on the server's clock.</summary>
    private static readonly TimeSpan ReleaseAfterEnd = OperationPipeline.EndedOperationGrace + Poll;

    private readonly ITraceEventSource _source;
    private readonly TimeProvider _time;
    private readonly OperationPipeline _pipeline;
    private readonly List<OperationReport> _completed = [];
    private readonly Lock _gate = new();
    private readonly CancellationTokenSource _stop = new();
    private readonly SourceStatus _status = new();
    private Task? _reading;
    private string? _failure;

    public TrialOperationCapture(ITraceEventSource source, DiagnosisSettings settings, TimeProvider? time = null)
    {
        ArgumentNullException.ThrowIfNull(source);
        _source = source;
        _time = time ?? TimeProvider.System;
        _pipeline = new OperationPipeline(this, settings);
    }

    public void Start() => _reading ??= Task.Run(() => ReadAsync(_stop.Token));

    void IOperationSink.OnOperationCompleted(OperationReport report) => _completed.Add(report);

    /// <summary>
    /// The operation of the BACKUP (or RESTORE, by <paramref name="kind"/>) run on <paramref name="sessionId"/> at or after <paramref name="sinceUtc"/> (server
    /// clock) of <paramref name="database"/>; null with the reason when the session did not deliver it in time.
    /// </summary>
    /// <param name="endedUtc">
    /// For a statement that returned: the server's clock once it had, read on the server after it. An operation ended by
    /// then is released once its grace period has passed on that clock, without waiting for a later event (a session
    /// that records only backups and restores writes none until the next one starts); null: released by later events.
    /// </param>
    public async Task<(OperationReport? Operation, string? Problem)> TakeAsync(int sessionId, string database, DateTime sinceUtc, bool finished, OperationKind kind, CancellationToken cancellationToken, DateTime? endedUtc = null)
    {
        var started = _time.GetTimestamp();
        var flushed = false;
        while (true)
        {
            lock (_gate)
            {
                // Operations of the history before the trial (read from the files' start) are not kept: memory stays flat.
                _completed.RemoveAll(o => o.Start is not { } at || at < sinceUtc.AddSeconds(-1));
                var found = _completed.FindIndex(o => o.Kind == kind && o.SessionId == sessionId
                    && string.Equals(o.Database, database, StringComparison.OrdinalIgnoreCase)
                    && o.Start is { } start && start >= sinceUtc.AddSeconds(-1));
                if (found >= 0)
                {
                    var operation = _completed[found];
                    _completed.Clear();
                    return (operation, null);
                }

                if (finished && endedUtc is { } ended)
                {
                    // Only ended operations are released by the clock: one whose last events are still unread stays open.
                    _pipeline.AdvanceClock(ended + ReleaseAfterEnd);
                }

                var waited = _time.GetElapsedTime(started);
                if (!flushed && (!finished && waited >= Settle || waited >= Timeout / 2))
                {
                    // What arrived of a stopped trial is all there is: end it here, as at the end of any input.
                    _pipeline.Flush();
                    flushed = true;
                    continue;
                }

                if (_failure is not null || _status.Unusable)
                {
                    return (null, "the capture session cannot be read: " + (_failure ?? string.Join("; ", _status.Problems.Select(p => p.Message))));
                }

                if (waited >= Timeout)
                {
                    return (null, $"the capture session delivered no operation of session {sessionId} in {Timeout.TotalSeconds:0} s");
                }
            }

            await Task.Delay(Poll, _time, cancellationToken).ConfigureAwait(false);
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        if (_reading is not null)
        {
            // A source slow to notice the cancel does not hold the command's exit: its connection is closed with the process.
            await Task.WhenAny(_reading, Task.Delay(TimeSpan.FromSeconds(5), _time)).ConfigureAwait(false);
        }

        _stop.Dispose();
    }

    private async Task ReadAsync(CancellationToken cancellationToken)
    {
        try
        {
            await foreach (var traceEvent in _source.ReadEventsAsync(_status, cancellationToken).ConfigureAwait(false))
            {
                lock (_gate)
                {
                    _pipeline.Observe(traceEvent);
                }
            }
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
        }
        catch (Exception failure)
        {
            lock (_gate)
            {
                _failure = ConnectionStringRedactor.RedactMessage(failure.Message);
            }
        }
    }
}
