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
    private readonly TraceMessageParser _parser = new();
    private BackupOperation? _lastHistoryMatch;

    /// <summary>Wait events that overlapped no operation: reported, not silently dropped.</summary>
    public long UnattributedWaits { get; private set; }

    /// <summary>Trace messages that belonged to no operation (e.g. the tail of one that began before the input).</summary>
    public long OrphanMessages { get; private set; }

    public IReadOnlyList<BackupOperation> InFlight => _open;

    /// <summary>No operation open or held for its grace period: every event so far belongs to a released one or to none.</summary>
    public bool Idle => _open.Count == 0 && _ended.Count == 0;

    /// <summary>
    /// Idle just before the last observed event took effect (after the operations it settled were released):
    /// back-to-back backups are never idle after an event, but are between the end of one and the next's start.
    /// </summary>
    public bool IdleBeforeLast { get; private set; }

    public void Observe(TraceEvent traceEvent)
    {
        Settle(traceEvent.Timestamp);
        IdleBeforeLast = Idle;
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
        foreach (var operation in _ended.Concat(_open).OrderBy(o => o.FirstSeen).ToList())
        {
            Release(operation);
        }

        _ended.Clear();
        _open.Clear();
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
                _open.Remove(previous);
                Release(previous);
            }
        }

        _open.Add(new BackupOperation(kind, scope, database, sessionId, at, startObserved: true));
    }

    private BackupOperation Adopt(OperationKind kind, OperationScope? scope, string? database, int? sessionId, DateTime at)
    {
        var operation = new BackupOperation(kind, scope, database, sessionId, at, startObserved: false);
        _open.Add(operation);
        return operation;
    }

    private void MoveToEnded(BackupOperation operation)
    {
        if (_open.Remove(operation))
        {
            _ended.Add(operation);
        }
    }

    private BackupOperation? FindOpen(int? sessionId, string? database, OperationKind? kind)
    {
        if (sessionId is not null)
        {
            return _open.FindLast(o => o.SessionId == sessionId && SameDatabase(o.Database, database));
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
            var owner = _open.FindLast(o => o.SessionId == session) ?? _ended.FindLast(o => o.SessionId == session && wait.Began <= o.End);
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

        var attributed = false;
        foreach (var operation in _open.Concat(_ended))
        {
            var start = operation.Start ?? operation.FirstSeen;
            var end = operation.End ?? DateTime.MaxValue;
            if (wait.Timestamp >= start && wait.Began <= end)
            {
                operation.Waits.Add(wait, bySession: false);
                attributed = true;
            }
        }

        if (!attributed)
        {
            UnattributedWaits++;
        }
    }

    private void ObserveThroughput(ThroughputEvent throughput)
    {
        var owner = throughput.SessionId is { } session ? _open.FindLast(o => o.SessionId == session) : (_open.Count == 1 ? _open[0] : null);
        owner?.AddThroughput(throughput.Increment);
    }

    private static bool SameDatabase(string? known, string? seen)
        => known is null || seen is null || string.Equals(known, seen, StringComparison.OrdinalIgnoreCase);

    private static bool Named(string? known, string seen)
        => known is null || string.Equals(known, seen, StringComparison.OrdinalIgnoreCase);
}
