using System.Globalization;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Reporting;
using BackupXe.SqlServer;

namespace BackupXe.Cli.Rendering;

/// <summary>
/// What <c>backupxe watch</c> shows: one progress line per running operation each time it moves a tenth of
/// the way or changes phase, then the operation's full diagnosis when it ends. Lines, not a redrawn screen,
/// so the same output reads well in a terminal, a log file and a test. <paramref name="alsoCompleted"/> receives
/// each shown operation too (the HTML report file is fed that way). With <c>--server</c>, backups and restores
/// already running when the watch started are shown from <c>sys.dm_exec_requests</c> (<see cref="ShowRequests"/>)
/// until their events take over; the pipeline and the DMV poll call in from different threads, so every entry point
/// takes one lock. With <paramref name="jsonLines"/>, completed operations go there as JSON Lines and nothing is
/// written to <paramref name="output"/>.
/// </summary>
public sealed class WatchView(TextWriter output, ConsoleReportRenderer completedRenderer, IReadOnlySet<string>? databaseFilter, JsonLinesWriter? jsonLines, Action<OperationReport>? alsoCompleted = null) : IOperationSink
{
    // Only operations still running: an entry goes when its operation leaves the running list.
    private readonly Dictionary<(int?, string?, DateTime), (int Decile, string? Phase)> _shown = [];
    private readonly HashSet<(int?, string?, DateTime)> _running = [];
    private readonly RequestsBeforeWatch _requests = new();
    private readonly Lock _gate = new();

    public int Completed { get; private set; }

    /// <summary>Running operations whose last progress line is remembered (to print only changes).</summary>
    public int Remembered => _shown.Count;

    /// <summary>Requests from sys.dm_exec_requests still tracked: until their operation ends or the view no longer lists them.</summary>
    public int TrackedRequests
    {
        get
        {
            lock (_gate)
            {
                return _requests.Count;
            }
        }
    }

    /// <summary>A read of sys.dm_exec_requests: shows the backups and restores that no event has shown yet.</summary>
    public void ShowRequests(IReadOnlyList<RunningRequest> requests)
    {
        if (jsonLines is not null)
        {
            return;
        }

        lock (_gate)
        {
            foreach (var line in _requests.Update(requests, Wanted))
            {
                output.WriteLine(line);
            }

            output.Flush();
        }
    }

    public void OnOperationCompleted(OperationReport report)
    {
        lock (_gate)
        {
            Complete(report);
        }
    }

    private void Complete(OperationReport report)
    {
        if (!Wanted(report.Database))
        {
            return;
        }

        var beforeWatch = _requests.Complete(report);
        Completed++;
        alsoCompleted?.Invoke(report);
        if (jsonLines is not null)
        {
            // One object per line so that a consumer can read the stream as it comes (JSON Lines).
            jsonLines.Write(report);
            return;
        }

        if (beforeWatch is { Length: > 0 })
        {
            // The verdict below covers only what was seen: say what was not before it.
            output.WriteLine(beforeWatch);
        }

        completedRenderer.WriteOperation(report, output);
        output.Flush();
    }

    /// <summary>False for JSON Lines, which carry completed operations only.</summary>
    public bool WantsProgress => jsonLines is null;

    public void ShowProgress(IReadOnlyList<OperationProgress> running)
    {
        if (jsonLines is not null)
        {
            return;
        }

        lock (_gate)
        {
            Progress(running);
        }
    }

    private void Progress(IReadOnlyList<OperationProgress> running)
    {
        _running.Clear();
        foreach (var op in running)
        {
            var key = (op.SessionId, op.Database, op.Since);
            _running.Add(key);
            if (!Wanted(op.Database))
            {
                continue;
            }

            var (shown, note) = _requests.Enrich(op) ?? (op, string.Empty);
            var decile = (shown.Percent ?? 0) / 10;
            if (_shown.TryGetValue(key, out var last) && last.Decile == decile && last.Phase == op.Phase)
            {
                continue;
            }

            _shown[key] = (decile, op.Phase);
            output.WriteLine(note.Length == 0 ? Line(shown) : $"{Line(shown)}  {note}");
        }

        if (_shown.Count > _running.Count)
        {
            foreach (var key in _shown.Keys.Where(key => !_running.Contains(key)).ToList())
            {
                _shown.Remove(key);
            }
        }

        output.Flush();
    }

    public static string Line(OperationProgress op)
    {
        var title = Units.Title(op.Kind, op.Scope, op.Database, op.SessionId);
        var percent = PercentBar(op.Percent);
        var rate = op.MegabytesPerSecond is { } r ? string.Create(CultureInfo.InvariantCulture, $"{r:0.0} MB/s") : "? MB/s";
        var eta = op.Remaining is { } left ? $"ETA {Units.Duration(left.TotalSeconds)}" : "ETA ?";
        return $"{Units.Time(op.Since + op.Elapsed)}  {title}  {op.Phase ?? "-"}  {percent}  {rate}  {eta}  elapsed {Units.Duration(op.Elapsed.TotalSeconds)}  top wait {op.TopWait ?? "-"}";
    }

    /// <summary>" 45% [#########...........]": a percent from 0 to 100 (callers range-check it), or "?" when unknown.</summary>
    public static string PercentBar(int? percent)
        => percent is { } p
            ? string.Create(CultureInfo.InvariantCulture, $"{p,3}% [{new string('#', p / 5)}{new string('.', 20 - (p / 5))}]")
            : "  ?% [....................]";

    private bool Wanted(string? database)
        => databaseFilter is not { Count: > 0 } || (database is not null && databaseFilter.Contains(database));
}
