using BackupXe.Core.Events;
using BackupXe.Core.Formatting;
using BackupXe.Core.Parsing;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Requests;

namespace BackupXe.Cli.Rendering;

/// <summary>
/// The lines a watch prints for the backups and restores <c>sys.dm_exec_requests</c> showed running before their
/// events arrived; which request ties to which operation is the <see cref="RunningRequestTracker"/>'s.
/// </summary>
internal sealed class RequestsBeforeWatch
{
    private readonly RunningRequestTracker _tracker = new();

    public int Count => _tracker.Count;

    /// <summary>
    /// Takes a new read of the DMV: returns the lines to print for requests not (yet) followed by events, new or
    /// moved by a tenth, and for those gone from the view without any event ("ended, no diagnosis").
    /// </summary>
    public IEnumerable<string> Update(IReadOnlyList<RunningRequest> requests, Func<string?, bool> wanted)
    {
        var changes = _tracker.Update(requests, wanted);
        return changes.Moved.Select(Line).Concat(changes.Gone.Select(request =>
            $"{Figures.Time(request.ServerUtc)}  {Title(request)}  no longer in sys.dm_exec_requests: it ended before any of its "
            + "events arrived; no diagnosis (it started before watch, so its phases were not captured)")).ToList();
    }

    /// <summary>
    /// The progress of <paramref name="op"/> with what the DMV adds when it is the same operation and its start was
    /// not in the trace, and the note saying what was missed. Null when no request ties to it.
    /// </summary>
    public (OperationProgress Progress, string Note)? Enrich(OperationProgress op)
        => _tracker.Follow(op) is not { } tie
            ? null
            : (tie.Progress, tie.FirstEvent is { } first ? Note(tie.Request, first) : string.Empty);

    /// <summary>
    /// For an operation that ended: the line to print before its diagnosis when it started before the watch. Empty
    /// when the trace held the operation's start, null when no request ties to it.
    /// </summary>
    public string? Complete(OperationReport report)
    {
        if (_tracker.Complete(report) is not { } tie)
        {
            return null;
        }

        return report.Start is null
            ? $"{OperationText.Title(report.Kind, report.Scope ?? ScopeOf(tie.Request), report.Database, report.SessionId)}: {Note(tie.Request, tie.FirstEvent)}; the diagnosis below covers only what came after"
            : string.Empty;
    }

    /// <summary>The session's wait as the last read of the view after <paramref name="notBefore"/> showed it; null otherwise.</summary>
    public string? CurrentWait(int? sessionId, DateTime notBefore)
    {
        if (_tracker.Latest(sessionId, notBefore) is not { } request)
        {
            return null;
        }

        var wait = request.WaitType is { Length: > 0 } type
            ? $"waiting {type} for {Figures.Milliseconds((long)request.WaitTime.TotalMilliseconds)}"
            : $"running, last wait {request.LastWaitType ?? "-"}";
        return $"{wait} (sys.dm_exec_requests at {Figures.Time(request.ServerUtc)})";
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

    // The request's command (sys.dm_exec_requests: "BACKUP DATABASE", "BACKUP LOG", "RESTORE DATABASE") says what of.
    private static OperationScope? ScopeOf(RunningRequest request)
        => request.Command.EndsWith(" LOG", StringComparison.OrdinalIgnoreCase) ? OperationScope.Log
            : request.Command.EndsWith(" DATABASE", StringComparison.OrdinalIgnoreCase) ? OperationScope.Database
            : null;

    private static string Title(RunningRequest request)
    {
        var title = OperationText.Title(
            request.IsRestore ? OperationKind.Restore : OperationKind.Backup,
            ScopeOf(request),
            request.Database is null ? null : TerminalText.Line(request.Database),
            request.SessionId);
        // Never the database the request runs in: that is a job step's master, not the database backed up.
        return request.Database is null ? title + " (database not yet known)" : title;
    }
}
