using System.Globalization;
using System.Runtime.CompilerServices;
using System.Text;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Sources.Formats;
using BackupXe.Sources.XeEvents;

namespace BackupXe.Sources.Errorlog;

/// <summary>
/// A SQL Server ERRORLOG written with trace flags 3004/3014/3213/3605, raw (UTF-16LE with BOM) or as a
/// <c>sp_readerrorlog</c> / SSMS export (UTF-8, tab- or space-separated <c>LogDate ProcessInfo Text</c>).
/// Every message becomes a <see cref="ProgressTraceEvent"/> with <see cref="ProgressTraceEvent.Kind"/> and
/// <see cref="ProgressTraceEvent.DatabaseName"/> null: the message text, prefix and all, decides those.
/// </summary>
/// <remarks>
/// A line with no timestamp continues the message above it and is appended after a <c>'\n'</c>, so the
/// first line of a message stays intact for the message parser and the continuation is still kept.
/// Lines and messages are bounded (<see cref="BoundedLineReader.MaxLineChars"/>, <see cref="MaxMessageChars"/>)
/// and built in one buffer, so time is linear and memory flat whatever the file holds.
/// </remarks>
internal sealed class ErrorlogEventSource : ISynchronousTraceEventSource, IXeEventSource
{
    /// <summary>The longest message kept, continuation lines included; the rest is counted and dropped.</summary>
    public const int MaxMessageChars = BoundedLineReader.MaxLineChars;

    private const char ContinuationSeparator = '\n';

    private const int ReadBufferBytes = 64 * 1024;

    private readonly Func<Stream> _open;
    private readonly Encoding _encodingWithoutBom;

    /// <summary>Reads the file at <paramref name="path"/>; a BOM decides the encoding, UTF-8 without one.</summary>
    public ErrorlogEventSource(string path)
        : this(path, () => InputFile.OpenRead(path), null)
    {
    }

    /// <param name="name">What the user named, reported as <see cref="Name"/>.</param>
    /// <param name="open">Opens the content; called once per read.</param>
    /// <param name="encodingWithoutBom">Used when the content has no BOM; UTF-8 when null.</param>
    public ErrorlogEventSource(string name, Func<Stream> open, Encoding? encodingWithoutBom)
    {
        Name = name;
        _open = open;
        _encodingWithoutBom = encodingWithoutBom ?? new UTF8Encoding(encoderShouldEmitUTF8Identifier: false);
    }

    public string Name { get; }

    public string Format => "errorlog";

    public IAsyncEnumerable<TraceEvent> ReadEventsAsync(SourceStatus status, CancellationToken cancellationToken)
        => ReadEvents(status, cancellationToken).ToAsyncEnumerable();

    /// <summary>
    /// The same events without awaiting: a file or pipe has its next block ready nearly every time, and for a
    /// single input the analysis then skips the per-event async machinery (docs/performance.md).
    /// </summary>
    public IEnumerable<TraceEvent> ReadEvents(SourceStatus status, CancellationToken cancellationToken)
    {
        var blocks = Open(status);
        if (blocks is null)
        {
            yield break;
        }

        using (blocks)
        {
            var reader = new BoundedLineReader(blocks);
            var message = new PendingMessage();
            var lastLine = new ErrorlogLine.LastLine();
            var lineNumber = 0;
            var messages = 0L;
            var tableRows = false;
            var dateOrder = new ErrorlogTableRow.DateOrder();

            // Until the first timestamped line: messages quoted without their columns (a page, a post), read by content.
            BareMessages? bare = new();
            while (TryReadLine(reader, status, lineNumber + 1, cancellationToken, out var line))
            {
                lineNumber++;
                if (reader.Truncated)
                {
                    status.Report(
                        $"line {lineNumber}",
                        BoundedLineReader.CutProblem(reader.LastLineLength));
                }

                if (!reader.LastLineIsPrintableAscii && ErrorlogLine.LooksBinary(line))
                {
                    status.Report($"line {lineNumber}", "binary, control or undecodable characters (U+FFFD), not ERRORLOG text; line skipped");
                    continue;
                }

                // A collector's prefix (docker logs -t, journald) before the line: peeled, and the line read as it would be
                // bare. Looked for only on a line that does not open a message itself, so a plain log pays nothing for it.
                var opens = ErrorlogLine.TryParse(line, lastLine, out var parsed);
                if (!opens && LogLinePrefix.Length(line) is > 0 and var collected)
                {
                    line = line[collected..];
                    opens = ErrorlogLine.TryParse(line, lastLine, out parsed);
                }

                if (opens)
                {
                    // The messages quoted before the first timestamp end here; no timestamped one is open before them.
                    var quotedBefore = bare is null ? null : Quoted(bare.Finish(), status).ToList();
                    bare = null;

                    // The line lives in the reader's buffer until the next read: start the new message from it
                    // before handing on the one it ends.
                    var ready = message.Take(status);
                    message.Start(parsed, line, lineNumber);
                    // Not `quotedBefore ?? []`: that made an empty list for every line that opens a message.
                    if (quotedBefore is not null)
                    {
                        foreach (var quoted in quotedBefore)
                        {
                            messages++;
                            yield return quoted;
                        }
                    }

                    if (ready is not null)
                    {
                        messages++;
                        status.Events++;
                        yield return ready;
                    }

                    continue;
                }

                if (line.Length == 0 || IsExportDecoration(line))
                {
                    if (bare is not null && line.Trim().Length == 0)
                    {
                        foreach (var quoted in Quoted(bare.Finish(), status))
                        {
                            messages++;
                            yield return quoted;
                        }
                    }

                    continue;
                }

                // A Get-DbaErrorLog table has no raw timestamp on any line: once one is seen, no line is a row.
                if (!message.AnyStarted || tableRows)
                {
                    var row = line.ToString();
                    if (ErrorlogTableRow.TryParse(row, dateOrder, out var tableLine, out var textEnd, out var rowProblem))
                    {
                        if (bare is not null)
                        {
                            foreach (var quoted in Quoted(bare.Finish(), status))
                            {
                                messages++;
                                yield return quoted;
                            }

                            bare = null;
                        }

                        tableRows = true;
                        if (rowProblem is not null)
                        {
                            status.Report($"line {lineNumber}", rowProblem);
                            continue;
                        }

                        var ready = message.Take(status);
                        message.Start(tableLine, row.AsSpan(0, textEnd), lineNumber);
                        if (ready is not null)
                        {
                            messages++;
                            status.Events++;
                            yield return ready;
                        }

                        continue;
                    }
                }

                if (ErrorlogLine.HasTimestampShape(line))
                {
                    // A damaged stamp on a sound line (its text may be the completion line): the message is kept, at the
                    // time of the line before, since the log is written in time order.
                    if (message.LastTimestamp is { } before && Repaired(line, before) is { } repaired)
                    {
                        status.Report($"line {lineNumber}", string.Create(
                            CultureInfo.InvariantCulture,
                            $"'{line[..19]}' is not a valid date and time; read at the time of the line before ({before:yyyy-MM-dd HH:mm:ss.ff})"));
                        var ready = message.Take(status);
                        message.Start(repaired, line, lineNumber);
                        if (ready is not null)
                        {
                            messages++;
                            status.Events++;
                            yield return ready;
                        }
                    }
                    else
                    {
                        status.Report($"line {lineNumber}", $"'{line[..19]}' is not a valid date and time; line skipped");
                    }

                    continue;
                }

                // A client's line in the same stream (docker logs interleaves the ERRORLOG with an entry script's sqlcmd
                // output): an engine message by its content, never glued to the ERRORLOG message above it.
                if (message.AnyStarted && !tableRows && message.ClientLine(line, out var client))
                {
                    var ready = message.Take(status);
                    if (ready is not null)
                    {
                        messages++;
                        status.Events++;
                        yield return ready;
                    }

                    if (client is not null)
                    {
                        messages++;
                        status.Events++;
                        yield return client;
                    }

                    continue;
                }

                if (!message.IsOpen)
                {
                    if (bare is not null && !message.AnyStarted)
                    {
                        // Judged by content once its message ends: the engine's, read without a clock, or text to skip.
                        foreach (var quoted in Quoted(bare.Add(line.ToString(), lineNumber), status))
                        {
                            messages++;
                            yield return quoted;
                        }
                    }

                    // Between messages after a client's line: more of the client's own text, not the ERRORLOG's.
                    continue;
                }

                if (!reader.LastLineEnded && ErrorlogLine.IsCutTimestamp(line))
                {
                    status.Report($"line {lineNumber}", $"the input ends inside this line ('{line}', the start of a timestamp): the file was cut; line skipped");
                    continue;
                }

                message.Continue(line);
            }

            if (bare is not null)
            {
                foreach (var quoted in Quoted(bare.Finish(), status))
                {
                    messages++;
                    yield return quoted;
                }
            }

            if (message.Take(status) is { } last)
            {
                messages++;
                status.Events++;
                yield return last;
            }

            if (messages == 0 && !message.AnyStarted)
            {
                status.Unusable = true;
                status.Report("file", "no timestamped ERRORLOG line found");
            }
        }
    }

    /// <summary>
    /// ERRORLOG messages quoted without their date and process columns: the engine's as events without a clock (the
    /// page kept no time, so none is made up), and any other text skipped with its lines named.
    /// </summary>
    private static IEnumerable<ProgressTraceEvent> Quoted(IReadOnlyList<BareMessage> ended, SourceStatus status)
    {
        foreach (var quoted in ended)
        {
            if (!quoted.IsEngine)
            {
                for (var i = 0; i < quoted.Lines; i++)
                {
                    status.Report(string.Create(CultureInfo.InvariantCulture, $"line {quoted.Line + i}"), "text before the first timestamped line; line skipped");
                }

                continue;
            }

            if (quoted.Parsed.Message is ImplausibleValue implausible)
            {
                status.Report(string.Create(CultureInfo.InvariantCulture, $"line {quoted.Line}"), $"{implausible.Reason}; message skipped");
                continue;
            }

            status.Events++;
            yield return new ProgressTraceEvent(TraceEvent.NoClock, null, kind: null, databaseName: null, new ParsedText(quoted.Text, quoted.Parsed));
        }
    }

    /// <summary>
    /// Each message as an event named <c>errorlog_message</c> (package <c>errorlog</c>) with the fields
    /// <c>spid</c> (absent for Backup, Server, Logon lines) and <c>text</c>, so an ERRORLOG lists like any other input.
    /// </summary>
    public async IAsyncEnumerable<XeEvent> ReadXeEventsAsync(
        SourceStatus status,
        [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        await foreach (var traceEvent in ReadEventsAsync(status, cancellationToken).ConfigureAwait(false))
        {
            var message = (ProgressTraceEvent)traceEvent;
            List<XeValue> fields = message.SessionId is { } spid
                ? [new XeValue("spid", "errorlog", "int32", (long)spid), new XeValue("text", "errorlog", "unicode_string", message.Message)]
                : [new XeValue("text", "errorlog", "unicode_string", message.Message)];
            yield return new XeEvent("errorlog_message", "errorlog", message.Timestamp, fields, []);
        }
    }

    // The columns of a line whose stamp is damaged, read as if it carried `before`; null when they cannot be read either.
    private static ErrorlogLine? Repaired(ReadOnlySpan<char> line, DateTime before)
    {
        const int StampChars = 19;
        Span<char> copy = line.Length <= 1024 ? stackalloc char[line.Length] : new char[line.Length];
        line.CopyTo(copy);
        if (!before.TryFormat(copy[..StampChars], out var written, "yyyy-MM-dd HH:mm:ss", CultureInfo.InvariantCulture) || written != StampChars)
        {
            return null;
        }

        return ErrorlogLine.TryParse(copy, null, out var parsed) ? parsed with { Timestamp = before } : null;
    }

    /// <summary>Every message has the same two fields (<see cref="ReadXeEventsAsync"/>): nothing needs reading.</summary>
    public void AddNames(XeNames names, CancellationToken cancellationToken)
    {
        names.AddField("spid");
        names.AddField("text");
        try
        {
            // The source was opened to be read once; this use ends it, so its file is closed now rather than when collected.
            _open().Dispose();
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or InvalidOperationException)
        {
        }
    }

    // sp_readerrorlog results saved from SSMS carry a header row, a dashed underline (text mode) and a row count.
    private static bool IsExportDecoration(ReadOnlySpan<char> line)
    {
        var trimmed = line.Trim();
        return trimmed.Length == 0
            || trimmed.StartsWith("LogDate", StringComparison.OrdinalIgnoreCase)
            || ErrorlogTableRow.IsHeading(trimmed)
            || trimmed.TrimStart("- \t").Length == 0
            || (trimmed.StartsWith('(') && trimmed.EndsWith("affected)", StringComparison.OrdinalIgnoreCase));
    }

    private CharBlocks? Open(SourceStatus status)
        => TextInput.Opened(status, () => CharBlocks.Open(AppendedUtf8Stream.Over(_open(), _encodingWithoutBom, status), _encodingWithoutBom, ReadBufferBytes));

    private static bool TryReadLine(
        BoundedLineReader reader, SourceStatus status, int lineNumber, CancellationToken cancellationToken, out ReadOnlySpan<char> line)
    {
        try
        {
            cancellationToken.ThrowIfCancellationRequested();
            return reader.ReadLine(out line);
        }
        catch (IOException e)
        {
            status.Report($"line {lineNumber}", $"reading stopped: {e.Message}");
            line = default;
            return false;
        }
    }

    /// <summary>
    /// The message being gathered: its first line and its continuation lines in one reused buffer, so that
    /// 80,000 continuation lines cost 80,000 appends, not 80,000 copies of a growing string.
    /// </summary>
    private sealed class PendingMessage
    {
        // One parser per read: its per-stream context (the last "Backup(db):" prefix) stays with this log.
        private readonly TraceMessageParser _parser = new();

        // The text in a reused array rather than a StringBuilder: one copy in, one string out, no chunks.
        private char[] _text = new char[256];
        private int _length;
        private ErrorlogLine _line;
        private int _lineNumber;
        private long _dropped;

        public bool IsOpen { get; private set; }

        /// <summary>The time of the last message started, whether or not it is still open.</summary>
        public DateTime? LastTimestamp => AnyStarted ? _line.Timestamp : null;

        public bool AnyStarted { get; private set; }

        public void Start(ErrorlogLine line, ReadOnlySpan<char> text, int lineNumber)
        {
            _line = line;
            _lineNumber = lineNumber;
            _dropped = 0;
            _length = 0;
            Append(text[Math.Min(line.TextStart, text.Length)..]);
            IsOpen = AnyStarted = true;
        }

        // "Msg 3201, Level 16, State 1, Line 1" of a client in the stream, waiting for its text on the next line.
        private EngineError? _clientHeader;

        /// <summary>
        /// True when <paramref name="line"/>, which has no ERRORLOG timestamp, is a client's engine message (sqlcmd's
        /// percent, per-file pages, completion, Msg lines) rather than the rest of the message above; <paramref name="client"/>
        /// is its event, null while an error header waits for its text.
        /// </summary>
        public bool ClientLine(ReadOnlySpan<char> line, out ProgressTraceEvent? client)
        {
            client = null;
            var text = line.Trim();
            if (text.IsEmpty || !MayBeClientLine(text) && _clientHeader is null)
            {
                return false;
            }

            var at = _line.Timestamp;
            if (_clientHeader is { } header)
            {
                _clientHeader = null;
                var error = header with { Text = text.ToString() };
                var failed = _parser.Parse(error.Text).Message as OperationFailed;
                client = failed is { Kind: not null }
                    ? new ProgressTraceEvent(at, null, kind: null, databaseName: null, new ParsedText(error.Text, new ParsedTraceMessage(null, failed)))
                    : new ProgressTraceEvent(at, null, kind: null, databaseName: null, new ParsedText(error.Joined(), new ParsedTraceMessage(null, error)));
                return true;
            }

            var parsed = _parser.Parse(text.ToString());
            switch (parsed.Message)
            {
                case EngineError { Text: null } opening:
                    _clientHeader = opening;
                    return true;
                case PercentReached or FilePagesProcessed or CompletionSummary or EngineError or DatabaseUpgrade or OperationFailed { Kind: not null }:
                    client = new ProgressTraceEvent(at, null, kind: null, databaseName: null, new ParsedText(text.ToString(), parsed));
                    return true;
                default:
                    return false;
            }
        }

        // The openings of the client's engine messages: anything else is read as the ERRORLOG message's next line without
        // a parse (a continuation is most often a banner's or a stack's text).
        private static bool MayBeClientLine(ReadOnlySpan<char> text)
            => char.IsAsciiDigit(text[0]) || text.StartsWith("Processed ", StringComparison.Ordinal) || text.StartsWith("Msg ", StringComparison.Ordinal)
                || text.StartsWith("BACKUP ", StringComparison.Ordinal) || text.StartsWith("RESTORE ", StringComparison.Ordinal)
                || text.StartsWith("Converting database ", StringComparison.Ordinal) || text.StartsWith("Database '", StringComparison.Ordinal);

        public void Continue(ReadOnlySpan<char> line)
        {
            if (_length + 1 + line.Length > MaxMessageChars)
            {
                _dropped += line.Length + 1;
                return;
            }

            Append([ContinuationSeparator]);
            Append(line);
        }

        private void Append(ReadOnlySpan<char> chars)
        {
            if (_length + chars.Length > _text.Length)
            {
                Array.Resize(ref _text, Math.Max(_text.Length * 2, _length + chars.Length));
            }

            chars.CopyTo(_text.AsSpan(_length));
            _length += chars.Length;
        }

        /// <summary>The finished message as an event, or null when none is open or its numbers are impossible.</summary>
        public ProgressTraceEvent? Take(SourceStatus status)
        {
            if (!IsOpen)
            {
                return null;
            }

            IsOpen = false;
            if (_dropped > 0)
            {
                status.Report($"line {_lineNumber}", $"message longer than {MaxMessageChars} characters; {_dropped} characters of continuation lines dropped");
            }

            // A progress line in the server's own wording, two in three lines of a 3014 log, is read off the buffer
            // and its text is only written back if something asks for it.
            if (_parser.TryServerProgress(_text.AsSpan(0, _length), _line.Timestamp, _line.SessionId, out var progress))
            {
                return progress;
            }

            var text = new string(_text, 0, _length);

            // The banner a server writes first on each start (@@VERSION's text): which server this log is of.
            if (_line.SessionId is null && text.StartsWith(ServerVersion.BannerStart, StringComparison.Ordinal) && status.Server?.Build is null)
            {
                status.Server = ServerVersion.FromBanner(text, $"the ERRORLOG's version banner, line {_lineNumber}");
            }

            // Parsed here, where the line is known, so that a number SQL Server cannot write (an elapsed time of
            // 1e12 s) is reported with its place and dropped with its message; the correlator reuses the result.
            var parsed = _parser.Parse(text);
            if (parsed.Message is ImplausibleValue implausible)
            {
                status.Report($"line {_lineNumber}", $"{implausible.Reason}; message skipped");
                return null;
            }

            if (parsed.Message is DatabaseUpgrade { IsStep: false } upgrade && status.Server is null)
            {
                status.Server = ServerVersion.FromDatabaseVersion(upgrade.ToVersion, $"line {_lineNumber}");
            }

            return new ProgressTraceEvent(_line.Timestamp, _line.SessionId, kind: null, databaseName: null, new ParsedText(text, parsed));
        }
    }
}
