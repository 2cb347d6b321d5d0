using System.Buffers;
using System.Globalization;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using BackupXe.Sources.XeEvents;

namespace BackupXe.Cli.Rendering;

/// <summary>
/// Writes <c>backupxe events</c> output: one line (JSON) or row (CSV) per event, as events stream in, encoded
/// straight into one large output block (<see cref="OutputBuffer"/>), never through a string per event.
/// </summary>
internal abstract class EventListWriter
{
    // Output is read by people and tools, not embedded in HTML: keep quotes and apostrophes in SQL text readable.
    private static readonly JsonWriterOptions Options = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping, SkipValidation = true };

    private static readonly JsonEncodedText TimestampName = JsonEncodedText.Encode("timestamp");
    private static readonly JsonEncodedText NameName = JsonEncodedText.Encode("name");
    private static readonly JsonEncodedText PackageName = JsonEncodedText.Encode("package");
    private static readonly JsonEncodedText FieldsName = JsonEncodedText.Encode("fields");
    private static readonly JsonEncodedText ActionsName = JsonEncodedText.Encode("actions");

    // Names and map texts encoded once: a capture has a handful of event, field and action names and of map texts
    // (wait types, opcodes), and encoding one for every value (transcoding it and checking it for escapes) costs more
    // than looking it up (docs/performance.md). Bounded, so that input of endless distinct texts costs no memory.
    private const int MaxEncodedNames = 1024;
    private const int MaxEncodedLength = 64;

    private readonly Utf8JsonWriter _json;
    private readonly Dictionary<string, JsonEncodedText> _names = new(StringComparer.Ordinal);

    protected EventListWriter(OutputBuffer output, IBufferWriter<byte> jsonTarget)
    {
        Output = output;
        _json = new Utf8JsonWriter(jsonTarget, Options);
    }

    protected static ReadOnlySpan<byte> NewLine => Environment.NewLine == "\n" ? "\n"u8 : "\r\n"u8;

    protected OutputBuffer Output { get; }

    /// <param name="names">The columns of a CSV listing; not used by JSON Lines, which names each value where it is.</param>
    public static EventListWriter For(string format, OutputBuffer output, XeNames names) =>
        format == "csv" ? new CsvEventListWriter(output, names) : new JsonLinesEventListWriter(output);

    /// <summary>Called once before the first event.</summary>
    public virtual void Start()
    {
    }

    public abstract void Write(XeEvent xeEvent);

    /// <summary>Takes over what <paramref name="part"/>, a writer of the same format that listed a later part apart, noted.</summary>
    public virtual void Absorb(EventListWriter part)
    {
    }

    /// <summary>Forgets what was noted, for the next part.</summary>
    public virtual void Clear()
    {
    }

    /// <summary>
    /// The event's timestamp: round-trip ISO 8601 with all seven fractional digits, <c>Z</c> for UTC and no zone
    /// for an ERRORLOG's local time.
    /// </summary>
    protected static int Timestamp(XeEvent xeEvent, Span<byte> utf8)
    {
        xeEvent.Timestamp.TryFormat(utf8, out var written, "o", CultureInfo.InvariantCulture);
        return written;
    }

    /// <summary>A whole event as one JSON object.</summary>
    protected void EventObject(XeEvent xeEvent)
    {
        _json.Reset();
        Span<byte> timestamp = stackalloc byte[40];
        _json.WriteStartObject();
        _json.WriteString(TimestampName, timestamp[..Timestamp(xeEvent, timestamp)]);
        _json.WriteString(NameName, Encoded(xeEvent.Name));
        _json.WriteString(PackageName, Encoded(xeEvent.Package));
        _json.WritePropertyName(FieldsName);
        WriteObject(xeEvent.Fields);
        _json.WritePropertyName(ActionsName);
        WriteObject(xeEvent.Actions);
        _json.WriteEndObject();
        _json.Flush();
    }

    private JsonEncodedText Encoded(string name)
    {
        if (!_names.TryGetValue(name, out var encoded))
        {
            encoded = JsonEncodedText.Encode(name, Options.Encoder);
            if (_names.Count < MaxEncodedNames && name.Length <= MaxEncodedLength)
            {
                _names.Add(name, encoded);
            }
        }

        return encoded;
    }

    /// <summary>A JSON object of name: value, numbers and booleans typed, map fields by their text.</summary>
    private void WriteObject(IReadOnlyList<XeValue> values)
    {
        var json = _json;
        Span<byte> hex = stackalloc byte[18];
        json.WriteStartObject();
        for (var i = 0; i < values.Count; i++)
        {
            var value = values[i];
            json.WritePropertyName(Encoded(value.Name));
            switch (value)
            {
                case { Text: { } text }:
                    json.WriteStringValue(Encoded(text));
                    break;
                case { Value: ulong u } when value.Type != "ptr":
                    json.WriteNumberValue(u);
                    break;
                case { Value: ulong pointer }:
                    // As XeValue.Display gives it, without a string per value.
                    "0x"u8.CopyTo(hex);
                    pointer.TryFormat(hex[2..], out _, "X16", CultureInfo.InvariantCulture);
                    json.WriteStringValue(hex);
                    break;
                case { Value: long l }:
                    json.WriteNumberValue(l);
                    break;
                case { Value: bool b }:
                    json.WriteBooleanValue(b);
                    break;
                case { Value: double d } when double.IsFinite(d):
                    json.WriteNumberValue(d);
                    break;
                case { Value: string s }:
                    json.WriteStringValue(s);
                    break;
                default:
                    json.WriteStringValue(value.Display);
                    break;
            }
        }

        json.WriteEndObject();
    }
}

/// <summary>JSON Lines: one self-contained object per event (timestamp, name, package, fields, actions).</summary>
internal sealed class JsonLinesEventListWriter(OutputBuffer output) : EventListWriter(output, output)
{
    public override void Write(XeEvent xeEvent)
    {
        EventObject(xeEvent);
        Output.Write(NewLine);
        Output.WriteIfFull();
    }
}

/// <summary>
/// CSV (RFC 4180): one row per event, a column per field and per action. The columns are known before the first row
/// (<see cref="XeNames"/>, gathered by a first pass that reads no event): <c>timestamp,name,package</c>, then every
/// data field by name in ordinal order, then every action as <c>package.name</c> in ordinal order; an event leaves
/// the cells of fields it lacks empty. Numbers and booleans are written as such (a negative number is no formula);
/// text follows <see cref="CsvCell.Of"/>.
/// </summary>
internal sealed class CsvEventListWriter : EventListWriter
{
    private readonly Dictionary<string, int> _fields = new(StringComparer.Ordinal);
    private readonly Dictionary<(string Package, string Name), int> _actions = [];
    private readonly XeValue?[] _row;
    private readonly IReadOnlyList<string> _header;
    private readonly SortedSet<string> _unplaced = new(StringComparer.Ordinal);

    public CsvEventListWriter(OutputBuffer output, XeNames names)
        : base(output, output)
    {
        var header = new List<string> { "timestamp", "name", "package" };
        foreach (var field in names.Fields)
        {
            _fields.Add(field, header.Count - 3);
            header.Add(field);
        }

        foreach (var action in names.Actions)
        {
            _actions.Add(action, header.Count - 3);
            header.Add(ActionColumn(action.Package, action.Name));
        }

        _header = header;
        _row = new XeValue?[header.Count - 3];
    }

    /// <summary>Names an event carried that had no column (met after the header was written): their values are not in the output.</summary>
    public IReadOnlyCollection<string> Unplaced => _unplaced;

    public override void Absorb(EventListWriter part)
    {
        foreach (var name in ((CsvEventListWriter)part)._unplaced)
        {
            if (_unplaced.Count >= XeNames.MaxNames)
            {
                break;
            }

            _unplaced.Add(name);
        }
    }

    public override void Clear() => _unplaced.Clear();

    public static string ActionColumn(string package, string name) => package.Length == 0 ? name : package + "." + name;

    public override void Start()
    {
        for (var i = 0; i < _header.Count; i++)
        {
            if (i > 0)
            {
                Output.Write((byte)',');
            }

            TextCell(_header[i]);
        }

        Output.Write(NewLine);
    }

    public override void Write(XeEvent xeEvent)
    {
        Array.Clear(_row);
        foreach (var field in xeEvent.Fields)
        {
            Place(_fields.TryGetValue(field.Name, out var column) ? column : -1, field, field.Name);
        }

        foreach (var action in xeEvent.Actions)
        {
            Place(_actions.TryGetValue((action.Package, action.Name), out var column) ? column : -1, action, null);
        }

        var timestamp = Output.GetSpan(40);
        Output.Advance(Timestamp(xeEvent, timestamp));
        Output.Write((byte)',');
        TextCell(xeEvent.Name);
        Output.Write((byte)',');
        TextCell(xeEvent.Package);
        foreach (var value in _row)
        {
            Output.Write((byte)',');
            if (value is not null)
            {
                Cell(value);
            }
        }

        Output.Write(NewLine);
        Output.WriteIfFull();
    }

    private void Place(int column, XeValue value, string? field)
    {
        if (column >= 0)
        {
            _row[column] = value;
        }
        else if (_unplaced.Count < XeNames.MaxNames)
        {
            _unplaced.Add(field ?? ActionColumn(value.Package, value.Name));
        }
    }

    private void Cell(XeValue value)
    {
        switch (value)
        {
            case { Text: { } text }:
                TextCell(text);
                break;
            case { Value: ulong u } when value.Type != "ptr":
                Number(u);
                break;
            case { Value: long l }:
                Number(l);
                break;
            case { Value: double d } when double.IsFinite(d):
                Number(d);
                break;
            case { Value: bool b }:
                Output.Write(b ? "true"u8 : "false"u8);
                break;
            default:
                TextCell(value.Display);
                break;
        }
    }

    private void Number<T>(T number)
        where T : IUtf8SpanFormattable
    {
        var span = Output.GetSpan(32);
        number.TryFormat(span, out var written, default, CultureInfo.InvariantCulture);
        Output.Advance(written);
    }

    /// <summary>Writes what <see cref="CsvCell.Of"/> makes of <paramref name="text"/>, without making a string of it.</summary>
    private void TextCell(ReadOnlySpan<char> text)
    {
        if (text.IsEmpty)
        {
            return;
        }

        var quoted = text.IndexOfAny(",\"\r\n") >= 0;
        if (quoted)
        {
            Output.Write((byte)'"');
        }

        if (text[0] is '=' or '+' or '-' or '@' or '\t' or '\r')
        {
            Output.Write((byte)'\'');
        }

        while (true)
        {
            var quote = quoted ? text.IndexOf('"') : -1;
            var part = quote < 0 ? text : text[..(quote + 1)];
            var span = Output.GetSpan(Encoding.UTF8.GetMaxByteCount(part.Length));
            Output.Advance(Encoding.UTF8.GetBytes(part, span));
            if (quote < 0)
            {
                break;
            }

            Output.Write((byte)'"');
            text = text[(quote + 1)..];
        }

        if (quoted)
        {
            Output.Write((byte)'"');
        }
    }
}
