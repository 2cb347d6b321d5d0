using System.Buffers;
using System.Globalization;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using BackupXe.Sources.XeEvents;

namespace BackupXe.Cli.Rendering;

/// <summary>Writes <c>backupxe events</c> output: one line (JSON) or row (CSV) per event, as events stream in.</summary>
public abstract class EventListWriter(TextWriter output)
{
    // Output is read by people and tools, not embedded in HTML: keep quotes and apostrophes in SQL text readable.
    private static readonly JsonWriterOptions Options = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    private readonly ArrayBufferWriter<byte> _json = new(1024);

    protected TextWriter Output { get; } = output;

    public static EventListWriter For(string format, TextWriter output) =>
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
    protected static string Timestamp(XeEvent xeEvent) => xeEvent.Timestamp.ToString("o", CultureInfo.InvariantCulture);

    /// <summary>A JSON object of name: value, numbers and booleans typed, map fields by their text.</summary>
    protected string Object(IReadOnlyList<XeValue> values)
    {
        _json.Clear();
        using (var json = new Utf8JsonWriter(_json, Options))
        {
            WriteObject(json, values);
        }

        return Encoding.UTF8.GetString(_json.WrittenSpan);
    }

    /// <summary>A whole event as one JSON object.</summary>
    protected string EventObject(XeEvent xeEvent)
    {
        _json.Clear();
        using (var json = new Utf8JsonWriter(_json, Options))
        {
            json.WriteStartObject();
            json.WriteString("timestamp", Timestamp(xeEvent));
            json.WriteString("name", xeEvent.Name);
            json.WriteString("package", xeEvent.Package);
            json.WritePropertyName("fields");
            WriteObject(json, xeEvent.Fields);
            json.WritePropertyName("actions");
            WriteObject(json, xeEvent.Actions);
            json.WriteEndObject();
        }

        return Encoding.UTF8.GetString(_json.WrittenSpan);
    }

    private static void WriteObject(Utf8JsonWriter json, IReadOnlyList<XeValue> values)
    {
        json.WriteStartObject();
        foreach (var value in values)
        {
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
                default:
                    json.WriteStringValue(value.Display);
                    break;
            }
        }

        json.WriteEndObject();
    }
}

/// <summary>JSON Lines: one self-contained object per event (timestamp, name, package, fields, actions).</summary>
public sealed class JsonLinesEventListWriter(TextWriter output) : EventListWriter(output)
{
    public override void Write(XeEvent xeEvent) => Output.WriteLine(EventObject(xeEvent));
}

/// <summary>
/// CSV (RFC 4180): one row per event with fixed columns, so the output can stream without knowing every event's
/// fields first; the fields and actions cells each hold a JSON object.
/// </summary>
public sealed class CsvEventListWriter(TextWriter output) : EventListWriter(output)
{
    public override void Start() => Output.WriteLine("timestamp,name,package,fields,actions");

    public override void Write(XeEvent xeEvent)
    {
        Output.Write(Timestamp(xeEvent));
        Output.Write(',');
        Output.Write(Cell(xeEvent.Name));
        Output.Write(',');
        Output.Write(Cell(xeEvent.Package));
        Output.Write(',');
        Output.Write(Cell(Object(xeEvent.Fields)));
        Output.Write(',');
        Output.WriteLine(Cell(Object(xeEvent.Actions)));
    }

    private static string Cell(string text) => CsvCell.Of(text);
}
