namespace BackupXe.Core.Parsing;

/// <summary>
/// ERRORLOG messages copied without their date and process columns, as a blog, a forum post or a support case quotes
/// them: still the engine's messages, known by their content. A line the parser knows opens a message, and so does the
/// line after an <c>Error: N, Severity: S, State: T.</c> header, which is that header's text; a line it does not know
/// goes on with a message above that it did not know either (the head of a message a page wrapped), as a line without a
/// timestamp does in the log itself, joined by the space the wrap took the place of. A blank line ends a message.
/// </summary>
public sealed class BareMessages
{
    // A message is a few hundred characters; a page's wrap makes a few lines of it, never this many.
    private const int MaxLines = 16;

    private readonly TraceMessageParser _parser = new();
    private string? _open;
    private int _openLine;
    private int _openLines;
    private bool _openKnown;

    /// <summary>
    /// Adds line <paramref name="number"/>; returns the messages it ends: none, mostly; the one above when this line
    /// opens another; that one and this header when it is an error's header, which is whole on its line.
    /// </summary>
    public IReadOnlyList<BareMessage> Add(string line, int number)
    {
        var text = line.Trim();
        if (text.Length == 0)
        {
            return Finish();
        }

        // Only a message the parser does not know yet goes on: one it knows is whole on its line, and text after it is other text.
        var parsed = _parser.Parse(text);
        if (parsed.Message is UnknownMessage && _open is not null && !_openKnown && _openLines < MaxLines)
        {
            _open += " " + text;
            _openLines++;
            return [];
        }

        var ended = Finish();
        if (parsed.Message is ErrorHeader)
        {
            return [.. ended, Judged(text, number, 1, parsed)];
        }

        (_open, _openLine, _openLines, _openKnown) = (text, number, 1, parsed.Message is not UnknownMessage);
        return ended;
    }

    /// <summary>The message still open (end of input, or a blank line): empty when there is none.</summary>
    public IReadOnlyList<BareMessage> Finish()
    {
        if (_open is not { } text)
        {
            return [];
        }

        _open = null;
        return [Judged(text, _openLine, _openLines, _openLines == 1 ? null : _parser.Parse(text))];
    }

    private BareMessage Judged(string text, int line, int lines, ParsedTraceMessage? parsed)
    {
        var meaning = parsed ?? _parser.Parse(text);
        return new BareMessage(text, line, lines, meaning, SideOf(meaning.Message, text));
    }

    // Which program writes the message: the ERRORLOG alone (an error's header, a history record, 3041's failure, a device
    // failure), a client alone (its Msg header, its percent and per-file lines, 3013's ending), either, or neither.
    private static MessageSide SideOf(TraceMessage message, string text) => message switch
    {
        ErrorHeader or HistoryRecord or OperationStarted or OperationFinished => MessageSide.Errorlog,
        OperationFailed failed => failed.Reason.Contains("failed to complete the command", StringComparison.OrdinalIgnoreCase) ? MessageSide.Errorlog : MessageSide.Client,
        // The driver's own time-out is the client's text, not SQL Server's.
        EngineError { Number: EngineMessageCatalog.ClientTimedOut } => MessageSide.None,
        EngineError or PercentReached or FilePagesProcessed => MessageSide.Client,
        UnknownMessage => EngineMessageCatalog.Identify(text) is { } row ? (row.Number is 18204 or 18210 ? MessageSide.Errorlog : MessageSide.Either) : MessageSide.None,
        _ => MessageSide.Either,
    };
}

/// <summary>Which program writes a message SQL Server produced: the ERRORLOG, a client, either, or none (not an engine message).</summary>
public enum MessageSide
{
    /// <summary>Not an engine message: neither the parser nor the catalog knows it.</summary>
    None,

    /// <summary>Only the ERRORLOG writes it.</summary>
    Errorlog,

    /// <summary>Only a client shows it.</summary>
    Client,

    /// <summary>Both may.</summary>
    Either,
}

/// <summary>One message of <see cref="BareMessages"/>: its text, its first line and how many lines it took, its meaning.</summary>
public sealed record BareMessage(string Text, int Line, int Lines, ParsedTraceMessage Parsed, MessageSide Side)
{
    /// <summary>True when SQL Server wrote it: the parser or the catalog knows it.</summary>
    public bool IsEngine => Side != MessageSide.None;
}
