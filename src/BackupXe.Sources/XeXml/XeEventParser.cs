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

    // Nearly every value (a number, a name, a line of text) fits, and is read here without a string of its own.
    private readonly char[] _chunk = new char[4096];
    private readonly StringPool _texts;

    private bool _started;

    // The event's end tag is consumed lazily, by the next search: a damaged byte right after a complete event
    // then breaks the search for the next one, not the event already read.
    private bool _afterEvent;
    private bool _truncated;

    /// <param name="texts">Recurring texts to share with other parsers (one per row of a live read); by default its own.</param>
    public XeEventParser(XmlReader reader, StringPool? texts = null)
    {
        _reader = reader;
        _texts = texts ?? new StringPool();
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
        _truncated = false;
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

        var hasTime = TryParseUtc(timestampText, out var timestamp);
        if (!HasNameAndTime(status, line, name, hasTime))
        {
            return XeReadOutcome.Invalid;
        }

        if (_truncated)
        {
            status.Report($"line {line}", $"{name} event has a field longer than {MaxFieldChars} characters; kept truncated");
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

        var (value, text) = ReadValueAndText(ref type);
        return new XeValue(name, package, type, Typed(type, value), text);
    }

    /// <summary>
    /// The <c>&lt;value&gt;</c> as the .xel reader decodes the same type (a number, a boolean), so that a field is
    /// one type whichever form of a capture it came from; text that does not parse as its type stays text.
    /// </summary>
    internal static object? Typed(string type, string? value)
    {
        if (value is null)
        {
            return null;
        }

        var invariant = CultureInfo.InvariantCulture;
        return type switch
        {
            "int8" or "int16" or "int32" or "int64" when long.TryParse(value, NumberStyles.AllowLeadingSign, invariant, out var l) => l,
            "uint8" or "uint16" or "uint32" or "uint64" when ulong.TryParse(value, NumberStyles.None, invariant, out var u) => u,
            "float32" or "float64" when double.TryParse(value, NumberStyles.Float, invariant, out var d) => d,
            "boolean" when bool.TryParse(value, out var b) => b,
            _ => value,
        };
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
        var name = EventAttributes(out var hasTime, out var timestamp);
        _fields.Clear();
        _truncated = false;
        ReadFields();

        traceEvent = null;
        if (!HasNameAndTime(status, line, name, hasTime))
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
            var isAction = ReferenceEquals(element, _action);
            var field = ReferenceEquals(element, _data) || isAction ? FieldOf(isAction) : XeField.None;

            // A data field outranks an action of the same meaning, whichever comes first.
            if (field == XeField.None || _reader.IsEmptyElement || (isAction && _fields.Holds(field)))
            {
                _reader.Skip();
                continue;
            }

            ReadField(field);
        }
    }

    /// <summary>
    /// The <c>&lt;value&gt;</c> and <c>&lt;text&gt;</c> of the current data or action element into the event's fields:
    /// numbers parsed from the characters read, texts shared with earlier events; leaves the reader after the
    /// element's end tag.
    /// </summary>
    private void ReadField(XeField field)
    {
        _fields.Begin(field);
        var depth = _reader.Depth;
        _reader.Read();
        while (_reader.Depth > depth)
        {
            if (_reader.NodeType != XmlNodeType.Element)
            {
                _reader.Read();
            }
            else if (ReferenceEquals(_reader.LocalName, _value))
            {
                // Read even when unused (a wait type's map key): a value past MaxFieldChars is reported either way.
                var chars = ReadContentChars(out var whole);
                if (XeEventFields.IsNumeric(field))
                {
                    _fields.SetNumber(field, whole is null ? XeNumber.From(chars) : XeNumber.From(whole));
                }
                else if (XeEventFields.UsesValue(field))
                {
                    _fields.SetValue(field, whole ?? _texts.Get(chars));
                }
            }
            else if (ReferenceEquals(_reader.LocalName, _text))
            {
                var chars = ReadContentChars(out var whole);
                if (XeEventFields.UsesText(field))
                {
                    _fields.SetText(field, whole ?? _texts.Get(chars));
                }
            }
            else
            {
                _reader.Skip();
            }
        }

        _reader.Read();
    }

    /// <summary>
    /// The <c>&lt;value&gt;</c>, <c>&lt;text&gt;</c> and type name of the current data or action element, as strings
    /// (for <c>backupxe events</c>); leaves the reader after the element's end tag.
    /// </summary>
    private (string? Value, string? Text) ReadValueAndText(ref string type)
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
            else if (ReferenceEquals(_reader.LocalName, _type))
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
        var chars = ReadContentChars(out var whole);
        return whole ?? new string(chars);
    }

    /// <summary>
    /// The text of the current element, CDATA included, at most <see cref="MaxFieldChars"/> characters; leaves the
    /// reader after its end tag. Nearly always one short node, left in the chunk buffer (valid until the next read)
    /// with <paramref name="whole"/> null. Alternating text and CDATA, or a node longer than the buffer, go through
    /// one bounded builder (linear in the input) and come back as <paramref name="whole"/>.
    /// </summary>
    private ReadOnlySpan<char> ReadContentChars(out string? whole)
    {
        whole = null;
        if (_reader.IsEmptyElement)
        {
            _reader.Read();
            return default;
        }

        var depth = _reader.Depth;
        var length = 0;
        var nodes = 0;
        var built = false;
        _reader.Read();
        while (_reader.Depth > depth)
        {
            switch (_reader.NodeType)
            {
                case XmlNodeType.Text:
                case XmlNodeType.CDATA:
                case XmlNodeType.SignificantWhitespace:
                case XmlNodeType.Whitespace:
                    nodes++;
                    if (nodes == 1 && !_reader.CanReadValueChunk)
                    {
                        _content.Clear().Append(_reader.Value);
                        built = true;
                    }
                    else if (nodes == 1)
                    {
                        length = FillChunk();
                        if (!IsWhole(length))
                        {
                            _content.Clear().Append(_chunk, 0, length);
                            AppendChunks();
                            built = true;
                        }
                    }
                    else
                    {
                        if (!built)
                        {
                            // The builder is cleared where it is first used: most values never reach it.
                            _content.Clear().Append(_chunk, 0, length);
                            built = true;
                        }

                        AppendChunks();
                    }

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
        if (!built)
        {
            return _chunk.AsSpan(0, length);
        }

        if (_content.Length > MaxFieldChars)
        {
            _content.Length = MaxFieldChars;
            _truncated = true;
        }

        whole = _content.ToString();
        return whole;
    }

    /// <summary>The start of the current node's value in the chunk buffer, in one read; its length.</summary>
    private int FillChunk() => _reader.ReadValueChunk(_chunk, 0, _chunk.Length);

    /// <summary>
    /// Whether one read of <paramref name="length"/> characters was the whole value. The reader copies until the
    /// buffer is full or the value ends, one character short of full when a surrogate pair would straddle the end, so
    /// a read that leaves two or more characters free is the whole value. Asking again, to be told 0, would be a second
    /// call per value for nothing; a value this close to full goes on in the builder.
    /// </summary>
    private bool IsWhole(int length) => length < _chunk.Length - 1;

    /// <summary>
    /// The current attribute's value: in the chunk buffer (valid until the next read), or, when longer than the
    /// buffer, whole as a string (the reader holds it whole already, so this does not change what memory it needs).
    /// </summary>
    private ReadOnlySpan<char> AttributeChars()
    {
        if (!_reader.CanReadValueChunk)
        {
            return _reader.Value;
        }

        var length = FillChunk();
        if (IsWhole(length))
        {
            return _chunk.AsSpan(0, length);
        }

        _content.Clear();
        _content.Append(_chunk, 0, length);
        int read;
        while ((read = _reader.ReadValueChunk(_chunk, 0, _chunk.Length)) > 0)
        {
            _content.Append(_chunk, 0, read);
        }

        return _content.ToString();
    }

    /// <summary>
    /// The current event's <c>name</c> and <c>timestamp</c> attributes, matched by name-table atom (GetAttribute(string)
    /// hashes the name into the name table on every call) and read without a string of their own.
    /// </summary>
    private string? EventAttributes(out bool hasTime, out DateTime timestamp)
    {
        string? name = null;
        hasTime = false;
        timestamp = default;
        if (_reader.MoveToFirstAttribute())
        {
            do
            {
                if (_reader.Prefix.Length != 0)
                {
                    continue;
                }

                var local = _reader.LocalName;
                if (ReferenceEquals(local, _name))
                {
                    name = _texts.Get(AttributeChars());
                }
                else if (ReferenceEquals(local, _timestamp))
                {
                    hasTime = TryParseUtc(AttributeChars(), out timestamp);
                }
            }
            while (_reader.MoveToNextAttribute());

            _reader.MoveToElement();
        }

        return name;
    }

    /// <summary>Which analysed field the current data or action element is, by its <c>name</c> attribute.</summary>
    private XeField FieldOf(bool isAction)
    {
        var field = XeField.None;
        if (_reader.MoveToFirstAttribute())
        {
            do
            {
                if (_reader.Prefix.Length == 0 && ReferenceEquals(_reader.LocalName, _name))
                {
                    field = isAction ? XeEventFields.ClassifyAction(AttributeChars()) : XeEventFields.Classify(AttributeChars());
                }
            }
            while (_reader.MoveToNextAttribute());

            _reader.MoveToElement();
        }

        return field;
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

    private static bool HasNameAndTime(SourceStatus status, int line, [NotNullWhen(true)] string? name, bool hasTime)
    {
        if (string.IsNullOrEmpty(name))
        {
            status.Report($"line {line}", "event has no name attribute; event skipped");
            return false;
        }

        if (!hasTime)
        {
            status.Report($"line {line}", $"{name} event has no valid timestamp attribute; event skipped");
            return false;
        }

        return true;
    }

    private static bool TryParseUtc(ReadOnlySpan<char> text, out DateTime timestamp) =>
        TryParseRoundTrip(text, out timestamp)
        || DateTime.TryParse(
            text,
            CultureInfo.InvariantCulture,
            DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal,
            out timestamp);

    /// <summary>
    /// The shape the server writes, <c>2024-06-01T00:00:00.123Z</c> (up to 7 fraction digits), read directly;
    /// anything else goes to <see cref="DateTime.TryParse(string, IFormatProvider, DateTimeStyles, out DateTime)"/>,
    /// which gives the same value for this shape at several times the cost, on every event.
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
