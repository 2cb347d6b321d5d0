using System.Buffers;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Text.Json.Serialization.Metadata;

namespace BackupXe.Core.Reporting;

/// <summary>
/// How reports become JSON, shared by the CLI's JSON output and the daemon's history (report_json column):
/// camelCase names, enums as kebab-case strings, nulls written so that a reader can tell "not in the input" from
/// "field unknown to this version". The serializer with these options reads reports back and is the definition;
/// the report types are written by <see cref="ReportJsonWriter"/>, which the tests hold to the serializer's bytes.
/// </summary>
public static class ReportJson
{
    /// <summary>
    /// The JSON report's <c>schemaVersion</c>. Other tools and the daemon rely on its shape: add fields, never
    /// rename or remove them without raising it.
    /// </summary>
    public const int SchemaVersion = 1;

    /// <summary>Compact output, one report per line or column value.</summary>
    public static JsonSerializerOptions Options { get; } = Create(indented: false);

    /// <summary>The same contract, indented for people reading it.</summary>
    public static JsonSerializerOptions IndentedOptions { get; } = Create(indented: true);

    public static string Serialize<T>(T value, bool indented = false)
        => JsonSerializer.Serialize(value, indented ? IndentedOptions : Options);

    /// <summary>One operation, written by <see cref="ReportJsonWriter"/>: the same text as the generic overload, without the serializer.</summary>
    public static string Serialize(OperationReport report, bool indented = false)
    {
        var buffer = new ArrayBufferWriter<byte>(indented ? 8192 : 4096);
        using (var writer = new Utf8JsonWriter(buffer, ReportJsonWriter.WriterOptions(indented)))
        {
            ReportJsonWriter.Write(writer, report);
        }

        return Encoding.UTF8.GetString(buffer.WrittenSpan);
    }

    /// <exception cref="JsonException">The text is not a report of this shape.</exception>
    public static T Deserialize<T>(string json)
        => JsonSerializer.Deserialize<T>(json, Options)
           ?? throw new JsonException($"The JSON text is null where a {typeof(T).Name} was expected.");

    private static JsonSerializerOptions Create(bool indented)
    {
        var options = new JsonSerializerOptions
        {
            PropertyNamingPolicy = ReportJsonWriter.PropertyNaming,
            Encoder = ReportJsonWriter.Encoder,
            DefaultIgnoreCondition = JsonIgnoreCondition.Never,
            WriteIndented = indented,

            // The report types from compile-time metadata; anything else (the history command's anonymous rows) by reflection.
            TypeInfoResolver = JsonTypeInfoResolver.Combine(ReportJsonContext.Default, new DefaultJsonTypeInfoResolver()),
        };
        options.Converters.Add(new JsonStringEnumConverter(ReportJsonWriter.EnumNaming, allowIntegerValues: false));
        options.MakeReadOnly(populateMissingResolver: true);
        return options;
    }
}
