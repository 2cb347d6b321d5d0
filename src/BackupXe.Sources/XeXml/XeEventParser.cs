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
        var name = _reader.GetAttribute("name");
        var timestampText = _reader.GetAttribute("timestamp");
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
        DateTime.TryParse(
            text,
            CultureInfo.InvariantCulture,
            DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal,
            out timestamp);
}
