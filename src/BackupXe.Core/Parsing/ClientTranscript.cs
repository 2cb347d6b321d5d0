using System.Collections.Immutable;
using BackupXe.Core.Events;

namespace BackupXe.Core.Parsing;

/// <summary>
/// Groups the engine messages a client shows (SSMS's Messages tab, sqlcmd, SQL Agent job step output, and the same
/// lines inside Ola Hallengren's job output) into operations. Those lines carry no timestamps, no spid and, until the
/// completion line, no operation kind: "10 percent processed.", "Processed N pages for database 'D', file 'F' on
/// file 1.", SQL Server 2022's "Converting database ..." steps, then "BACKUP DATABASE successfully processed ..." or
/// "... is terminating abnormally." closes the operation and names its kind.
/// </summary>
/// <remarks>
/// Lines outside the vocabulary (a job's own text, "Msg 3201, Level 16 ...", row counts) are counted, not kept.
/// Memory is bounded by one operation's messages, at most <see cref="MaxMessagesPerOperation"/>.
/// </remarks>
public sealed class ClientTranscript(TraceMessageParser? parser = null)
{
    /// <summary>STATS = 1 prints 100 percent lines, and a database has at most 32,767 files: far below this.</summary>
    public const int MaxMessagesPerOperation = 40_000;

    // Most lines close nothing: an empty list that costs no allocation.
    private static IReadOnlyList<ClientOperation> None => [];

    private readonly TraceMessageParser _parser = parser ?? new TraceMessageParser();
    private readonly List<ClientMessage> _pending = [];

    // Trial parses of a folded message's parts, kept apart from the transcript's own parser and its context.
    private readonly TraceMessageParser _trial = new();

    // The head of a message folded at a width, and how many lines it has gathered (a message is a few hundred characters).
    private const int MaxFoldedLines = 8;
    private const int MaxFoldedChars = 4096;
    private string? _folded;
    private int _foldedLines;
    private int _dropped;

    // "Msg 845, Level 17, State 1, Line 2" waiting for its text, which SSMS and sqlcmd print on the next line.
    private EngineError? _header;

    // The kind of the failure line already seen, and where it stands in _pending: the operation stays open until its
    // error block ends, because SSMS prints the real error after "... is terminating abnormally." as often as before it.
    private OperationKind? _failing;
    private OperationScope? _failingScope;
    private int _failureAt;

    // The engine's line, since the last operation closed, that said a database was RESTORING: what tells the kind of an
    // aborted command no failure line named (realworld4 V27).
    private string? _restoringSaid;

    /// <summary>
    /// True when the line just added was a progress line the client printed after the command's abort (its time-out and
    /// SQL Server's 3204): late output of the aborted operation, kept with it, not the start of another.
    /// </summary>
    public bool LateOutput { get; private set; }

    /// <summary>True when the line just added was SQL Server's saying a database was RESTORING (5052's "... in the Restoring state.").</summary>
    public bool SaidRestoring { get; private set; }

    /// <summary>Set when the line just added held a value no server writes (and was skipped), else null.</summary>
    public ImplausibleValue? Rejected { get; private set; }

    /// <summary>The meaning of the line just added.</summary>
    public TraceMessage? LastMessage { get; private set; }

    /// <summary>Lines that were not engine messages of a backup or restore (job text, error headers, blank lines).</summary>
    public long IgnoredLines { get; private set; }

    /// <summary>
    /// Adds one line of client output; returns the operations it closes: none, mostly; the failed operation whose
    /// error block this line ends; the operation its completion line closes.
    /// </summary>
    public IReadOnlyList<ClientOperation> Add(string line)
    {
        ArgumentNullException.ThrowIfNull(line);
        LateOutput = false;
        SaidRestoring = false;
        if (_folded is { } head)
        {
            _folded = null;
            if (Unfolded(head, line) is { } joined)
            {
                IgnoredLines--;
                return Add(joined);
            }

            if (_foldedLines < MaxFoldedLines && (_header is not null || StartsLikeAMessage(head)) && IsFoldHead(line) && IsFoldHead(head + line))
            {
                // Still the head of one message (a long one folded more than once).
                _folded = head + line;
                _foldedLines++;
                return None;
            }

            var earlier = AddHeld(head);
            var rejected = Rejected;
            var later = Add(line);
            Rejected ??= rejected;
            return earlier.Count == 0 ? later : later.Count == 0 ? earlier : [.. earlier, .. later];
        }

        if (IsFoldHead(line))
        {
            // Held until the next line tells whether it is the rest of this message.
            _folded = line;
            _foldedLines = 1;
            LastMessage = new UnknownMessage(line);
            Rejected = null;

            // Counted as ignored now, as it would be unheld; taken back if it joins the next line.
            IgnoredLines++;
            return None;
        }

        return AddUnfolded(line);
    }

    /// <summary>The line held as the head of a folded message, through the transcript as it stands (end of input).</summary>
    private IReadOnlyList<ClientOperation> FlushFolded()
    {
        if (_folded is not { } head)
        {
            return None;
        }

        _folded = null;
        return AddHeld(head);
    }

    // A held line, no fold after all: read as it is, counted as ignored once (it was when it was held).
    private IReadOnlyList<ClientOperation> AddHeld(string head)
    {
        var before = IgnoredLines;
        var closed = AddUnfolded(head);
        IgnoredLines = IgnoredLines > before ? before : before - 1;
        return closed;
    }

    // A line whose last message the parser does not know: it may be the head of a message folded at a width. While an
    // error header waits for its text, a text that has not ended (SQL Server's error texts end with a period) is one too.
    private bool IsFoldHead(string line)
    {
        if (IsBlank(line) || line.Length > MaxFoldedChars || EndsWithAgentSuffix(line))
        {
            return false;
        }

        var last = LastPart(line);
        return _trial.Parse(last).Message is UnknownMessage && !(_header is not null && last.TrimEnd().EndsWith('.'));
    }

    // A head gathers a third piece only when it opens the way the engine's messages do, so that a job's own text above
    // a folded message is never glued to it.
    // A PowerShell record opens with its stream's word ("WARNING:"), which the message inside it follows.
    private static bool StartsLikeAMessage(string head)
    {
        foreach (var text in (ReadOnlySpan<string>)[head.TrimStart(), LastPart(head).TrimStart()])
        {
            foreach (var opening in MessageOpenings)
            {
                if (text.StartsWith(opening, StringComparison.Ordinal))
                {
                    return true;
                }
            }
        }

        return false;
    }

    private static readonly ImmutableArray<string> MessageOpenings =
        ["Processed ", "BACKUP ", "RESTORE ", "Database ", "Converting database ", "Msg ", "VERBOSE:", "WARNING:", "Executed as user: "];

    private static string LastPart(string line)
        => ClientLine.IsWrapped(line) && ClientLine.Unwrap(line).LastOrDefault(m => !IsBlank(m)) is { } last ? last : line;

    // Agent ends a message with " [SQLSTATE 01000]" and maybe "(Message 3014)": a line that ends so ends its message.
    private static bool EndsWithAgentSuffix(string line)
    {
        var text = line.AsSpan().TrimEnd();
        var state = text.LastIndexOf("[SQLSTATE ", StringComparison.Ordinal);
        if (state < 0 || text[state..].IndexOf(']') is not (> 0 and var close))
        {
            return false;
        }

        var after = text[(state + close + 1)..].Trim();
        return after.IsEmpty || (after[0] == '(' && after[^1] == ')');
    }

    /// <summary>
    /// The head and the next line as one line, when together they make more engine messages than apart: the fold is
    /// undone only where the content says so, never by a width guessed from line lengths. A fold at a blank may have lost
    /// it at the end of the head, so the head, a blank and the line are tried too. An error's text waiting for its end
    /// takes the next line that is no message of its own.
    /// </summary>
    private string? Unfolded(string head, string line)
    {
        if (IsBlank(line))
        {
            return null;
        }

        if (_header is not null)
        {
            return Knowns(line) == 0 && _trial.Parse(line.Trim()).Message is UnknownMessage && !LastPart(head).TrimEnd().EndsWith('.') ? head + line : null;
        }

        var apart = Knowns(head) + Knowns(line);
        foreach (var joined in (ReadOnlySpan<string>)[head + line, head + " " + line])
        {
            if (Knowns(joined) > apart)
            {
                return joined;
            }
        }

        return null;
    }

    private int Knowns(string line)
        => (ClientLine.IsWrapped(line) ? ClientLine.Unwrap(line) : [line]).Count(m => !IsBlank(m) && _trial.Parse(m).Message is not UnknownMessage);

    private static bool IsBlank(string line) => string.IsNullOrWhiteSpace(line);

    private IReadOnlyList<ClientOperation> AddUnfolded(string line)
    {
        if (!ClientLine.IsWrapped(line))
        {
            return AddMessage(line);
        }

        // A PowerShell or SQL Agent line: its messages one by one (a job history line holds a whole step's).
        List<ClientOperation>? closed = null;
        ImplausibleValue? rejected = null;
        foreach (var message in ClientLine.Unwrap(line))
        {
            var operations = AddMessage(message);
            rejected ??= Rejected;
            if (operations.Count > 0)
            {
                (closed ??= []).AddRange(operations);
            }
        }

        Rejected = rejected;
        return closed ?? None;
    }

    private IReadOnlyList<ClientOperation> AddMessage(string line)
    {
        var parse = _parser.Parse(line);
        var parsed = parse.Message;
        var database = parse.PrefixDatabase;

        // Agent's "Msg 3013, Sev 16, State 1, Line 1 : BACKUP DATABASE is terminating abnormally.": the generic ending,
        // whose text names the operation, with the header on its own line.
        if (parsed is EngineError { Number: EngineError.TerminatingAbnormally, Text: { } ending } && _trial.Parse(ending).Message is OperationFailed { Kind: not null } failed)
        {
            (parsed, line, database) = (failed, ending, null);
        }

        LastMessage = parsed;
        Rejected = parsed as ImplausibleValue;
        if (Rejected is { Completes: null })
        {
            // A number SQL Server cannot write: the caller reports it at its line; nothing is computed from it.
            return None;
        }

        var blank = string.IsNullOrWhiteSpace(line);
        if (_header is { } header && !blank)
        {
            // The header's text: whatever the line says, it is the error's message, joined to its number; the generic
            // failure line keeps its own meaning (its header is the 3013 it always is).
            _header = null;
            if (parsed is not OperationFailed)
            {
                var error = header with { Text = line.Trim() };
                Keep(new ClientMessage(error.Joined(), error));
                return None;
            }
        }

        if (parsed is EngineError { Text: null } opening)
        {
            _header = opening;
            return None;
        }

        if (parsed is PercentReached && IsAbortHeld())
        {
            // The client delivered the command's last STATS line after its own time-out and SQL Server's abort: the
            // operation had reached it before it was aborted (realworld4 V27), so it goes with the progress before the errors.
            var at = _pending.FindIndex(m => m.Message is EngineError);
            _pending.Insert(at, new ClientMessage(line.Trim(), parsed, database));
            _failureAt++;
            LateOutput = true;
            return None;
        }

        // A failure is closed by the first engine message that is not part of its error block.
        var closedFailure = _failing is not null && !blank && parsed is not (UnknownMessage or EngineError) ? CloseFailure() : null;
        var closed = Classify(line, blank, parsed, database);
        if (parsed is DatabaseStateRefusal { IsRestoring: true })
        {
            _restoringSaid = line.Trim();
            SaidRestoring = true;
        }
        return (closedFailure, closed) switch
        {
            (null, null) => None,
            ({ } failure, null) => [failure],
            (null, { } one) => [one],
            ({ } failure, { } one) => [failure, one],
        };
    }

    /// <summary>
    /// End of input: the failed operation whose error block ends here, and the messages after the last closing line
    /// as an operation of unknown kind; empty when there are none.
    /// </summary>
    public IReadOnlyList<ClientOperation> Finish()
    {
        var folded = FlushFolded();
        var failure = _failing is not null ? CloseFailure() : null;
        var rest = _pending.Count == 0 ? null : IsErrorsOnly() ? CloseErrors() : Close(null, null);
        List<ClientOperation> closed = [.. folded];
        closed.AddRange(failure is null ? rest is null ? None : [rest] : rest is null ? [failure] : [failure, rest]);
        return closed.Count == 0 ? None : closed;
    }

    private ClientOperation? Classify(string line, bool blank, TraceMessage parsed, string? database)
    {
        if (parsed is ElidedCompletion)
        {
            // A timed run of a published excerpt: its kind and database were cut, so it closes no operation
            // (Diagnosis.ExcerptRuns compares such runs).
            return null;
        }

        // A refusal by the database's state is no line of an operation: only what it says of the state is kept.
        if (parsed is UnknownMessage or DatabaseStateRefusal || blank)
        {
            IgnoredLines++;
            return null;
        }

        // A buffer configuration block printed on its own ends where the next one starts: each is one operation.
        var block = IsBufferLine(parsed) && StartsAnotherBlock(parsed) ? Close(null, null) : null;
        Keep(new ClientMessage(line.Trim(), parsed, database));
        if (block is not null)
        {
            return block;
        }

        switch (parsed)
        {
            case CompletionSummary summary:
                return Close(summary.Kind, summary.Scope);
            case ImplausibleValue { Completes: { } kind } damaged:
                // Its figures are lost, but the operation ended here: the next one's lines must not join it.
                return Close(kind, damaged.CompletedScope);
            case OperationFailed { Kind: { } kind } failed when _failing is null or OperationKind.Unknown:
                _failing = kind;
                _failingScope = failed.Scope;
                _failureAt = _pending.Count - 1;
                return null;
            case EngineError { Number: EngineMessageCatalog.Aborted } when _failing is null:
                // SQL Server's own end of a command that was stopped ("The backup or restore was aborted."), printed without
                // a number by a client that shows only the text: it ends the operation as 3013 would, without naming
                // its kind, which a 3013 after it still gives.
                _failing = OperationKind.Unknown;
                _failingScope = null;
                _failureAt = _pending.Count - 1;
                return null;
            default:
                return null;
        }
    }

    // While a failure is held, its later error lines go before the failure line, so that whoever reads the messages in
    // order meets the errors before the line that ends the operation.
    private void Keep(ClientMessage message)
    {
        if (_pending.Count >= MaxMessagesPerOperation)
        {
            _dropped++;
        }
        else if (_failing is not null && message.Message is EngineError)
        {
            _pending.Insert(_failureAt++, message);
        }
        else
        {
            _pending.Add(message);
        }
    }

    /// <summary>
    /// True when <paramref name="line"/>, which the parser did not know, is the head of an engine message a backup or
    /// restore prints (<c>10 percent proc</c>, <c>Processed 1234 pa</c>, <c>BACKUP DATABASE successfully</c>): the last
    /// line of an output cut short, not a line of another program's.
    /// </summary>
    public static bool LooksCut(string line)
    {
        var text = line.AsSpan().Trim();
        if (text.IsEmpty)
        {
            return false;
        }

        var digits = text.IndexOfAnyExceptInRange('0', '9');
        if (digits != 0)
        {
            return digits < 0 || " percent processed.".AsSpan().StartsWith(text[digits..], StringComparison.Ordinal);
        }

        foreach (var head in EngineHeads)
        {
            if (head.AsSpan().StartsWith(text, StringComparison.Ordinal) || text.StartsWith(head, StringComparison.Ordinal))
            {
                return true;
            }
        }

        return false;
    }

    private static readonly ImmutableArray<string> EngineHeads = ["Processed ", "BACKUP DATABASE ", "BACKUP LOG ", "RESTORE DATABASE ", "RESTORE LOG "];


    private ClientOperation CloseFailure()
    {
        var kind = _failing;
        _failing = null;
        _header = null;
        var evidence = kind == OperationKind.Unknown ? _restoringSaid : null;
        var abort = evidence is null ? -1 : _pending.FindLastIndex(m => m.Message is EngineError { Number: EngineMessageCatalog.Aborted });
        if (abort >= 0)
        {
            // SQL Server's abort names "backup or restore"; a database the engine said was RESTORING before the command
            // tells which: the abort closes a restore, and its meaning carries that kind (its text is unchanged).
            var ending = _pending[abort];
            _pending[abort] = ending with { Message = new ClosingError(OperationKind.Restore, (EngineError)ending.Message, evidence) };
            kind = OperationKind.Restore;
        }

        return Close(kind, _failingScope) with { KindEvidence = abort >= 0 ? evidence : null };
    }

    // Errors of the catalog's failures and nothing else: a failed command whose failure line the output does not hold (a
    // driver's record of one server error, realworld4 V23), not a command still running; or an error that stopped the
    // work before any command started (924, realworld4 V28).
    private bool IsErrorsOnly()
        => _pending.TrueForAll(m => m.Message is EngineError { Text: not null } error && EngineMessageCatalog.StopsTheWork(error.Number));

    // That command, failed, its kind unknown: its last error closes it (its first is its root error).
    private ClientOperation CloseErrors()
    {
        var last = _pending.Count - 1;
        _pending[last] = _pending[last] with { Message = new ClosingError(OperationKind.Unknown, (EngineError)_pending[last].Message) };
        return Close(OperationKind.Unknown, null);
    }

    // A command aborted (3204) or given up on by the client (its time-out) whose error block is still open.
    private bool IsAbortHeld()
        => _failing is not null && _pending.Exists(m => m.Message is EngineError { Number: EngineMessageCatalog.Aborted or EngineMessageCatalog.ClientTimedOut });

    private static bool IsBufferLine(TraceMessage message) => BufferBlock.IsLine(message);

    // Only while nothing but buffer lines is pending: the operation's correlator applies the same rule to the events.
    private bool StartsAnotherBlock(TraceMessage parsed)
        => _pending.Count > 0 && _pending.TrueForAll(m => IsBufferLine(m.Message))
            && BufferBlock.StartsAnother(parsed, !_pending.Exists(m => m.Message is BufferParameterLine),
                parameter => _pending.Exists(m => m.Message is BufferParameterLine seen && seen.Parameter == parameter));

    private ClientOperation Close(OperationKind? kind, OperationScope? scope)
    {
        // The block is the same for a backup and a restore and names no database: what it shows is kept, the rest is unknown.
        if (kind is null && _pending.Count > 0 && _pending.TrueForAll(m => IsBufferLine(m.Message)))
        {
            kind = OperationKind.Unknown;
        }

        // SQL Server 2000's "100 percent restored." names the kind: an output that ends there is a restore still
        // recovering, or cut (no completion line came), not lines of no operation.
        kind ??= _pending.Select(m => (m.Message as PercentReached)?.Kind).LastOrDefault(k => k is not null);

        var database = _pending.Select(m => m.Message switch
        {
            FilePagesProcessed files => files.Database,
            DatabaseUpgrade upgrade => upgrade.Database,
            EngineError error => EngineMessageCatalog.DatabaseOf(error.Number, error.Text),
            ClosingError closing => EngineMessageCatalog.DatabaseOf(closing.Error.Number, closing.Error.Text),
            _ => null,
        }).FirstOrDefault(name => name is not null);
        var operation = new ClientOperation(kind, scope, database, [.. _pending], _dropped);
        _pending.Clear();
        _dropped = 0;
        _restoringSaid = null;
        return operation;
    }
}

/// <summary>One recognised line of client output and its meaning.</summary>
/// <param name="Text">The line as written (an error's header and text joined).</param>
/// <param name="Message">What the transcript made of it, which the correlator takes instead of parsing the text again.</param>
/// <param name="Database">The database of an operation prefix the line began with ("Backup(db): "); null without one.</param>
public sealed record ClientMessage(string Text, TraceMessage Message, string? Database = null);

/// <summary>
/// One backup or restore as a client saw it. <see cref="Kind"/> is null when the output ends before its closing line, and
/// <see cref="OperationKind.Unknown"/> for a buffer configuration block printed on its own.
/// </summary>
/// <param name="DroppedMessages">Messages beyond <see cref="ClientTranscript.MaxMessagesPerOperation"/>, counted only.</param>
public sealed record ClientOperation(
    OperationKind? Kind,
    OperationScope? Scope,
    string? Database,
    IReadOnlyList<ClientMessage> Messages,
    int DroppedMessages)
{
    /// <summary>
    /// The engine's line that told the kind of an aborted command no failure line named ("... in the Restoring state."),
    /// when it was told so; null otherwise.
    /// </summary>
    public string? KindEvidence { get; init; }

    /// <summary>"... successfully processed N pages in S seconds (R MB/sec).", when the operation completed.</summary>
    public CompletionSummary? Summary => Messages.Select(m => m.Message).OfType<CompletionSummary>().LastOrDefault();

    /// <summary>"... is terminating abnormally." and the like, when it failed.</summary>
    public OperationFailed? Failure => Messages.Select(m => m.Message).OfType<OperationFailed>().LastOrDefault();

    /// <summary>The engine's errors printed for it ("Msg N, ..." and their text), in output order.</summary>
    public IReadOnlyList<EngineError> Errors => Messages.Select(m => m.Message).OfType<EngineError>().ToList();

    /// <summary>Pages per file, as the "Processed N pages" lines give them.</summary>
    public IReadOnlyList<FilePagesProcessed> Files => Messages.Select(m => m.Message).OfType<FilePagesProcessed>().ToList();

    /// <summary>SQL Server 2022+ "Converting database" and "running the upgrade step" lines.</summary>
    public IReadOnlyList<DatabaseUpgrade> Upgrades => Messages.Select(m => m.Message).OfType<DatabaseUpgrade>().ToList();

    /// <summary>The last "N percent processed." line; null when STATS printed none.</summary>
    public int? LastPercent => Messages.Select(m => m.Message).OfType<PercentReached>().LastOrDefault()?.Percent;
}
