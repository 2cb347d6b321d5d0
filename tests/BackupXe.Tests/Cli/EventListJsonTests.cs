using System.Globalization;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using BackupXe.Cli.Rendering;
using BackupXe.Sources.XeEvents;
using Xunit;

namespace BackupXe.Tests.Cli;

/// <summary>
/// The JSON Lines listing escapes and types every value exactly as <see cref="Utf8JsonWriter"/> with the relaxed
/// encoder writes it (the listing's writer before it copied plain text in bulk), for every ASCII character, text
/// beyond ASCII, broken surrogates and every kind of value.
/// </summary>
public sealed class EventListJsonTests
{
    private static readonly JsonWriterOptions Options = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping, SkipValidation = true };

    public static TheoryData<string> Texts()
    {
        // Distinct: a random text may repeat a fixed one, and the runner skips a case it has already met.
        var texts = new List<string>();
        for (var c = 0; c < 128; c++)
        {
            texts.Add(((char)c).ToString());
            texts.Add($"select N'a{(char)c}b' from t");
        }

        foreach (var text in new[]
        {
            string.Empty, "é", "Grüße", "中文", "\U0001F600", "a\uD800b", "\uDC00", "x\uFFFD", "\u2028\u2029", "\u0085", "\u00A0", "\uFEFF",
            "declare @p1 int\r\nset @p1=3441\r\nexec sp_prepare @p1 output,NULL,N'EXEC [msdb].[dbo].[x]  5',1\r\nselect @p1",
            "NTDEV\\DAVIDSHI-SRV$", "\"quoted\" \\ back\tslash", "<script>&'+`", new string('a', 5000) + "\n" + new string('"', 300),
        })
        {
            texts.Add(text);
        }

        var random = new Random(20261127);
        var alphabet = "ab \"\\\r\n\t\u0001\u001F\u007F\u0080é中\uD83D\uDE00\uD800\uDFFF'<>&+`/";
        for (var i = 0; i < 200; i++)
        {
            texts.Add(new string([.. Enumerable.Range(0, random.Next(1, 40)).Select(_ => alphabet[random.Next(alphabet.Length)])]));
        }

        return [.. texts.Distinct(StringComparer.Ordinal)];
    }

    [Theory]
    [MemberData(nameof(Texts))]
    public void A_text_is_written_as_the_relaxed_json_writer_writes_it_as_name_value_and_event_name(string text)
    {
        // Given an event whose name, field name, string value and map text are the text
        var xeEvent = new XeEvent(text, "sqlserver", new DateTime(2026, 11, 27, 12, 0, 0, DateTimeKind.Utc),
            [new XeValue(text, "sqlserver", "unicode_string", text), new XeValue("wait_type", "sqlos", "wait_types", 7UL, text)],
            [new XeValue("client_app_name", "sqlserver", "unicode_string", text)]);

        // When it is listed, Then the bytes are the writer's
        Assert.Equal(Reference(xeEvent), Listed(xeEvent));
    }

    [Fact]
    public void Every_kind_of_value_is_typed_as_the_json_writer_types_it()
    {
        // Given an event with a value of every kind the decoders give
        var values = new List<XeValue>
        {
            new("u", "p", "uint64", ulong.MaxValue), new("zero", "p", "uint8", 0UL), new("ptr", "p", "ptr", 0x7FF6_1234UL),
            new("l", "p", "int64", long.MinValue), new("neg", "p", "int32", -42L), new("t", "p", "boolean", true), new("f", "p", "boolean", false),
            new("d1", "p", "float64", 0.1), new("d2", "p", "float64", 1e20), new("d3", "p", "float64", -0.0), new("d4", "p", "float32", (double)0.1f),
            new("d5", "p", "float64", double.NaN), new("d6", "p", "float64", double.PositiveInfinity), new("d7", "p", "float64", double.NegativeInfinity),
            new("d8", "p", "float64", 5e-324), new("d9", "p", "float64", double.MaxValue), new("s", "p", "unicode_string", "text"),
            new("g", "p", "guid", new Guid("329b2676-060b-4760-8698-46a43e0b1603")),
            new("b", "p", "binary_data", new byte[] { 0x00, 0xAB, 0xFF }), new("empty", "p", "binary_data", Array.Empty<byte>()),
            new("none", "p", "unicode_string", null), new("map", "p", "wait_types", 123UL), new("mapped", "p", "wait_types", 123UL, "ASYNC_IO_COMPLETION"),
            new("xml", "p", "xml", "<a b=\"c\"/>"),
        };
        var xeEvent = new XeEvent("wait_info", "sqlos", new DateTime(2026, 11, 27, 12, 0, 0, 123, DateTimeKind.Utc).AddTicks(4567), values, values);

        // When it is listed, Then the bytes are the writer's
        Assert.Equal(Reference(xeEvent), Listed(xeEvent));
    }

    public static TheoryData<long> Instants()
    {
        // The ends of the range, a year of three digits, whole seconds, the last tick of a second and of a day, and
        // random ticks; each listed with its neighbours in a run, where the part to the second is reused.
        var ticks = new List<long>
        {
            DateTime.MinValue.Ticks, DateTime.MaxValue.Ticks, new DateTime(999, 12, 31, 23, 59, 59, DateTimeKind.Utc).Ticks,
            new DateTime(2024, 5, 1, 1, 30, 0, DateTimeKind.Utc).Ticks, new DateTime(2024, 5, 1, 23, 59, 59, DateTimeKind.Utc).Ticks + 9_999_999,
            new DateTime(2024, 2, 29, 12, 0, 0, DateTimeKind.Utc).Ticks + 1,
        };
        var random = new Random(31);
        for (var i = 0; i < 50; i++)
        {
            ticks.Add(random.NextInt64(DateTime.MinValue.Ticks, DateTime.MaxValue.Ticks));
        }

        return [.. ticks.Distinct()];
    }

    [Theory]
    [MemberData(nameof(Instants))]
    public async Task A_utc_timestamp_is_written_as_the_round_trip_format_writes_it(long ticks)
    {
        // Given UTC events at an instant and at the ticks around it, in and across its second, with a pointer value
        var events = new List<XeEvent>();
        foreach (var step in (long[])[0, -1, 1, -TimeSpan.TicksPerSecond, TimeSpan.TicksPerSecond, 12_345, 0])
        {
            if (ticks + step >= DateTime.MinValue.Ticks && ticks + step <= DateTime.MaxValue.Ticks)
            {
                events.Add(new XeEvent("wait_info", "sqlos", new DateTime(ticks + step, DateTimeKind.Utc),
                    [new XeValue("wait_resource", "sqlos", "ptr", (ulong)(ticks + step) * 0x9E3779B97F4A7C15UL)], []));
            }
        }

        // When they are listed one after the other by one writer
        var bytes = new MemoryStream();
        var output = new OutputBuffer(bytes);
        var writer = EventListWriter.For("jsonl", output, new XeNames());
        events.ForEach(writer.Write);
        await output.FlushAsync(TestContext.Current.CancellationToken);

        // Then the bytes are the writer's for each
        Assert.Equal(string.Concat(events.Select(Reference)), Encoding.UTF8.GetString(bytes.ToArray()));
    }

    private static string Listed(XeEvent xeEvent)
    {
        var bytes = new MemoryStream();
        var output = new OutputBuffer(bytes);
        EventListWriter.For("jsonl", output, new XeNames()).Write(xeEvent);
        output.FlushAsync(CancellationToken.None).GetAwaiter().GetResult();
        return Encoding.UTF8.GetString(bytes.ToArray());
    }

    /// <summary>The listing as the writer made it before it wrote plain text itself: each member through <see cref="Utf8JsonWriter"/>.</summary>
    private static string Reference(XeEvent xeEvent)
    {
        var bytes = new MemoryStream();
        using (var json = new Utf8JsonWriter(bytes, Options))
        {
            json.WriteStartObject();
            json.WriteString("timestamp", xeEvent.Timestamp.ToString("o", CultureInfo.InvariantCulture));
            json.WriteString("name", xeEvent.Name);
            json.WriteString("package", xeEvent.Package);
            json.WritePropertyName("fields");
            Members(json, xeEvent.Fields);
            json.WritePropertyName("actions");
            Members(json, xeEvent.Actions);
            json.WriteEndObject();
        }

        return Encoding.UTF8.GetString(bytes.ToArray()) + Environment.NewLine;
    }

    private static void Members(Utf8JsonWriter json, IReadOnlyList<XeValue> values)
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
