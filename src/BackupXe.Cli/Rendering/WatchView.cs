using System.Globalization;
using BackupXe.Core.Baselines;
using BackupXe.Core.Formatting;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Requests;

namespace BackupXe.Cli.Rendering;

/// <summary>
/// What <c>backupxe watch</c> shows: one progress line per running operation, then the operation's full diagnosis
/// when it ends. On a terminal (<paramref name="inPlace"/>) the running lines are redrawn where they stand; elsewhere
/// (a log file, a pipe, a test) a line is appended each time an operation moves a tenth of the way, changes phase, or
/// has shown nothing for a minute of input time, so a long zeroing or recovery still shows life. <paramref name="alsoCompleted"/> receives
/// each shown operation too (the HTML report file is fed that way). With <c>--server</c>, backups and restores
/// already running when the watch started are shown from <c>sys.dm_exec_requests</c> (<see cref="ShowRequests"/>)
/// until their events take over; the pipeline and the DMV poll call in from different threads, so every entry point
/// takes one lock. With <paramref name="jsonLines"/>, completed operations go there as JSON Lines and nothing is
/// written to <paramref name="output"/>.
/// </summary>
internal sealed class WatchView(
    TextWriter output, ConsoleReportRenderer completedRenderer, IReadOnlySet<string>? databaseFilter, JsonLinesWriter? jsonLines,
    Action<OperationReport>? alsoCompleted = null, bool inPlace = false, int width = Terminal.DefaultWidth) : IOperationSink
{
    /// <summary>Input time after which an unchanged operation's line is written again, as a heartbeat.</summary>
    public static readonly TimeSpan Heartbeat = TimeSpan.FromMinutes(1);

    /// <summary>Time in a phase that moves no bytes after which the line says it may be the bottleneck.</summary>
    private static readonly TimeSpan LongPhase = TimeSpan.FromSeconds(30);

    // Only operations still running: an entry goes when its operation leaves the running list.
    private readonly PerRunningOperation<(int Decile, string? Phase, DateTime At)> _shown = new();
    private readonly RequestsBeforeWatch _requests = new();
    private readonly StallWatch _stalls = new();
    private readonly Lock _gate = new();

    // Lines of the in-place block now on the screen, cleared before anything else is written.
    private int _drawn;

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
                ClearInPlace();
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
        ClearInPlace();
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

    /// <summary>With a history (<c>watch --history</c>): the ETA from its series' usual pace until the operation's own progress gives one.</summary>
    public BaselineEta? Eta { get; init; }

    public void ShowProgress(IReadOnlyList<OperationProgress> running)
    {
        if (jsonLines is not null)
        {
            return;
        }

        lock (_gate)
        {
            Progress(Eta?.Apply(running) ?? running);
        }
    }

    private void Progress(IReadOnlyList<OperationProgress> running)
    {
        foreach (var notice in _stalls.Update(running))
        {
            if (Wanted(notice.Operation.Database))
            {
                // A lasting line, above the in-place block: a stall must stay on the screen once named.
                ClearInPlace();
                output.WriteLine(TerminalText.Line(NoticeLine(notice)));
            }
        }

        var block = new List<string>();
        foreach (var op in running)
        {
            if (!Wanted(op.Database))
            {
                continue;
            }

            var (shown, note) = _requests.Enrich(op) ?? (op, string.Empty);
            if (inPlace)
            {
                if (_shown.TryGet(op, out var before) && before.Phase is { } previous && op.Phase is { } phase && previous != phase)
                {
                    // A phase change is kept above the status lines: the sequence of phases is what a DBA reads back.
                    ClearInPlace();
                    output.WriteLine(TerminalText.Line(PhaseChangeLine(op, previous)));
                }

                // The last phase named: a moment between two phases (none current) is no change.
                _shown.Set(op, (0, op.Phase ?? (_shown.TryGet(op, out var kept) ? kept.Phase : null), op.Since + op.Elapsed));
                block.Add(StatusLine(shown, note, width));
                continue;
            }

            // Names come from the input: no control character of theirs reaches the terminal.
            var line = TerminalText.Line(note.Length == 0 ? Line(shown) : $"{Line(shown)}  {note}");

            var decile = (shown.Percent ?? 0) / 10;
            var now = op.Since + op.Elapsed;
            if (_shown.TryGet(op, out var last) && last.Decile == decile && last.Phase == op.Phase && now - last.At < Heartbeat)
            {
                continue;
            }

            _shown.Set(op, (decile, op.Phase, now));
            output.WriteLine(line);
        }

        if (inPlace)
        {
            ClearInPlace();
            foreach (var line in block)
            {
                output.WriteLine(line);
            }

            _drawn = block.Count;
        }

        _shown.KeepOnly(running);
        output.Flush();
    }

    /// <summary>Moves the cursor to the first line of the in-place block and clears from there to the end of the screen.</summary>
    private void ClearInPlace()
    {
        if (_drawn > 0)
        {
            output.Write($"\u001b[{_drawn}F\u001b[J");
            _drawn = 0;
        }
    }

    public static string Line(OperationProgress op)
    {
        var title = OperationText.Title(op.Kind, op.Scope, op.Database, op.SessionId);
        var elapsed = $"elapsed {Figures.Duration(op.Elapsed.TotalSeconds)}";
        var wait = $"top wait {op.TopWait ?? "-"}";
        var now = Figures.Time(op.Since + op.Elapsed);
        if (OperationProgress.IsPhaseWithoutProgress(op.Phase) && op.InPhase is { } inPhase)
        {
            // No bytes move in this phase, so a percent or a rate would only look stuck: say how long it has run.
            var hint = inPhase >= LongPhase && inPhase.TotalSeconds >= 0.3 * op.Elapsed.TotalSeconds
                ? $"  likely the bottleneck so far: {Share(inPhase, op.Elapsed)} of the time in {op.Phase}"
                : string.Empty;
            var percent = op.Percent is { } p ? string.Create(CultureInfo.InvariantCulture, $", data {p}%") : string.Empty;
            return $"{now}  {title}  {op.Phase} for {Figures.Duration(inPhase.TotalSeconds)}{percent} (moves no backup bytes)  {elapsed}  {wait}{hint}";
        }

        // A figure the events do not give is left out, not shown as "?": a column of question marks reads as stuck.
        var amount = op.Percent is not null ? PercentBar(op.Percent) : Amount(op);
        var rate = op.MegabytesPerSecond is { } r ? string.Create(CultureInfo.InvariantCulture, $"{r:0.0} MB/s") : null;
        var eta = op.Remaining is { } left ? $"ETA {Figures.Duration(left.TotalSeconds)}{Range(op)}" : null;
        var quiet = op.Quiet is { Kind: QuietKind.Stall } stall ? $"  stalled: no bytes for {Figures.Duration(stall.Seconds)}" : string.Empty;
        var fields = string.Join("  ", new[] { op.Phase ?? "-", amount, rate, eta, elapsed, wait }.Where(field => field is not null));
        return $"{now}  {title}  {fields}{quiet}";
    }

    /// <summary>
    /// The status line of a running operation on a terminal, at most <paramref name="width"/> - 1 columns (a wrapped line
    /// would leave a row the next redraw does not clear). The fields stand in a fixed order; when they do not fit, the
    /// least useful go first: the clock, the session, the ETA's interval, the note, the top wait's seconds, the hint, the
    /// rate, the ETA, the amount, the time in the phase, the phase; the operation, its elapsed time and its top wait stay.
    /// </summary>
    public static string StatusLine(OperationProgress op, string note, int width)
    {
        var withoutBytes = OperationProgress.IsPhaseWithoutProgress(op.Phase);
        var inPhase = withoutBytes && op.InPhase is { } time ? time : (TimeSpan?)null;
        var fields = new List<StatusField>
        {
            new(ShortTitle(op), Kept),
            new(inPhase is { } phaseTime ? $"{op.Phase} {Compact(phaseTime)}" : op.Phase, 80, op.Phase, 75),
            new(Amount(op), 70),
            new(op.MegabytesPerSecond is { } r ? string.Create(CultureInfo.InvariantCulture, $"{r:0.0} MB/s") : null, 50),
            new(withoutBytes ? "expected waiting"
                : op.Quiet is { Kind: QuietKind.Stall } stall ? $"stalled {Compact(TimeSpan.FromSeconds(stall.Seconds))}"
                : op.Remaining is { } left ? $"ETA {Compact(left)}" : null, 60),
            new(op.RemainingRange is { } range ? $"({Compact(range.Low)} to {Compact(range.High)})" : null, 20),
            new($"elapsed {Compact(op.Elapsed)}", Kept),
            new(op.TopWait is { } wait ? $"top wait {wait}" : null, Kept, op.TopWait is { } type ? $"wait {type.Split(' ')[0]}" : null, 35),
            new(inPhase is { } share && share >= LongPhase && share.TotalSeconds >= 0.3 * op.Elapsed.TotalSeconds
                ? $"likely the bottleneck: {Share(share, op.Elapsed)}" : null, 40),
            new(note.Length > 0 ? note : null, 30),
            new(op.SessionId is { } session ? string.Create(CultureInfo.InvariantCulture, $"session {session}") : null, 10),
            new(Figures.Time(op.Since + op.Elapsed), 0),
        };
        fields.RemoveAll(field => field.Text is null);
        // Names come from the input: no control character of theirs reaches the terminal.
        string Joined() => TerminalText.Line(string.Join("  ", fields.Select(field => field.Text)));
        var line = Joined();
        while (line.Length >= width)
        {
            var drop = fields.Where(field => field.DropOrder < Kept).MinBy(field => field.DropOrder);
            var shorten = fields.Where(field => field.Short is not null).MinBy(field => field.ShortenOrder);
            if (shorten is not null && (drop is null || shorten.ShortenOrder < drop.DropOrder))
            {
                fields[fields.IndexOf(shorten)] = shorten with { Text = shorten.Short, Short = null };
            }
            else if (drop is not null)
            {
                fields.Remove(drop);
            }
            else
            {
                break;
            }

            line = Joined();
        }

        return line.Length < width ? line : line[..(width - 1)];
    }

    /// <summary>"42s", "1m50s", "2h05m": a duration in the few columns a status line can spare.</summary>
    private static string Compact(TimeSpan span) => span.TotalSeconds switch
    {
        < 60 => string.Create(CultureInfo.InvariantCulture, $"{(int)span.TotalSeconds}s"),
        < 3600 => string.Create(CultureInfo.InvariantCulture, $"{(int)span.TotalMinutes}m{span.Seconds:00}s"),
        _ => string.Create(CultureInfo.InvariantCulture, $"{(int)span.TotalHours}h{span.Minutes:00}m"),
    };

    /// <summary>The drop order of a field that stays on the status line however narrow the terminal.</summary>
    private const int Kept = int.MaxValue;

    /// <summary>A field of the status line: dropped in <see cref="DropOrder"/>, and before that replaced by <see cref="Short"/> in <see cref="ShortenOrder"/>.</summary>
    private sealed record StatusField(string? Text, int DropOrder, string? Short = null, int ShortenOrder = int.MaxValue);

    /// <summary>"RESTORE [SalesArchive]", "BACKUP LOG [Sales]": the operation in the fewest words that tell it apart.</summary>
    private static string ShortTitle(OperationProgress op)
    {
        var verb = op.Kind switch
        {
            Core.Events.OperationKind.Backup => "BACKUP",
            Core.Events.OperationKind.Restore => "RESTORE",
            _ => "BACKUP or RESTORE",
        };
        var scope = op.Scope switch
        {
            Core.Events.OperationScope.Log => " LOG",
            Core.Events.OperationScope.Differential => " DIFF",
            _ => string.Empty,
        };
        return op.Database is { } database ? $"{verb}{scope} [{database}]" : verb + scope;
    }

    /// <summary>"45%", "1.2 GB of 4.0 GB" or "1.2 GB": what the events say of the amount done, or null when they say nothing.</summary>
    private static string? Amount(OperationProgress op) => op switch
    {
        { Percent: { } p } => string.Create(CultureInfo.InvariantCulture, $"{p}%"),
        { BytesProcessed: { } done, EstimatedBytes: { } total } => $"{Figures.Bytes(done)} of {Figures.Bytes(total)}",
        { BytesProcessed: { } done } => Figures.Bytes(done),
        _ => null,
    };

    /// <summary>"06:18:36.550  RESTORE [SalesArchive]  wait-log-zero began, after copy-data; elapsed 3 min 33 s".</summary>
    private static string PhaseChangeLine(OperationProgress op, string previous)
        => $"{Figures.Time(op.Since + op.Elapsed)}  {ShortTitle(op)}  {op.Phase} began, after {previous}; elapsed {Figures.Duration(op.Elapsed.TotalSeconds)}";

    /// <summary>"01:37:05.120  BACKUP DATABASE [SalesDB] (session 61)  stalled: no bytes moved for ...; look at: ...".</summary>
    private string NoticeLine(StallNotice notice)
    {
        var op = notice.Operation;
        var title = OperationText.Title(op.Kind, op.Scope, op.Database, op.SessionId);
        var what = QuietPeriodText.Describe(notice.Period);
        if (notice.Period.Kind != QuietKind.Stall)
        {
            return $"{Figures.Time(notice.Period.To)}  {title}  waiting: {what}";
        }

        var current = notice.Ended ? null : _requests.CurrentWait(op.SessionId, notice.Period.From);
        var ended = notice.Ended ? $"; bytes moved again at {Figures.Time(notice.Period.To)}" : string.Empty;
        return $"{Figures.Time(notice.Period.To)}  {title}  stalled: {what}{ended}; look at the {QuietPeriodText.LookAt(op.SessionId, current, op.TopWait)}";
    }

    private static string Share(TimeSpan part, TimeSpan whole) =>
        whole > TimeSpan.Zero ? string.Create(CultureInfo.InvariantCulture, $"{part / whole * 100:0}%") : "?";

    private static string Range(OperationProgress op) => op.RemainingRange is { } range
        ? $" ({Figures.Duration(range.Low.TotalSeconds)} to {Figures.Duration(range.High.TotalSeconds)}{(op.EtaBasis is { } basis ? ", " + basis : string.Empty)})"
        : string.Empty;

    /// <summary>" 45% [#########...........]": a percent from 0 to 100 (callers range-check it), or "?" when unknown.</summary>
    public static string PercentBar(int? percent)
        => percent is { } p
            ? string.Create(CultureInfo.InvariantCulture, $"{p,3}% [{new string('#', p / 5)}{new string('.', 20 - (p / 5))}]")
            : "  ?% [....................]";

    private bool Wanted(string? database)
        => databaseFilter is not { Count: > 0 } || (database is not null && databaseFilter.Contains(database));
}
