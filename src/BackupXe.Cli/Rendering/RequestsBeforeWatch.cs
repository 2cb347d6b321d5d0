using BackupXe.Core.Events;
using BackupXe.Core.Formatting;
using BackupXe.Core.Parsing;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Reporting;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Live.Requests;

namespace BackupXe.Cli.Rendering;

/// <summary>
/// The backups and restores <c>sys.dm_exec_requests</c> showed running (at the watch's start or a later poll), until
/// their events take over. One entry per session: a session runs one backup or restore at a time. An entry is tied to
/// an operation of the trace by session and database, and only to one seen at or after the request's start_time, so
/// an older operation of the same session (read back from the event file) is never mistaken for it.
/// </summary>
internal sealed class RequestsBeforeWatch
{
    // The DMV's start_time has 1/300 s steps and the UTC offset is applied on the server: allow for both.
    private static readonly TimeSpan StartSlack = TimeSpan.FromSeconds(1);

    private readonly Dictionary<int, Entry> _entries = [];

    public int Count => _entries.Count;

    /// <summary>
    /// Takes a new read of the DMV: returns the lines to print for requests not (yet) followed by events, new or
    /// moved by a tenth, and for those gone from the view without any event ("ended, no diagnosis").
    /// </summary>
    public IEnumerable<string> Update(IReadOnlyList<RunningRequest> requests, Func<string?, bool> wanted)
    {
        var seen = new HashSet<int>();
        var lines = new List<string>();
        foreach (var request in requests)
        {
            if (!wanted(request.Database) || !seen.Add(request.SessionId))
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
                lines.Add(Line(request));
            }
        }

        foreach (var gone in _entries.Where(e => !seen.Contains(e.Key)).ToList())
        {
            _entries.Remove(gone.Key);
            if (!gone.Value.FollowedByEvents)
            {
                var request = gone.Value.Request;
                lines.Add($"{Figures.Time(request.ServerUtc)}  {Title(request)}  no longer in sys.dm_exec_requests: it ended before any of its "
                    + "events arrived; no diagnosis (it started before watch, so its phases were not captured)");
            }
        }

        return lines;
    }

    /// <summary>
    /// The progress of <paramref name="op"/> with what the DMV adds when it is the same operation and its start was
    /// not in the trace: the real start (so elapsed is right), the DMV's percent and ETA until percent lines arrive,
    /// and the note saying what was missed. Null when no request ties to it.
    /// </summary>
    public (OperationProgress Progress, string Note)? Enrich(OperationProgress op)
    {
        var now = op.Since + op.Elapsed;
        if (Find(op.SessionId, op.Database, now) is not { } entry)
        {
            return null;
        }

        entry.FollowedByEvents = true;
        if (op.StartObserved)
        {
            // The trace holds the whole operation (read back from the event file): nothing is missing, nothing to add.
            return (op, string.Empty);
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
        return (enriched, Note(request, op.Since));
    }

    /// <summary>
    /// For an operation that ended: the line to print before its diagnosis when it started before the watch, and
    /// forgets the request. Empty when the trace held the operation's start, null when no request ties to it.
    /// </summary>
    public string? Complete(OperationReport report)
    {
        var seen = report.End ?? report.Start;
        if (seen is null || Find(report.SessionId, report.Database, seen.Value) is not { } entry)
        {
            return null;
        }

        _entries.Remove(entry.Request.SessionId);
        // The first event: remembered from its progress, else its last line less the least duration it ran.
        var firstEvent = entry.FirstEvent
            ?? (report.End is { } end && report.MinimumDurationSeconds is { } least ? end.AddSeconds(-least) : null);
        return report.Start is null
            ? $"{OperationText.Title(report)}: {Note(entry.Request, firstEvent)}; the diagnosis below covers only what came after"
            : string.Empty;
    }

    /// <summary>
    /// The session's wait as the last read of the view showed it, when that read came after <paramref name="notBefore"/>
    /// (an older one says nothing about a stall that began later); null otherwise.
    /// </summary>
    public string? CurrentWait(int? sessionId, DateTime notBefore)
    {
        if (sessionId is not { } session || !_entries.TryGetValue(session, out var entry) || entry.Request.ServerUtc < notBefore)
        {
            return null;
        }

        var request = entry.Request;
        var wait = request.WaitType is { Length: > 0 } type
            ? $"waiting {type} for {Figures.Milliseconds((long)request.WaitTime.TotalMilliseconds)}"
            : $"running, last wait {request.LastWaitType ?? "-"}";
        return $"{wait} (sys.dm_exec_requests at {Figures.Time(request.ServerUtc)})";
    }

    private Entry? Find(int? sessionId, string? database, DateTime seenAt)
    {
        if (sessionId is not { } session || !_entries.TryGetValue(session, out var entry))
        {
            return null;
        }

        var request = entry.Request;
        var sameDatabase = database is null || request.Database is null
            || string.Equals(database, request.Database, StringComparison.OrdinalIgnoreCase);
        return sameDatabase && seenAt >= request.StartUtc - StartSlack ? entry : null;
    }

    private static string Note(RunningRequest request, DateTime? firstEvent) =>
        $"started before watch at {Figures.Time(request.StartUtc)} (sys.dm_exec_requests); phases before {Figures.Time(firstEvent)} not captured";

    public static string Line(RunningRequest request)
    {
        var percent = WatchView.PercentBar((int)request.PercentComplete);
        var eta = request.EstimatedRemaining is { } left ? $"ETA {Figures.Duration(left.TotalSeconds)}" : "ETA ?";
        var wait = request.WaitType is { Length: > 0 } type
            ? $"waiting {type} {Figures.Milliseconds((long)request.WaitTime.TotalMilliseconds)}"
            : $"running (last wait {request.LastWaitType ?? "-"})";
        return $"{Figures.Time(request.ServerUtc)}  {Title(request)}  from sys.dm_exec_requests  {percent}  {eta}  "
            + $"elapsed {Figures.Duration(request.Elapsed.TotalSeconds)}  {wait}  started before watch";
    }

    private static string Title(RunningRequest request) => OperationText.Title(
        request.IsRestore ? OperationKind.Restore : OperationKind.Backup,
        request.Command.EndsWith(" LOG", StringComparison.OrdinalIgnoreCase) ? OperationScope.Log : null,
        request.Database,
        request.SessionId);

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
