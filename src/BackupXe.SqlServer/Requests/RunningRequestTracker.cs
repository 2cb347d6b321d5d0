using BackupXe.Core.Events;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Reporting;

namespace BackupXe.SqlServer.Requests;

/// <summary>
/// The backups and restores <c>sys.dm_exec_requests</c> showed running (at a watch's start or a later poll), tied to
/// the operations of the trace as their events arrive. One entry per session: a session runs one backup or restore
/// at a time. A request is tied to an operation by session and kind (BACKUP or RESTORE), and only to one seen at or
/// after the request's start_time, so an older operation of the same session (read back from the event file) is never
/// taken for it. The database is not compared: the view's database_id is the database the request executes in, which
/// for a backup run from a job in master need not be the database backed up.
/// </summary>
public sealed class RunningRequestTracker
{
    // The DMV's start_time has 1/300 s steps and the UTC offset is applied on the server: allow for both.
    private static readonly TimeSpan StartSlack = TimeSpan.FromSeconds(1);

    private readonly Dictionary<int, Entry> _entries = [];

    /// <summary>Requests held: running, or tied to an operation that has not ended.</summary>
    public int Count => _entries.Count;

    /// <summary>
    /// Takes a new read of the DMV. <see cref="RequestChanges.Moved"/>: requests no event has followed yet that are
    /// new or have moved by a tenth; <see cref="RequestChanges.Gone"/>: requests gone from the view before any event.
    /// </summary>
    public RequestChanges Update(IReadOnlyList<RunningRequest> requests, Func<string?, bool> wanted)
    {
        var seen = new HashSet<int>();
        var moved = new List<RunningRequest>();
        foreach (var request in requests)
        {
            // A request whose database is not yet known is never filtered out: it may be the one asked for.
            if ((request.Database is not null && !wanted(request.Database)) || !seen.Add(request.SessionId))
            {
                continue;
            }

            if (_entries.TryGetValue(request.SessionId, out var entry) && SameRequest(entry.Request, request))
            {
                entry.Request = request;
            }
            else
            {
                // New, or the session has moved on to another backup: the old entry's operation is over.
                entry = _entries[request.SessionId] = new Entry(request);
            }

            var decile = (int)request.PercentComplete / 10;
            if (!entry.FollowedByEvents && entry.ShownDecile != decile)
            {
                entry.ShownDecile = decile;
                moved.Add(request);
            }
        }

        var gone = new List<RunningRequest>();
        foreach (var session in _entries.Keys.Where(session => !seen.Contains(session)).ToList())
        {
            var entry = _entries[session];
            _entries.Remove(session);
            if (!entry.FollowedByEvents)
            {
                gone.Add(entry.Request);
            }
        }

        return new RequestChanges(moved, gone);
    }

    /// <summary>
    /// The request tied to the running operation <paramref name="op"/>, from now on followed by its events; null when
    /// none ties to it. When the trace did not see the operation start, the progress carries what the DMV adds: the
    /// real start (so elapsed is right), and the DMV's percent and ETA until percent lines arrive.
    /// </summary>
    public RequestTie? Follow(OperationProgress op)
    {
        var now = op.Since + op.Elapsed;
        if (Find(op.SessionId, op.Kind, now) is not { } entry)
        {
            return null;
        }

        entry.FollowedByEvents = true;
        if (op.StartObserved)
        {
            // The trace holds the whole operation (read back from the event file): nothing is missing, nothing to add.
            return new RequestTie(entry.Request, op, FirstEvent: null);
        }

        var request = entry.Request;
        entry.FirstEvent ??= op.Since;
        var enriched = op with
        {
            Since = request.StartUtc,
            Elapsed = now > request.StartUtc ? now - request.StartUtc : TimeSpan.Zero,
            Percent = op.Percent ?? (int)request.PercentComplete,
            Remaining = op.Percent is null ? request.EstimatedRemaining : op.Remaining,
        };
        return new RequestTie(request, enriched, op.Since);
    }

    /// <summary>
    /// The request tied to the operation that ended, which is forgotten; null when none ties to it. The first event is
    /// the one its progress remembered, else its last line less the least duration it ran.
    /// </summary>
    public (RunningRequest Request, DateTime? FirstEvent)? Complete(OperationReport report)
    {
        var seen = report.End ?? report.Start;
        if (seen is null || Find(report.SessionId, report.Kind, seen.Value) is not { } entry)
        {
            return null;
        }

        _entries.Remove(entry.Request.SessionId);
        var firstEvent = entry.FirstEvent
            ?? (report.End is { } end && report.MinimumDurationSeconds is { } least ? end.AddSeconds(-least) : null);
        return (entry.Request, firstEvent);
    }

    /// <summary>
    /// The session's request as the last read of the view showed it, when that read came after
    /// <paramref name="notBefore"/> (an older one says nothing about a stall that began later); null otherwise.
    /// </summary>
    public RunningRequest? Latest(int? sessionId, DateTime notBefore)
        => sessionId is { } session && _entries.TryGetValue(session, out var entry) && entry.Request.ServerUtc >= notBefore
            ? entry.Request
            : null;

    private Entry? Find(int? sessionId, OperationKind kind, DateTime seenAt)
    {
        if (sessionId is not { } session || !_entries.TryGetValue(session, out var entry))
        {
            return null;
        }

        var request = entry.Request;
        var sameKind = kind switch
        {
            OperationKind.Backup => !request.IsRestore,
            OperationKind.Restore => request.IsRestore,
            _ => true,
        };
        return sameKind && seenAt >= request.StartUtc - StartSlack ? entry : null;
    }

    /// <summary>The same request in a later read: same session, same start.</summary>
    private static bool SameRequest(RunningRequest before, RunningRequest now) =>
        before.StartUtc == now.StartUtc && string.Equals(before.Command, now.Command, StringComparison.OrdinalIgnoreCase);

    private sealed class Entry(RunningRequest request)
    {
        public RunningRequest Request { get; set; } = request;

        public bool FollowedByEvents { get; set; }

        public int? ShownDecile { get; set; }

        public DateTime? FirstEvent { get; set; }
    }
}

/// <summary>What one read of the view changed: requests to show again, and requests that ended before any event.</summary>
public sealed record RequestChanges(IReadOnlyList<RunningRequest> Moved, IReadOnlyList<RunningRequest> Gone);

/// <summary>A request tied to a running operation: the progress to show and the operation's first traced event.</summary>
/// <param name="FirstEvent">Null when the trace saw the operation start: nothing was missed.</param>
public sealed record RequestTie(RunningRequest Request, OperationProgress Progress, DateTime? FirstEvent);
