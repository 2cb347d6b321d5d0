using System.Buffers;
using System.Globalization;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using BackupXe.Sources.XeEvents;

namespace BackupXe.Cli.Rendering;

/// <summary>
/// JSON Lines: one self-contained object per event (timestamp, name, package, fields, actions), numbers and
/// booleans typed, map fields by their text. Strings are escaped as <see cref="Utf8JsonWriter"/> escapes them with
/// <see cref="JavaScriptEncoder.UnsafeRelaxedJsonEscaping"/>: runs of plain ASCII are copied in bulk, and a text
/// holding anything else is escaped by that encoder itself.
/// </summary>
internal sealed class JsonLinesEventListWriter(OutputBuffer output, HashSet<string>? wanted) : EventListWriter(output, wanted)
{
    // Output is read by people and tools, not embedded in HTML: keep quotes and apostrophes in SQL text readable.
    private static readonly JsonWriterOptions Options = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping, SkipValidation = true };

    // Printable ASCII but the quote and backslash: written as it is. With the five escaped by two characters (SQL text
    // is full of quotes, line breaks and tabs), what a text can hold and still be escaped here in bulk.
    private static readonly SearchValues<char> Plain = SearchValues.Create(Enumerable.Range(0x20, 0x5F).Select(c => (char)c).Where(c => c is not ('"' or '\\')).ToArray());
    private static readonly SearchValues<char> PlainOrShortEscape = SearchValues.Create([.. Enumerable.Range(0x20, 0x5F).Select(c => (char)c), '\n', '\r', '\t']);

    // What a file's events and actions begin with, made once per file: ","name":"wait_info","package":"sqlos","fields":{
    // for each event, and "name": for each field and action.
    // Each key also with the comma that separates it from the member before, so a member starts with one copy.
    private PreparedBytes[] _heads = [];
    private PreparedBytes[][] _fieldKeys = [];
    private PreparedBytes[][] _nextFieldKeys = [];
    private PreparedBytes[] _actionKeys = [];
    private PreparedBytes[] _nextActionKeys = [];
    private PreparedBytes[] _fields = [];
    private PreparedBytes[] _nextFields = [];
    private int _eventStart;
    private bool _first;
    private bool _inActions;

    // The end of an event's line, with and without an action told.
    private static readonly PreparedBytes LineEnd = new([.. "}}"u8, .. NewLine]);
    private static readonly PreparedBytes NoActionsLineEnd = new([.. "},\"actions\":{}}"u8, .. NewLine]);

    // A float's digits as the encoder's own writer gives them; floats are rare in XE payloads.
    private ArrayBufferWriter<byte>? _floatBytes;
    private Utf8JsonWriter? _floatWriter;

    public override void Write(XeEvent xeEvent)
    {
        Output.Write("{\"timestamp\":\""u8);
        Timestamp(xeEvent.Timestamp);
        Output.Write("\",\"name\":"u8);
        String(xeEvent.Name);
        Output.Write(",\"package\":"u8);
        String(xeEvent.Package);
        Output.Write(",\"fields\":{"u8);
        Members(xeEvent.Fields);
        Output.Write("},\"actions\":{"u8);
        Members(xeEvent.Actions);
        Output.Write("}}"u8);
        Output.Write(NewLine);
        Output.WriteIfFull();
    }

    public override void Unsigned(XeColumnShape column, ulong value)
    {
        Member(column);
        Number(Output, value);
    }

    public override void Signed(XeColumnShape column, long value)
    {
        Member(column);
        Number(Output, value);
    }

    public override void Boolean(XeColumnShape column, bool value)
    {
        Member(column);
        Output.Write(value ? "true"u8 : "false"u8);
    }

    public override void Float(XeColumnShape column, double value)
    {
        Member(column);
        FloatValue(value);
    }

    public override void Pointer(XeColumnShape column, ulong value)
    {
        Member(column);
        Output.Write((byte)'"');
        PointerDigits(Output, value);
        Output.Write((byte)'"');
    }

    public override void Text(XeColumnShape column, ReadOnlySpan<char> text)
    {
        Member(column);
        String(text);
    }

    public override void MapText(XeColumnShape column, int entry)
    {
        Member(column);
        MapText(Output, column, entry, WriteString);
    }

    public override void Guid(XeColumnShape column, Guid value, uint? sequence)
    {
        Member(column);
        Span<char> chars = stackalloc char[48];
        String(chars[..GuidText(value, sequence, chars)]);
    }

    public override void Binary(XeColumnShape column, ReadOnlySpan<byte> bytes)
    {
        Member(column);
        Output.Write((byte)'"');
        HexDigits(Output, bytes);
        Output.Write((byte)'"');
    }

    protected override void Prepare(XeShapes shapes)
    {
        _heads = [.. shapes.Events.Select(e => Encoded($"\",\"name\":{Quoted(e.Name)},\"package\":{Quoted(e.Package)},\"fields\":{{"))];
        _fieldKeys = [.. shapes.Events.Select(e => e.Fields.Select(f => Encoded(Quoted(f.Name) + ":")).ToArray())];
        _nextFieldKeys = [.. shapes.Events.Select(e => e.Fields.Select(f => Encoded("," + Quoted(f.Name) + ":")).ToArray())];
        _actionKeys = [.. shapes.Actions.Select(a => Encoded(Quoted(a.Name) + ":"))];
        _nextActionKeys = [.. shapes.Actions.Select(a => Encoded("," + Quoted(a.Name) + ":"))];
    }

    protected override void BeginEvent(XeEventShape shape, DateTime timestamp)
    {
        _eventStart = Output.Length;
        Output.Write("{\"timestamp\":\""u8);
        Timestamp(timestamp);
        Output.Write(_heads[shape.Index]);
        _fields = _fieldKeys[shape.Index];
        _nextFields = _nextFieldKeys[shape.Index];
        _first = true;
        _inActions = false;
    }

    protected override void EndEvent()
    {
        Output.Write(_inActions ? LineEnd : NoActionsLineEnd);
        Output.WriteIfFull();
    }

    protected override void AbandonEvent() => Output.TruncateTo(_eventStart);

    /// <summary>A JSON string as the encoder writes it: escaped, in quotes, UTF-8.</summary>
    private static string Quoted(string text) => "\"" + JsonEncodedText.Encode(text, EncoderFor(text)).Value + "\"";

    /// <summary>
    /// The relaxed encoder writes bidi controls and other invisible format characters raw, which a terminal obeys
    /// (Core.Rendering.TerminalText); a text holding one is escaped in full, as \u202E, by the strict encoder.
    /// </summary>
    private static JavaScriptEncoder EncoderFor(ReadOnlySpan<char> text)
        => Core.Rendering.TerminalText.HasInvisible(text) ? JavaScriptEncoder.Default : Options.Encoder!;

    private static PreparedBytes Encoded(string json) => new(Encoding.UTF8.GetBytes(json));

    /// <summary>The name of the next value: the actions' object opened before the first action.</summary>
    private void Member(XeColumnShape column)
    {
        if (column.IsAction && !_inActions)
        {
            Output.Write("},\"actions\":{"u8);
            _inActions = true;
            _first = true;
        }

        var keys = column.IsAction ? (_first ? _actionKeys : _nextActionKeys) : (_first ? _fields : _nextFields);
        _first = false;
        Output.Write(keys[column.Index]);
    }

    /// <summary>The members of one object of a whole event: name: value, typed as the listing types them.</summary>
    private void Members(IReadOnlyList<XeValue> values)
    {
        for (var i = 0; i < values.Count; i++)
        {
            var value = values[i];
            if (i > 0)
            {
                Output.Write((byte)',');
            }

            String(value.Name);
            Output.Write((byte)':');
            switch (value)
            {
                case { Text: { } text }:
                    String(text);
                    break;
                case { Value: ulong u } when value.Type != "ptr":
                    Number(Output, u);
                    break;
                case { Value: ulong pointer }:
                    Output.Write((byte)'"');
                    PointerDigits(Output, pointer);
                    Output.Write((byte)'"');
                    break;
                case { Value: long l }:
                    Number(Output, l);
                    break;
                case { Value: bool b }:
                    Output.Write(b ? "true"u8 : "false"u8);
                    break;
                case { Value: double d }:
                    FloatValue(d);
                    break;
                case { Value: string s }:
                    String(s);
                    break;
                default:
                    String(value.Display);
                    break;
            }
        }
    }

    private void FloatValue(double value)
    {
        if (!double.IsFinite(value))
        {
            String(value.ToString(null, CultureInfo.InvariantCulture));
            return;
        }

        _floatBytes ??= new ArrayBufferWriter<byte>(32);
        _floatWriter ??= new Utf8JsonWriter(_floatBytes, Options);
        _floatBytes.ResetWrittenCount();
        _floatWriter.Reset();
        _floatWriter.WriteNumberValue(value);
        _floatWriter.Flush();
        Output.Write(_floatBytes.WrittenSpan);
    }

    private static void WriteString(OutputBuffer output, string text) => String(output, text);

    private void String(ReadOnlySpan<char> text) => String(Output, text);

    /// <summary>A JSON string: plain ASCII copied in runs, quotes, backslashes and line breaks escaped by two characters.</summary>
    private static void String(OutputBuffer output, ReadOnlySpan<char> text)
    {
        output.Write((byte)'"');
        if (text.IndexOfAnyExcept(PlainOrShortEscape) >= 0)
        {
            // Anything else (control characters, non-ASCII text) is escaped by the encoder itself.
            output.Write(JsonEncodedText.Encode(text, EncoderFor(text)).EncodedUtf8Bytes);
            output.Write((byte)'"');
            return;
        }

        while (true)
        {
            var special = text.IndexOfAnyExcept(Plain);
            var run = special < 0 ? text : text[..special];
            if (!run.IsEmpty)
            {
                var span = output.GetSpan(run.Length);
                Ascii.FromUtf16(run, span, out var written);
                output.Advance(written);
            }

            if (special < 0)
            {
                break;
            }

            output.Write(text[special] switch
            {
                '"' => "\\\""u8,
                '\\' => "\\\\"u8,
                '\n' => "\\n"u8,
                '\r' => "\\r"u8,
                _ => "\\t"u8,
            });
            text = text[(special + 1)..];
        }

        output.Write((byte)'"');
    }
}
