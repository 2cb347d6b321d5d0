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

    private readonly Utf8JsonWriter _json;

    protected EventListWriter(OutputBuffer output, IBufferWriter<byte> jsonTarget)
    {
        Output = output;
        _json = new Utf8JsonWriter(jsonTarget, Options);
    }

    protected static ReadOnlySpan<byte> NewLine => Environment.NewLine == "\n" ? "\n"u8 : "\r\n"u8;

    protected OutputBuffer Output { get; }

    public static EventListWriter For(string format, OutputBuffer output) =>
        format == "csv" ? new CsvEventListWriter(output) : new JsonLinesEventListWriter(output);

    /// <summary>Called once before the first event.</summary>
    public virtual void Start()
    {
    }

    public abstract void Write(XeEvent xeEvent);

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
        _json.WriteString(NameName, xeEvent.Name);
        _json.WriteString(PackageName, xeEvent.Package);
        _json.WritePropertyName(FieldsName);
        WriteObject(xeEvent.Fields);
        _json.WritePropertyName(ActionsName);
        WriteObject(xeEvent.Actions);
        _json.WriteEndObject();
        _json.Flush();
    }

    /// <summary>A JSON object of name: value, numbers and booleans typed, map fields by their text.</summary>
    protected void Object(IReadOnlyList<XeValue> values)
    {
        _json.Reset();
        WriteObject(values);
        _json.Flush();
    }

    private void WriteObject(IReadOnlyList<XeValue> values)
    {
        var json = _json;
        json.WriteStartObject();
        for (var i = 0; i < values.Count; i++)
        {
            var value = values[i];
            json.WritePropertyName(value.Name);
            switch (value)
            {
                case { Text: { } text }:
                    json.WriteStringValue(text);
                    break;
                case { Value: ulong u } when value.Type != "ptr":
                    json.WriteNumberValue(u);
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
/// CSV (RFC 4180): one row per event with fixed columns, so the output can stream without knowing every event's
/// fields first; the fields and actions cells each hold a JSON object.
/// </summary>
internal sealed class CsvEventListWriter : EventListWriter
{
    private readonly ArrayBufferWriter<byte> _cell;

    public CsvEventListWriter(OutputBuffer output)
        : this(output, new ArrayBufferWriter<byte>(4096))
    {
    }

    private CsvEventListWriter(OutputBuffer output, ArrayBufferWriter<byte> cell)
        : base(output, cell)
    {
        _cell = cell;
    }

    public override void Start()
    {
        Output.Write("timestamp,name,package,fields,actions"u8);
        Output.Write(NewLine);
    }

    public override void Write(XeEvent xeEvent)
    {
        var timestamp = Output.GetSpan(40);
        Output.Advance(Timestamp(xeEvent, timestamp));
        Output.Write((byte)',');
        Text(CsvCell.Of(xeEvent.Name));
        Output.Write((byte)',');
        Text(CsvCell.Of(xeEvent.Package));
        Output.Write((byte)',');
        JsonCell(xeEvent.Fields);
        Output.Write((byte)',');
        JsonCell(xeEvent.Actions);
        Output.Write(NewLine);
        Output.WriteIfFull();
    }

    private void Text(string text)
    {
        var span = Output.GetSpan(Encoding.UTF8.GetMaxByteCount(text.Length));
        Output.Advance(Encoding.UTF8.GetBytes(text, span));
    }

    /// <summary>
    /// The cell of a JSON object, as <see cref="CsvCell.Of"/> would make it (an object never starts like a formula):
    /// quoted, its quotes doubled span by span, when it holds a comma, quote or line break.
    /// </summary>
    private void JsonCell(IReadOnlyList<XeValue> values)
    {
        _cell.ResetWrittenCount();
        Object(values);
        var json = _cell.WrittenSpan;
        if (json.IndexOfAny(",\"\r\n"u8) < 0)
        {
            Output.Write(json);
            return;
        }

        Output.Write((byte)'"');
        while (json.IndexOf((byte)'"') is var quote and >= 0)
        {
            Output.Write(json[..(quote + 1)]);
            Output.Write((byte)'"');
            json = json[(quote + 1)..];
        }

        Output.Write(json);
        Output.Write((byte)'"');
    }
}
