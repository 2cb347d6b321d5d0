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
/// <remarks><c>messages</c> says what each progress event's text means: the parse its reader handed on, or a parse now.</remarks>
internal sealed class OperationCorrelator(
    Action<BackupOperation> onSettled, MessageParses messages, TimeSpan? grace = null, TimeSpan? stallAfter = null)
{
    private readonly TimeSpan _stallAfter = stallAfter ?? ByteFlow.DefaultStallAfter;
    /// <summary>How long an ended operation waits for its late lines when no grace is given.</summary>
    internal static readonly TimeSpan DefaultGrace = TimeSpan.FromSeconds(2);

    private readonly TimeSpan _grace = grace ?? DefaultGrace;
    private readonly OperationSet _open = new();
    private readonly OperationSet _ended = new();
    private readonly WaitAccumulator _ambiguous = new();
    private long _ambiguousCount;

    // Numbers operations in creation order for this stream only (no counter shared across inputs or runs).
    private long _created;

    // The input whose operations without a clock are held, if any: nothing but a clock could tie a line of another
    // input to them, so they are released as soon as another input's event arrives.
    private int? _clocklessInput;

    // The ERRORLOG writes an error's "Error: N, Severity: S, State: T." header and its text as two messages of one
    // process: the header waits here, by session, for the text it numbers.
    private readonly Dictionary<int, ErrorHeader> _headers = [];

    // Errors no open operation took (a log without trace flags writes no start line before a failure): held, a few at
    // most, for the failure line that follows them and makes their operation.
    private readonly Queue<LooseError> _loose = new();
    private int _looseInput;

    private const int MaxHeldHeaders = 64;
    private const int MaxLooseErrors = 16;

    /// <summary>How long before a failure line an error of its process is taken as its cause.</summary>
    private static readonly TimeSpan LooseErrorWindow = TimeSpan.FromSeconds(10);

    // Ended operations by end time (then creation), so that settling looks only at the ones whose grace is over.
    private readonly PriorityQueue<BackupOperation, (long EndTicks, long Sequence)> _endings = new();

    // The earliest end in _endings (long.MaxValue when empty): most events settle nothing, and this spares each the queue.
    private long _earliestEnd = long.MaxValue;
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

    public IEnumerable<BackupOperation> InFlight => _open.InOrder;

    /// <summary>The input the next observed event comes from; an operation it opens is of that input.</summary>
    public int Input { get; set; }

    /// <summary>No operation open or held for its grace period: every event so far belongs to a released one or to none.</summary>
    public bool Idle => _open.Count == 0 && _ended.Count == 0;

    /// <summary>
    /// Idle just before the last observed event took effect (after the operations it settled were released):
    /// back-to-back backups are never idle after an event, but are between the end of one and the next's start.
    /// </summary>
    public bool IdleBeforeLast { get; private set; }

    public void Observe(TraceEvent traceEvent)
    {
        if (_clocklessInput is { } held && held != Input)
        {
            ReleaseClocklessOf(held);
        }

        if (_loose.Count > 0 && _looseInput != Input)
        {
            // No line of another input closes a device failure: the input it came from has ended.
            FailDevicesLeftLoose();
        }

        Settle(traceEvent.Timestamp);
        IdleBeforeLast = Idle;
        switch (traceEvent)
        {
            case ProgressTraceEvent progress:
                ObserveProgress(progress, messages.Parse(progress));
                break;
            case WaitEvent wait:
                ObserveWait(wait);
                break;
            case ThroughputEvent throughput:
                ObserveThroughput(throughput);
                break;
            case ClientCommandEvent client:
                ObserveClientCommand(client);
                break;
            case ClientCommandUnfinishedEvent unfinished:
                ObserveUnfinished(unfinished);
                break;
        }
    }

    // A method of its own: its lambda's captured event, written in Observe's switch, made every event allocate the closure
    // (docs/performance.md, "ERRORLOG decisions").
    private void ObserveUnfinished(ClientCommandUnfinishedEvent unfinished)
    {
        if (_open.Last(o => o.Kind == unfinished.Kind && o.ClientCommand is null && (unfinished.Database is null || Named(o.Database, unfinished.Database))) is null)
        {
            // Left open, so that the end of the input reports it as incomplete.
            Adopt(unfinished.Kind, unfinished.Scope, unfinished.Database, null, unfinished.Timestamp);
        }
    }

    /// <summary>Releases ended operations whose grace period has passed by <paramref name="now"/>.</summary>
    public void Settle(DateTime now)
    {
        if (now.Ticks - _earliestEnd <= _grace.Ticks)
        {
            return;
        }

        while (_endings.TryPeek(out var operation, out var key) && now.Ticks - key.EndTicks > _grace.Ticks)
        {
            _endings.Dequeue();
            if (_ended.Remove(operation))
            {
                Release(operation);
            }
        }

        _earliestEnd = _endings.TryPeek(out _, out var next) ? next.EndTicks : long.MaxValue;
    }

    /// <summary>End of input: everything still held or open is released; open ones will report as incomplete.</summary>
    public void Flush()
    {
        FailDevicesLeftLoose();
        foreach (var operation in _open.InOrder)
        {
            CloseAmbiguous(operation);
        }

        foreach (var operation in _ended.InOrder.Concat(_open.InOrder).OrderBy(o => o.FirstSeen).ToList())
        {
            Release(operation);
        }

        _ended.Clear();
        _open.Clear();
        _endings.Clear();
        _earliestEnd = long.MaxValue;
        _clocklessInput = null;
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
        if (parsed.Message is ImplausibleValue implausible)
        {
            // Damage: a file source has already reported it with its line; a live one has nowhere to say it. A damaged
            // completion line still ends its operation, whose figures are then unknown.
            if (implausible.Completes is { } kind
                && FindOpen(progress.SessionId, progress.DatabaseName is { Length: > 0 } named ? named : parsed.PrefixDatabase, kind) is { } ended
                && ended.Kind == kind)
            {
                ended.Scope ??= implausible.CompletedScope;
                ended.Finish(progress.Timestamp, OperationStatus.Completed, null);
                MoveToEnded(ended);
                return;
            }

            OrphanMessages++;
            return;
        }

        var at = progress.Timestamp;
        var database = progress.DatabaseName is { Length: > 0 } name ? name : parsed.PrefixDatabase;
        if (parsed.Message is ErrorHeader header)
        {
            if (_headers.Count >= MaxHeldHeaders)
            {
                _headers.Clear();
            }

            _headers[SessionKey(progress.SessionId)] = header;
            return;
        }

        if (_headers.Count > 0 && _headers.Remove(SessionKey(progress.SessionId), out var numbered))
        {
            parsed = Numbered(parsed, numbered, progress.Message, progress.SessionId, at);
        }
        else if (parsed.Message is UnknownMessage && progress.Kind is null && DeviceFailure.Identify(progress.Message) is { } unnumbered)
        {
            // A log collected without its "Error: N" lines (docker logs, a forum post) still holds the device's failure.
            parsed = parsed with { Message = unnumbered };
        }

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
                var summarised = FindForSummary(summary, progress.SessionId, database)
                    ?? Adopt(summary.Kind, summary.Scope, database, progress.SessionId, at);
                summarised.ApplySummary(summary, at);
                MoveToEnded(summarised);
                return;
        }

        var operation = FindOpen(progress.SessionId, database, progress.Kind);
        if (operation is { Kind: OperationKind.Unknown } block
            && (progress.Kind != OperationKind.Unknown || block.Buffers.IsStartOfAnother(parsed.Message)))
        {
            // A buffer block printed on its own takes only its own lines: the next block, or another operation's first
            // line, ends it.
            RemoveOpen(block);
            Release(block);
            operation = null;
        }

        if (operation is null && parsed.Message is MsdaStarted && progress.Kind is null)
        {
            // SQL Server 2008 R2 trace flag 3014 writes no "BACKUP DATABASE started": its first line is the data
            // stream starting, so that line is the backup's start as far as the log can tell. (XE names the kind on
            // every event: there an operation already under way is adopted below, its start unknown.)
            AddOpen(operation = new BackupOperation(OperationKind.Backup, null, database, progress.SessionId, at, startObserved: true));
        }

        if (operation is null && parsed.Message is DatabaseMarkedRestoring restoring && progress.Kind is null)
        {
            // Default logging's only line on the restoring spid: the restore is under way (its start is not logged),
            // and its "Database was restored" line on the Backup column will join this operation.
            AddOpen(operation = new BackupOperation(OperationKind.Restore, null, restoring.Database, progress.SessionId, at, startObserved: false));
        }

        if (operation is null && parsed.Message is SnapshotStep snapshot && progress.Kind is null)
        {
            // A snapshot backup's first line in the ERRORLOG is its freeze (VSS) or its suspend (T-SQL); the "Database backed
            // up" line on the Backup column then joins it by its database.
            AddOpen(operation = new BackupOperation(OperationKind.Backup, OperationScope.Database, snapshot.Database, progress.SessionId, at, startObserved: true));
        }

        if (operation is null && progress.Kind is null && parsed.Message is EngineError loose)
        {
            HoldLoose(loose, progress.SessionId, at);
            return;
        }

        if (operation is null && (progress.Kind is null || progress.Kind == (parsed.Message as OperationFailed)?.Kind) && parsed.Message is OperationFailed { Kind: { } failedKind } failedAlone)
        {
            // A failure with no operation open: an ERRORLOG without trace flags writes only the errors and the closing
            // "BACKUP failed to complete the command BACKUP DATABASE X" (3041). The command names the operation; the
            // errors just before it, of its process or of none, are its cause. A client's output whose only engine line
            // is its failure line (the error above it in a wrapper no reader peels) is that failed operation too.
            var failedOperation = Adopt(failedKind, failedAlone.Scope, failedAlone.Database ?? database, progress.SessionId, at);
            TakeLoose(failedOperation, progress.SessionId, at);
            failedOperation.Finish(at, OperationStatus.Failed, failedAlone.Reason);
            MoveToEnded(failedOperation);
            return;
        }

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
                operation.Scope ??= failed.Scope;
                operation.Finish(at, OperationStatus.Failed, failed.Reason);
                MoveToEnded(operation);
                break;
            case ClosingError closing:
                // An error that ends its command where no failure line does (ClientTranscript): an abort whose kind the
                // client's other lines told, or the last error of an output of errors only.
                operation.Apply(closing.Error, at);
                operation.Finish(at, OperationStatus.Failed, closing.Error.Text);
                MoveToEnded(operation);
                break;
            case EngineError { Number: EngineMessageCatalog.Aborted, Text: { } aborted } when operation.Kind == OperationKind.Unknown:
                // A client that shows only the text of 3204 ends a stopped command with it and no 3013 naming its kind.
                operation.Apply(parsed.Message, at);
                operation.Finish(at, OperationStatus.Failed, aborted);
                MoveToEnded(operation);
                break;
            default:
                operation.Database ??= database;
                operation.Apply(parsed.Message, at);
                break;
        }
    }

    private static int SessionKey(int? sessionId) => sessionId ?? -1;

    // The message after an error header is the header's text: joined to its number as the client prints it; a failure
    // line keeps its meaning, and its header's number becomes its error.
    private ParsedTraceMessage Numbered(ParsedTraceMessage parsed, ErrorHeader header, string text, int? sessionId, DateTime at)
    {
        var error = new EngineError(header.Number, header.Severity, text.Trim());
        if (parsed.Message is not OperationFailed { Kind: not null })
        {
            return parsed with { Message = error };
        }

        if (FindOpen(sessionId, parsed.PrefixDatabase, null) is { } open)
        {
            open.Apply(error, at);
        }
        else
        {
            HoldLoose(error, sessionId, at);
        }

        return parsed;
    }

    private void HoldLoose(EngineError error, int? sessionId, DateTime at)
    {
        if (_loose.Count >= MaxLooseErrors)
        {
            _loose.Dequeue();
        }

        _loose.Enqueue(new LooseError(error, sessionId, at, Input));
        _looseInput = Input;
    }

    // Device failures (18204, 18210) that no closing 3041 or 3013 took by the end of their input: the ERRORLOG wrote them
    // for a failed command all the same, so each is a failed operation of the kind its device's verb tells, at its
    // own time and of its own input. Other loose errors stay unplaced: alone they name no operation.
    private void FailDevicesLeftLoose()
    {
        var current = Input;
        while (_loose.TryDequeue(out var held))
        {
            if (!DeviceFailure.Is(held.Error.Number) || DeviceFailure.KindOf(held.Error.Text) is not { } kind)
            {
                continue;
            }

            Input = held.Input;
            var failed = Adopt(kind, null, null, held.SessionId, held.At);
            failed.Apply(held.Error, held.At);
            failed.Finish(held.At, OperationStatus.Failed, held.Error.Text);
            MoveToEnded(failed);
        }

        Input = current;
    }

    // The held errors of the failing process (or of none: the Backup column of the ERRORLOG has no session) that came
    // within the window before the failure, first to last: the first is the root error.
    private void TakeLoose(BackupOperation operation, int? sessionId, DateTime at)
    {
        while (_loose.TryDequeue(out var held))
        {
            var sameProcess = held.SessionId is null || sessionId is null || held.SessionId == sessionId;
            var clockless = at == TraceEvent.NoClock || held.At == TraceEvent.NoClock;
            var recent = clockless || (at - held.At) <= LooseErrorWindow;

            // Without clocks only the input itself ties an error to a failure line (docs/input-formats.md).
            var sameInput = !clockless || held.Input == Input;
            if (sameProcess && recent && sameInput)
            {
                operation.Apply(held.Error, at);
            }
        }
    }

    private readonly record struct LooseError(EngineError Error, int? SessionId, DateTime At, int Input);

    private void Begin(OperationKind kind, OperationScope scope, string? database, int? sessionId, DateTime at)
    {
        // A session runs one backup or restore at a time: a new start on the same session means the previous
        // one ended without a closing line in the input.
        if (sessionId is not null)
        {
            foreach (var previous in _open.OfSession(sessionId.Value).ToList())
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

    // Every new operation enters here: numbered for this stream, and marked for its share of ambiguous waits.
    private void AddOpen(BackupOperation operation)
    {
        if (!operation.HasClock)
        {
            ReleaseEndedWithoutClock();
        }

        operation.Sequence = ++_created;
        operation.Input = Input;
        if (!operation.HasClock)
        {
            _clocklessInput = Input;
        }

        operation.Flow.StallAfter = _stallAfter;
        operation.AmbiguousMark = _ambiguousCount;
        _open.Add(operation);
    }

    // Client output has no clock, so no grace period ever passes: without this every ended command would be held to
    // the end of the input and searched on each event. A client runs its commands one after another, so nothing of
    // an ended command follows the first line of the next one.
    private void ReleaseEndedWithoutClock()
    {
        if (_ended.Count == 0)
        {
            return;
        }

        foreach (var ended in _ended.InOrder.Where(o => !o.HasClock).ToList())
        {
            _ended.Remove(ended);
            Release(ended);
        }

        if (_ended.Count == 0)
        {
            _endings.Clear();
            _earliestEnd = long.MaxValue;
        }
    }

    // Client output carries no clock, so a line of one file can belong to an operation of another only by mistake:
    // T10's completion line once ended T09a's failed restore when both were given together. The merge reads such
    // inputs one after the other, so when the next input starts, every operation without a clock of the one before
    // is as complete as it will ever be; ended ones first, then the open ones, as the end of that input alone does.
    private void ReleaseClocklessOf(int input)
    {
        _clocklessInput = null;
        foreach (var ended in _ended.InOrder.Where(o => !o.HasClock && o.Input == input).ToList())
        {
            _ended.Remove(ended);
            Release(ended);
        }

        foreach (var open in _open.InOrder.Where(o => !o.HasClock && o.Input == input).ToList())
        {
            RemoveOpen(open);
            Release(open);
        }
    }

    private bool RemoveOpen(BackupOperation operation)
    {
        if (!_open.Remove(operation))
        {
            return false;
        }

        CloseAmbiguous(operation);
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
            _endings.Enqueue(operation, (operation.End!.Value.Ticks, operation.Sequence));
            _earliestEnd = Math.Min(_earliestEnd, operation.End!.Value.Ticks);
        }
    }

    private BackupOperation? FindOpen(int? sessionId, string? database, OperationKind? kind)
    {
        if (sessionId is { } session)
        {
            return _open.LastOfSession(session, database, static (o, database) => SameDatabase(o.Database, database));
        }

        return database is not null ? FindOpenByDatabase(database, kind) : _open.Only;
    }

    // Apart from FindOpen so that the lambda's captures are allocated only when there is no session to look up by.
    private BackupOperation? FindOpenByDatabase(string database, OperationKind? kind)
        => _open.Last(o => SameDatabase(o.Database, database) && (kind is null || o.Kind == kind));

    private BackupOperation? FindEndedOrOpen(OperationKind kind, string database, int? sessionId)
        => _open.Last(o => o.Kind == kind && Named(o.Database, database) && (sessionId is null || o.SessionId is null || o.SessionId == sessionId))
            ?? _ended.Last(o => o.Kind == kind && Named(o.Database, database) && o.Summary is null && !o.HasHistory);

    private BackupOperation? FindForSummary(CompletionSummary summary, int? sessionId, string? database)
    {
        // The summary line names no database; it follows the history line of the same operation.
        if (_lastHistoryMatch is { Summary: null } last && last.Kind == summary.Kind)
        {
            return last;
        }

        // A source that names the database on every line (client output, XE) tells apart two open ones of a kind.
        bool Fits(BackupOperation o) => o.Kind == summary.Kind && o.Summary is null
            && (sessionId is null || o.SessionId is null || o.SessionId == sessionId)
            && SameDatabase(o.Database, database);

        var open = _open.InOrder.Where(Fits).Take(2).ToList();
        if (open.Count == 1)
        {
            return open[0];
        }

        return open.Count == 0 ? _ended.Last(Fits) : null;
    }

    private void ObserveWait(WaitEvent wait)
    {
        if (wait.SessionId is { } session)
        {
            var owner = _open.LastOfSession(session, _ => true)
                ?? _ended.LastOfSession(session, wait.Began, static (o, began) => began <= o.End);
            if (owner is not null)
            {
                owner.Waits.Add(wait, bySession: true);
                owner.NoteInMemoryLoad(wait);
                return;
            }
        }

        // Reader and writer threads may not carry the backup's session_id (docs/backup-internals.md#events-to-capture): fall back to
        // the operations running while the wait lasted. A generic I/O wait that names another session is that
        // session's own work, not the backup's.
        // The in-memory load is waited for by the database's startup, which need not run on the restoring session
        // (sqlskills.com, WAIT_XTP_RECOVERY: DBMgr::StartupDB): it is tied by time like the backup's own waits.
        if (wait.SessionId is not null && !BackupWaitTypes.IsBackupSpecific(wait.WaitType) && !BackupWaitTypes.IsInMemoryLoad(wait.WaitType))
        {
            UnattributedWaits++;
            return;
        }

        // A wait is tied by time only to the one operation running while it lasted. Open operations all began
        // by now (the stream is in time order); ended ones are held for the grace period only, so both checks
        // cost the operations in flight at most, and the usual case (several open) costs nothing.
        var overlapping = _open.Count;
        var only = _open.Only;
        foreach (var ended in _ended.Ordered)
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
            only.NoteInMemoryLoad(wait);
        }
        else
        {
            // Several ran: counting the wait for each would blame every one of them for all the server's
            // waits. It goes to the server-level profile once; each operation counts that it was there.
            _ambiguous.Add(wait, bySession: false);
            _ambiguousCount++;
            foreach (var ended in _ended.Ordered)
            {
                if (wait.Began <= ended.End)
                {
                    ended.AmbiguousWaits++;
                }
            }
        }
    }

    // A client's span follows the engine's messages of its command in the same source: it joins the operation they
    // made (the latest of its kind and database without a span). A command with no engine message at all (it failed
    // before the server wrote one, or the output was captured without them) is an operation of its own, known only
    // from the client's side.
    private void ObserveClientCommand(ClientCommandEvent client)
    {
        bool Fits(BackupOperation o) => o.Kind == client.Kind && o.ClientCommand is null
            && (client.Database is null || Named(o.Database, client.Database));

        var operation = _open.Last(Fits) ?? _ended.Last(Fits);
        if (operation is null)
        {
            operation = Adopt(client.Kind, client.Scope, client.Database, null, client.Timestamp);
            operation.Finish(client.Timestamp, client.Succeeded ? OperationStatus.Completed : OperationStatus.Failed, null);
            MoveToEnded(operation);
        }

        else if (!client.Succeeded && operation.Outcome is null)
        {
            // The engine's error lines made the operation; the client says how it ended.
            operation.Finish(client.Timestamp, OperationStatus.Failed, null);
            MoveToEnded(operation);
        }

        operation.Scope ??= client.Scope;
        operation.Database ??= client.Database;
        operation.ClientCommand = client;
    }

    private void ObserveThroughput(ThroughputEvent throughput)
    {
        var owner = throughput.SessionId is { } session ? _open.LastOfSession(session, _ => true) : _open.Only;
        owner?.AddThroughput(throughput.Increment, throughput.Timestamp);
    }

    private static bool SameDatabase(string? known, string? seen)
        => known is null || seen is null || string.Equals(known, seen, StringComparison.OrdinalIgnoreCase);

    private static bool Named(string? known, string seen)
        => known is null || string.Equals(known, seen, StringComparison.OrdinalIgnoreCase);
}
