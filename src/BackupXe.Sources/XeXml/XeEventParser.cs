using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using System.Text;
using System.Xml;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Sources.XeEvents;

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

    // One parser per read: its per-stream context (the last "Backup(db):" prefix) stays with this input.
    private readonly TraceMessageParser _parser = new();

    // Element names atomized once so that each node is matched by reference, not by comparing characters.
    private readonly object _event;
    private readonly object _data;
    private readonly object _action;
    private readonly object _value;
    private readonly object _text;
    private readonly object _type;
    private readonly object _name;
    private readonly object _timestamp;

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
        _type = names.Add("type");
        _name = names.Add("name");
        _timestamp = names.Add("timestamp");
    }

    public XeReadOutcome ReadNext(SourceStatus status, out TraceEvent? traceEvent) => Read(status, whole: false, out traceEvent, out _);

    /// <summary>
    /// Reads the next event with every data field and action kept (for <c>backupxe events</c>), instead of only the
    /// fields BackupXe analyses. Not on the analysis path, so it may allocate what it lists.
    /// </summary>
    public XeReadOutcome ReadNextWhole(SourceStatus status, out XeEvent? xeEvent) => Read(status, whole: true, out _, out xeEvent);

    private XeReadOutcome Read(SourceStatus status, bool whole, out TraceEvent? traceEvent, out XeEvent? xeEvent)
    {
        traceEvent = null;
        xeEvent = null;
        try
        {
            if (!MoveToNextEvent())
            {
                return XeReadOutcome.End;
            }

            return whole ? ReadWholeEvent(status, out xeEvent) : ReadEvent(status, out traceEvent);
        }
        catch (XmlException e)
        {
            var (line, position) = e.LineNumber > 0 ? (e.LineNumber, e.LinePosition) : CurrentPosition();
            status.Report($"line {line}, position {position}", $"{e.Message} Reading of this input stopped here.");
            return XeReadOutcome.Broken;
        }
    }

    private XeReadOutcome ReadWholeEvent(SourceStatus status, out XeEvent? xeEvent)
    {
        xeEvent = null;
        var (line, _) = CurrentPosition();
        var name = _reader.GetAttribute("name");
        var package = _reader.GetAttribute("package") ?? string.Empty;
        var timestampText = _reader.GetAttribute("timestamp");
        var fields = new List<XeValue>();
        var actions = new List<XeValue>();
        _afterEvent = true;
        if (!_reader.IsEmptyElement)
        {
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
                var isData = ReferenceEquals(element, _data);
                if (!isData && !ReferenceEquals(element, _action))
                {
                    _reader.Skip();
                    continue;
                }

                var item = ReadWholeItem(isData ? package : null);
                (isData ? fields : actions).Add(item);
            }
        }

        if (!HasNameAndTime(status, line, name, timestampText, out var timestamp))
        {
            return XeReadOutcome.Invalid;
        }

        xeEvent = new XeEvent(name!, package, timestamp, fields, actions);
        return XeReadOutcome.Event;
    }

    /// <param name="eventPackage">For a data field, the event's package; null for an action, which names its own.</param>
    private XeValue ReadWholeItem(string? eventPackage)
    {
        var name = _reader.GetAttribute("name") ?? string.Empty;
        var package = eventPackage ?? _reader.GetAttribute("package") ?? string.Empty;
        var type = string.Empty;
        if (_reader.IsEmptyElement)
        {
            _reader.Read();
            return new XeValue(name, package, type, null);
        }

        var (value, text) = ReadValueAndText(wantType: true, ref type);
        return new XeValue(name, package, type, value, text);
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
        var name = Attribute(_name, out var timestampText);
        _fields.Clear();
        _truncated = false;
        ReadFields();

        traceEvent = null;
        if (!HasNameAndTime(status, line, name, timestampText, out var timestamp))
        {
            return XeReadOutcome.Invalid;
        }

        if (_truncated)
        {
            status.Report($"line {line}", $"{name} event has a field longer than {MaxFieldChars} characters; kept truncated");
        }

        switch (XeEventMapping.Map(name, timestamp, _fields, _parser, out traceEvent, out var problem))
        {
            case XeMappingOutcome.Event:
                return XeReadOutcome.Event;
            case XeMappingOutcome.NotAnalysed:
                return XeReadOutcome.NotAnalysed;
            default:
                status.Report($"line {line}", problem!);
                return XeReadOutcome.Invalid;
        }
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
                ? XeEventFields.Classify(Attribute(_name, out _))
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
        var unusedType = string.Empty;
        var (value, text) = ReadValueAndText(wantType: false, ref unusedType);
        _fields.Set(field, value, text);
    }

    /// <summary>
    /// The <c>&lt;value&gt;</c> and <c>&lt;text&gt;</c> of the current data or action element (and its type's name
    /// when <paramref name="wantType"/>); leaves the reader after the element's end tag.
    /// </summary>
    private (string? Value, string? Text) ReadValueAndText(bool wantType, ref string type)
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
            else if (wantType && ReferenceEquals(_reader.LocalName, _type))
            {
                type = _reader.GetAttribute("name") ?? string.Empty;
                _reader.Skip();
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
        return (value, text);
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
                    if (nodes == 1)
                    {
                        single = _reader.CanReadValueChunk ? ReadShortValue() : _reader.Value;
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
            if (_content.Length == 0 && single.Length <= MaxFieldChars)
            {
                return single;
            }

            _content.Insert(0, single);
        }

        if (_content.Length > MaxFieldChars)
        {
            _content.Length = MaxFieldChars;
            _truncated = true;
        }

        return _content.ToString();
    }

    /// <summary>
    /// The current text node as one string when it fits the chunk buffer (nearly every value: a number, a name, a
    /// line of text), copied once; otherwise null, with the node in the bounded builder.
    /// </summary>
    private string? ReadShortValue()
    {
        var length = 0;
        int read;
        while (length < _chunk.Length && (read = _reader.ReadValueChunk(_chunk, length, _chunk.Length - length)) > 0)
        {
            length += read;
        }

        if (length < _chunk.Length)
        {
            return new string(_chunk, 0, length);
        }

        _content.Append(_chunk, 0, length);
        AppendChunks();
        return null;
    }

    /// <summary>
    /// The current element's <c>name</c> attribute (or another, by its atom) and, for an event, its <c>timestamp</c>:
    /// GetAttribute(string) hashes the name into the name table on every call; atoms compare by reference.
    /// </summary>
    private string? Attribute(object atom, out string? timestamp)
    {
        string? value = null;
        timestamp = null;
        if (_reader.MoveToFirstAttribute())
        {
            do
            {
                if (_reader.Prefix.Length != 0)
                {
                    continue;
                }

                var local = _reader.LocalName;
                if (ReferenceEquals(local, atom))
                {
                    value = _reader.Value;
                }
                else if (ReferenceEquals(local, _timestamp))
                {
                    timestamp = _reader.Value;
                }
            }
            while (_reader.MoveToNextAttribute());

            _reader.MoveToElement();
        }

        return value;
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

    private static bool HasNameAndTime(SourceStatus status, int line, [NotNullWhen(true)] string? name, string? timestampText, out DateTime timestamp)
    {
        timestamp = default;
        if (string.IsNullOrEmpty(name))
        {
            status.Report($"line {line}", "event has no name attribute; event skipped");
            return false;
        }

        if (!TryParseUtc(timestampText, out timestamp))
        {
            status.Report($"line {line}", $"{name} event has no valid timestamp attribute; event skipped");
            return false;
        }

        return true;
    }

    private static bool TryParseUtc(string? text, out DateTime timestamp) =>
        TryParseRoundTrip(text, out timestamp)
        || DateTime.TryParse(
            text,
            CultureInfo.InvariantCulture,
            DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal,
            out timestamp);

    /// <summary>
    /// The shape the server writes, <c>2024-06-01T00:00:00.123Z</c> (up to 7 fraction digits), read directly;
    /// anything else goes to <see cref="DateTime.TryParse(string, IFormatProvider, DateTimeStyles, out DateTime)"/>,
    /// which gives the same value for this shape at several times the cost (3 % of an XE XML run).
    /// </summary>
    internal static bool TryParseRoundTrip(ReadOnlySpan<char> s, out DateTime timestamp)
    {
        timestamp = default;
        if (s.Length < 20 || s[^1] != 'Z' || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':'
            || !Digits(s, 0, 4, out var year) || !Digits(s, 5, 2, out var month) || !Digits(s, 8, 2, out var day)
            || !Digits(s, 11, 2, out var hour) || !Digits(s, 14, 2, out var minute) || !Digits(s, 17, 2, out var second)
            || year < 1 || month is < 1 or > 12 || day < 1 || day > DateTime.DaysInMonth(year, month)
            || hour > 23 || minute > 59 || second > 59)
        {
            return false;
        }

        long ticks = 0;
        var fraction = s[19..^1];
        if (!fraction.IsEmpty)
        {
            if (fraction[0] != '.' || fraction.Length is < 2 or > 8)
            {
                return false;
            }

            long scale = TimeSpan.TicksPerSecond;
            foreach (var c in fraction[1..])
            {
                if (!char.IsAsciiDigit(c))
                {
                    return false;
                }

                scale /= 10;
                ticks += (c - '0') * scale;
            }
        }

        timestamp = new DateTime(year, month, day, hour, minute, second, DateTimeKind.Utc).AddTicks(ticks);
        return true;
    }

    private static bool Digits(ReadOnlySpan<char> s, int start, int count, out int value)
    {
        value = 0;
        foreach (var c in s.Slice(start, count))
        {
            if (!char.IsAsciiDigit(c))
            {
                return false;
            }

            value = (value * 10) + (c - '0');
        }

        return true;
    }
}
