using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Correlation;

/// <summary>
/// Turns a time-ordered event stream into operations, one per backup/restore, keyed by session and database so
/// that concurrent backups on one server stay apart. Ended operations are held for a short grace period because
/// the ERRORLOG writes its closing lines ("Database backed up", "... successfully processed ...") from a
/// different process column, after the trace's own last step.
/// </summary>
public sealed class OperationCorrelator(Action<BackupOperation> onSettled, TimeSpan? grace = null)
{
    private readonly TimeSpan _grace = grace ?? TimeSpan.FromSeconds(2);
    private readonly List<BackupOperation> _open = [];
    private readonly List<BackupOperation> _ended = [];

    // The latest open operation of each session, so that a wait or message finds its operation without a
    // scan of every operation in flight (1000 concurrent backups would make each event cost 1000 steps).
    private readonly Dictionary<int, BackupOperation> _openBySession = [];
    private readonly WaitAccumulator _ambiguous = new();
    private long _ambiguousCount;
    private readonly TraceMessageParser _parser = new();
    private BackupOperation? _lastHistoryMatch;

    /// <summary>Wait events that overlapped no operation: reported, not silently dropped.</summary>
    public long UnattributedWaits { get; private set; }

    /// <summary>
    /// Waits without a session_id that ended while several operations ran: the server-level profile, each
    /// wait counted once and added to no operation.
    /// </summary>
    public WaitAccumulator AmbiguousWaits => _ambiguous;

    /// <summary>Trace messages that belonged to no operation (e.g. the tail of one that began before the input).</summary>
    public long OrphanMessages { get; private set; }

    public IReadOnlyList<BackupOperation> InFlight => _open;

    public void Observe(TraceEvent traceEvent)
    {
        Settle(traceEvent.Timestamp);
        switch (traceEvent)
        {
            case ProgressTraceEvent progress:
                ObserveProgress(progress, _parser.Parse(progress.Message));
                break;
            case WaitEvent wait:
                ObserveWait(wait);
                break;
            case ThroughputEvent throughput:
                ObserveThroughput(throughput);
                break;
        }
    }

    /// <summary>Releases ended operations whose grace period has passed by <paramref name="now"/>.</summary>
    public void Settle(DateTime now)
    {
        for (var i = 0; i < _ended.Count; i++)
        {
            var operation = _ended[i];
            if (now - operation.End!.Value > _grace)
            {
                _ended.RemoveAt(i--);
                Release(operation);
            }
        }
    }

    /// <summary>End of input: everything still held or open is released; open ones will report as incomplete.</summary>
    public void Flush()
    {
        foreach (var operation in _open)
        {
            CloseAmbiguous(operation);
        }

        foreach (var operation in _ended.Concat(_open).OrderBy(o => o.FirstSeen).ToList())
        {
            Release(operation);
        }

        _ended.Clear();
        _open.Clear();
        _openBySession.Clear();
    }

    private void Release(BackupOperation operation)
    {
        if (ReferenceEquals(_lastHistoryMatch, operation))
        {
            _lastHistoryMatch = null;
        }

        onSettled(operation);
    }

    private void ObserveProgress(ProgressTraceEvent progress, ParsedTraceMessage parsed)
    {
        var at = progress.Timestamp;
        var database = progress.DatabaseName is { Length: > 0 } name ? name : parsed.PrefixDatabase;
        switch (parsed.Message)
        {
            case OperationStarted started:
                Begin(started.Kind, started.Scope, started.Database ?? database, progress.SessionId, at);
                return;
            case HistoryRecord history:
                var recorded = FindEndedOrOpen(history.Kind, history.Database, progress.SessionId)
                    ?? Adopt(history.Kind, history.Scope, history.Database, progress.SessionId, at);
                recorded.ApplyHistory(history, at);
                _lastHistoryMatch = recorded;
                MoveToEnded(recorded);
                return;
            case CompletionSummary summary:
                var summarised = FindForSummary(summary, progress.SessionId)
                    ?? Adopt(summary.Kind, summary.Scope, database, progress.SessionId, at);
                summarised.ApplySummary(summary, at);
                MoveToEnded(summarised);
                return;
        }

        var operation = FindOpen(progress.SessionId, database, progress.Kind);
        if (operation is null)
        {
            // XE names the kind and the database on every event, so an operation that began before the capture
            // can still be followed; an ERRORLOG line without a known operation cannot be placed.
            if (progress.Kind is not { } kind || parsed.Message is UnknownMessage or OperationFinished or OperationFailed)
            {
                OrphanMessages++;
                return;
            }

            operation = Adopt(kind, null, database, progress.SessionId, at);
        }

        switch (parsed.Message)
        {
            case OperationFinished:
                operation.Finish(at, OperationStatus.Completed, null);
                MoveToEnded(operation);
                break;
            case OperationFailed failed:
                operation.Finish(at, OperationStatus.Failed, failed.Reason);
                MoveToEnded(operation);
                break;
            default:
                operation.Database ??= database;
                operation.Apply(parsed.Message, at);
                break;
        }
    }

    private void Begin(OperationKind kind, OperationScope scope, string? database, int? sessionId, DateTime at)
    {
        // A session runs one backup or restore at a time: a new start on the same session means the previous
        // one ended without a closing line in the input.
        if (sessionId is not null)
        {
            foreach (var previous in _open.Where(o => o.SessionId == sessionId).ToList())
            {
                RemoveOpen(previous);
                Release(previous);
            }
        }

        AddOpen(new BackupOperation(kind, scope, database, sessionId, at, startObserved: true));
    }

    private BackupOperation Adopt(OperationKind kind, OperationScope? scope, string? database, int? sessionId, DateTime at)
    {
        var operation = new BackupOperation(kind, scope, database, sessionId, at, startObserved: false);
        AddOpen(operation);
        return operation;
    }

    private void AddOpen(BackupOperation operation)
    {
        operation.AmbiguousMark = _ambiguousCount;
        _open.Add(operation);
        if (operation.SessionId is { } session)
        {
            _openBySession[session] = operation;
        }
    }

    private bool RemoveOpen(BackupOperation operation)
    {
        if (!_open.Remove(operation))
        {
            return false;
        }

        CloseAmbiguous(operation);
        if (operation.SessionId is { } session && _openBySession.TryGetValue(session, out var indexed) && ReferenceEquals(indexed, operation))
        {
            // Rare: an earlier operation of the same session still open (its end was not in the input).
            var earlier = _open.FindLast(o => o.SessionId == session);
            if (earlier is null)
            {
                _openBySession.Remove(session);
            }
            else
            {
                _openBySession[session] = earlier;
            }
        }

        return true;
    }

    // Ambiguous waits while the operation was open are the growth of the run's count since it opened.
    private void CloseAmbiguous(BackupOperation operation)
        => operation.AmbiguousWaits += _ambiguousCount - operation.AmbiguousMark;

    private void MoveToEnded(BackupOperation operation)
    {
        if (RemoveOpen(operation))
        {
            _ended.Add(operation);
        }
    }

    private BackupOperation? OpenOfSession(int session)
        => _openBySession.GetValueOrDefault(session);

    private BackupOperation? FindOpen(int? sessionId, string? database, OperationKind? kind)
    {
        if (sessionId is { } session)
        {
            return OpenOfSession(session) is { } latest && SameDatabase(latest.Database, database)
                ? latest
                : _open.FindLast(o => o.SessionId == sessionId && SameDatabase(o.Database, database));
        }

        if (database is not null)
        {
            return _open.FindLast(o => SameDatabase(o.Database, database) && (kind is null || o.Kind == kind));
        }

        return _open.Count == 1 ? _open[0] : null;
    }

    private BackupOperation? FindEndedOrOpen(OperationKind kind, string database, int? sessionId)
        => _open.FindLast(o => o.Kind == kind && Named(o.Database, database) && (sessionId is null || o.SessionId is null || o.SessionId == sessionId))
            ?? _ended.FindLast(o => o.Kind == kind && Named(o.Database, database) && o.Summary is null);

    private BackupOperation? FindForSummary(CompletionSummary summary, int? sessionId)
    {
        // The summary line names no database; it follows the history line of the same operation.
        if (_lastHistoryMatch is { Summary: null } last && last.Kind == summary.Kind)
        {
            return last;
        }

        bool Fits(BackupOperation o) => o.Kind == summary.Kind && o.Summary is null
            && (sessionId is null || o.SessionId is null || o.SessionId == sessionId);

        var open = _open.Where(Fits).ToList();
        if (open.Count == 1)
        {
            return open[0];
        }

        return open.Count == 0 ? _ended.FindLast(Fits) : null;
    }

    private void ObserveWait(WaitEvent wait)
    {
        if (wait.SessionId is { } session)
        {
            var owner = OpenOfSession(session) ?? _ended.FindLast(o => o.SessionId == session && wait.Began <= o.End);
            if (owner is not null)
            {
                owner.Waits.Add(wait, bySession: true);
                return;
            }
        }

        // Reader and writer threads may not carry the backup's session_id (domain.md section 2): fall back to
        // the operations running while the wait lasted. A generic I/O wait that names another session is that
        // session's own work, not the backup's.
        if (wait.SessionId is not null && !BackupWaitTypes.IsBackupSpecific(wait.WaitType))
        {
            UnattributedWaits++;
            return;
        }

        // A wait is tied by time only to the one operation running while it lasted. Open operations all began
        // by now (the stream is in time order); ended ones are held for the grace period only, so both checks
        // cost the operations in flight at most, and the usual case (several open) costs nothing.
        var overlapping = _open.Count;
        var only = overlapping == 1 ? _open[0] : null;
        foreach (var ended in _ended)
        {
            if (wait.Began <= ended.End)
            {
                overlapping++;
                only ??= ended;
            }
        }

        if (overlapping == 0)
        {
            UnattributedWaits++;
        }
        else if (overlapping == 1)
        {
            only!.Waits.Add(wait, bySession: false);
        }
        else
        {
            // Several ran: counting the wait for each would blame every one of them for all the server's
            // waits. It goes to the server-level profile once; each operation counts that it was there.
            _ambiguous.Add(wait, bySession: false);
            _ambiguousCount++;
            foreach (var ended in _ended)
            {
                if (wait.Began <= ended.End)
                {
                    ended.AmbiguousWaits++;
                }
            }
        }
    }

    private void ObserveThroughput(ThroughputEvent throughput)
    {
        var owner = throughput.SessionId is { } session ? OpenOfSession(session) : (_open.Count == 1 ? _open[0] : null);
        owner?.AddThroughput(throughput.Increment);
    }

    private static bool SameDatabase(string? known, string? seen)
        => known is null || seen is null || string.Equals(known, seen, StringComparison.OrdinalIgnoreCase);

    private static bool Named(string? known, string seen)
        => known is null || string.Equals(known, seen, StringComparison.OrdinalIgnoreCase);
}
