using System.Globalization;
using System.Text;
using System.Xml;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;

namespace BackupXe.Sources.XeXml;

/// <summary>What reading the next <c>&lt;event&gt;</c> gave.</summary>
internal enum XeReadOutcome
{
    /// <summary>An event to analyse.</summary>
    Event,

    /// <summary>A well-formed event BackupXe does not analyse (wait_info at opcode Begin): counted only.</summary>
    NotAnalysed,

    /// <summary>An event missing a required field: reported and skipped.</summary>
    Invalid,

    /// <summary>No more events.</summary>
    End,

    /// <summary>The XML is damaged: reported, and nothing after it can be trusted.</summary>
    Broken,
}

/// <summary>
/// Walks an XmlReader from one <c>&lt;event&gt;</c> element to the next, wherever they sit in the tree, and maps
/// each to a <see cref="TraceEvent"/>. The only place XE XML shapes are known.
/// </summary>
internal sealed class XeEventParser
{
    private readonly XmlReader _reader;
    private readonly XeEventFields _fields = new();
    private readonly TraceMessageParser _parser = new();

    // Element names atomized once so that each node is matched by reference, not by comparing characters.
    private readonly object _event;
    private readonly object _data;
    private readonly object _action;
    private readonly object _value;
    private readonly object _text;

    // A trace message is a line of text and a database name at most 128 characters; 64 K characters leaves room
    // for any path while keeping a 200 MB field from becoming a 400 MB string.
    internal const int MaxFieldChars = 65_536;

    private readonly StringBuilder _content = new();
    private readonly char[] _chunk = new char[4096];

    private bool _started;

    // The event's end tag is consumed lazily, by the next search: a damaged byte right after a complete event
    // then breaks the search for the next one, not the event already read.
    private bool _afterEvent;
    private bool _truncated;

    public XeEventParser(XmlReader reader)
    {
        _reader = reader;
        var names = reader.NameTable;
        _event = names.Add("event");
        _data = names.Add("data");
        _action = names.Add("action");
        _value = names.Add("value");
        _text = names.Add("text");
    }

    public XeReadOutcome ReadNext(SourceStatus status, out TraceEvent? traceEvent)
    {
        traceEvent = null;
        try
        {
            return MoveToNextEvent() ? ReadEvent(status, out traceEvent) : XeReadOutcome.End;
        }
        catch (XmlException e)
        {
            var (line, position) = e.LineNumber > 0 ? (e.LineNumber, e.LinePosition) : CurrentPosition();
            status.Report($"line {line}, position {position}", $"{e.Message} Reading of this input stopped here.");
            return XeReadOutcome.Broken;
        }
    }

    private bool MoveToNextEvent()
    {
        if (!_started)
        {
            _started = true;
            _reader.Read();
        }

        if (_afterEvent)
        {
            _afterEvent = false;
            _reader.Read();
        }

        while (!_reader.EOF)
        {
            if (_reader.NodeType == XmlNodeType.Element && ReferenceEquals(_reader.LocalName, _event))
            {
                return true;
            }

            _reader.Read();
        }

        return false;
    }

    private XeReadOutcome ReadEvent(SourceStatus status, out TraceEvent? traceEvent)
    {
        var (line, _) = CurrentPosition();
        var name = _reader.GetAttribute("name");
        var timestampText = _reader.GetAttribute("timestamp");
        _fields.Clear();
        _truncated = false;
        ReadFields();

        traceEvent = null;
        if (string.IsNullOrEmpty(name))
        {
            status.Report($"line {line}", "event has no name attribute; event skipped");
            return XeReadOutcome.Invalid;
        }

        if (!TryParseUtc(timestampText, out var timestamp))
        {
            status.Report($"line {line}", $"{name} event has no valid timestamp attribute; event skipped");
            return XeReadOutcome.Invalid;
        }

        if (!ServerRanges.IsTimestamp(timestamp))
        {
            status.Report($"line {line}", $"{name} event timestamp {timestampText} is outside what SQL Server writes; event skipped");
            return XeReadOutcome.Invalid;
        }

        if (_truncated)
        {
            status.Report($"line {line}", $"{name} event has a field longer than {MaxFieldChars} characters; kept truncated");
        }

        if (!TryRange(_fields.SessionId, 0, ServerRanges.MaxSessionId, out var session))
        {
            return OutOfRange(status, line, name, "session_id", _fields.SessionId);
        }

        var sessionId = (int?)session;
        switch (name)
        {
            case "backup_restore_progress_trace":
                if (_fields.TraceMessage is null)
                {
                    return Missing(status, line, name, "trace_message");
                }

                // Parsed here, where the line is known, so that a number SQL Server cannot write is reported
                // with its place; the correlator reuses the result.
                var parsed = _parser.Parse(_fields.TraceMessage);
                if (parsed.Message is ImplausibleValue implausible)
                {
                    status.Report($"line {line}", $"{implausible.Reason}; event skipped");
                    return XeReadOutcome.Invalid;
                }

                traceEvent = new ProgressTraceEvent(
                    timestamp,
                    sessionId,
                    _fields.OperationKind,
                    _fields.DatabaseName,
                    _fields.TraceMessage,
                    ParseInt(_fields.TraceLevel))
                {
                    Parsed = parsed,
                };
                return XeReadOutcome.Event;

            case "wait_info":
            case "wait_info_external":
                // Duration is only filled on End; a Begin is half of a wait that its End reports whole.
                if (_fields.IsBeginOpcode)
                {
                    return XeReadOutcome.NotAnalysed;
                }

                if (string.IsNullOrEmpty(_fields.WaitType))
                {
                    return Missing(status, line, name, "wait_type name (<text>)");
                }

                if (_fields.Duration is null)
                {
                    return Missing(status, line, name, "duration");
                }

                if (!TryRange(_fields.Duration, 0, ServerRanges.MaxDurationMs, out var duration) || duration is null)
                {
                    return OutOfRange(status, line, name, "duration", _fields.Duration);
                }

                if (!TryRange(_fields.SignalDuration, 0, ServerRanges.MaxDurationMs, out var signal))
                {
                    return OutOfRange(status, line, name, "signal_duration", _fields.SignalDuration);
                }

                traceEvent = new WaitEvent(
                    timestamp,
                    sessionId,
                    _fields.WaitType,
                    duration.Value,
                    signal ?? 0,
                    IsExternal: name == "wait_info_external");
                return XeReadOutcome.Event;

            // Both spellings are seen in the wild (domain.md section 2).
            case "databases_backup_restore_throughput":
            case "database_backup_restore_throughput":
                if (_fields.Count is null)
                {
                    return Missing(status, line, name, "count");
                }

                if (_fields.Increment is null)
                {
                    return Missing(status, line, name, "increment");
                }

                if (!TryRange(_fields.Count, 0, ServerRanges.MaxBytes, out var count) || count is null)
                {
                    return OutOfRange(status, line, name, "count", _fields.Count);
                }

                if (!TryRange(_fields.Increment, 0, ServerRanges.MaxBytes, out var increment) || increment is null)
                {
                    return OutOfRange(status, line, name, "increment", _fields.Increment);
                }

                traceEvent = new ThroughputEvent(timestamp, sessionId, ParseInt(_fields.DatabaseId), count.Value, increment.Value);
                return XeReadOutcome.Event;

            default:
                traceEvent = new OtherEvent(timestamp, sessionId, name);
                return XeReadOutcome.Event;
        }
    }

    private static XeReadOutcome Missing(SourceStatus status, int line, string eventName, string field)
    {
        status.Report($"line {line}", $"{eventName} event has no {field}; event skipped");
        return XeReadOutcome.Invalid;
    }

    private static XeReadOutcome OutOfRange(SourceStatus status, int line, string eventName, string field, string? value)
    {
        var shown = value is { Length: > 40 } ? value[..40] + "..." : value;
        status.Report($"line {line}", $"{eventName} event has {field} '{shown}', not a value SQL Server writes; event skipped");
        return XeReadOutcome.Invalid;
    }

    /// <summary>
    /// True when <paramref name="text"/> is absent (value null) or an integer in [min, max]; false for anything
    /// else, including a negative duration or a number too long for a long.
    /// </summary>
    private static bool TryRange(string? text, long min, long max, out long? value)
    {
        value = null;
        if (text is null)
        {
            return true;
        }

        if (!long.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out var parsed) || parsed < min || parsed > max)
        {
            return false;
        }

        value = parsed;
        return true;
    }

    /// <summary>Reads the event's data and action children; the next search steps past the event's end tag.</summary>
    private void ReadFields()
    {
        _afterEvent = true;
        if (_reader.IsEmptyElement)
        {
            return;
        }

        var depth = _reader.Depth;
        _reader.Read();
        while (_reader.Depth > depth)
        {
            if (_reader.NodeType != XmlNodeType.Element)
            {
                _reader.Read();
                continue;
            }

            var element = _reader.LocalName;
            var field = ReferenceEquals(element, _data) || ReferenceEquals(element, _action)
                ? XeEventFields.Classify(_reader.GetAttribute("name"))
                : XeField.None;
            if (field == XeField.None || _reader.IsEmptyElement)
            {
                _reader.Skip();
                continue;
            }

            ReadField(field);
        }
    }

    private void ReadField(XeField field)
    {
        var depth = _reader.Depth;
        string? value = null;
        string? text = null;
        _reader.Read();
        while (_reader.Depth > depth)
        {
            if (_reader.NodeType != XmlNodeType.Element)
            {
                _reader.Read();
            }
            else if (ReferenceEquals(_reader.LocalName, _value))
            {
                value = ReadContent();
            }
            else if (ReferenceEquals(_reader.LocalName, _text))
            {
                text = ReadContent();
            }
            else
            {
                _reader.Skip();
            }
        }

        _reader.Read();
        _fields.Set(field, value, text);
    }

    /// <summary>The text of the current element, CDATA included; leaves the reader after its end tag.</summary>
    private string ReadContent()
    {
        if (_reader.IsEmptyElement)
        {
            _reader.Read();
            return string.Empty;
        }

        var depth = _reader.Depth;
        string? single = null;
        var nodes = 0;
        _content.Clear();
        _reader.Read();
        while (_reader.Depth > depth)
        {
            switch (_reader.NodeType)
            {
                case XmlNodeType.Text:
                case XmlNodeType.CDATA:
                case XmlNodeType.SignificantWhitespace:
                case XmlNodeType.Whitespace:
                    // Almost always one short node, taken as is. Alternating text and CDATA, or a huge node, go
                    // through one bounded builder: linear in the input, at most MaxFieldChars kept.
                    nodes++;
                    if (nodes == 1 && _reader.CanReadValueChunk is false)
                    {
                        single = _reader.Value;
                        _reader.Read();
                        break;
                    }

                    AppendChunks();
                    _reader.Read();
                    break;
                case XmlNodeType.Element:
                    _reader.Skip();
                    break;
                default:
                    _reader.Read();
                    break;
            }
        }

        _reader.Read();
        if (single is not null)
        {
            _content.Insert(0, single);
        }

        if (_content.Length > MaxFieldChars)
        {
            _content.Length = MaxFieldChars;
            _truncated = true;
        }

        return _content.ToString();
    }

    private void AppendChunks()
    {
        int read;
        while ((read = _reader.ReadValueChunk(_chunk, 0, _chunk.Length)) > 0)
        {
            var room = MaxFieldChars + 1 - _content.Length;
            if (room > 0)
            {
                _content.Append(_chunk, 0, Math.Min(room, read));
            }
        }
    }

    private (int Line, int Position) CurrentPosition() =>
        _reader is IXmlLineInfo info && info.HasLineInfo() ? (info.LineNumber, info.LinePosition) : (0, 0);

    private static bool TryParseUtc(string? text, out DateTime timestamp) =>
        DateTime.TryParse(
            text,
            CultureInfo.InvariantCulture,
            DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal,
            out timestamp);

    private static int? ParseInt(string? text) =>
        int.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out var value) ? value : null;

    private static long? ParseLong(string? text) =>
        long.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out var value) ? value : null;
}
