using System.Text.Json;
using System.Text.Json.Serialization;
using System.Text.Json.Serialization.Metadata;

namespace BackupXe.Core.Reporting;

/// <summary>
/// The one definition of how reports become JSON, shared by the CLI's JSON output and the daemon's history
/// (report_json column): camelCase names, enums as kebab-case strings, nulls written so that a reader can
/// tell "not in the input" from "field unknown to this version".
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

    /// <exception cref="JsonException">The text is not a report of this shape.</exception>
    public static T Deserialize<T>(string json)
        => JsonSerializer.Deserialize<T>(json, Options)
           ?? throw new JsonException($"The JSON text is null where a {typeof(T).Name} was expected.");

    private static JsonSerializerOptions Create(bool indented)
    {
        var options = new JsonSerializerOptions
        {
            PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
            DefaultIgnoreCondition = JsonIgnoreCondition.Never,
            WriteIndented = indented,

            // The report types from compile-time metadata; anything else (the history command's anonymous rows) by reflection.
            TypeInfoResolver = JsonTypeInfoResolver.Combine(ReportJsonContext.Default, new DefaultJsonTypeInfoResolver()),
        };
        options.Converters.Add(new JsonStringEnumConverter(JsonNamingPolicy.KebabCaseLower, allowIntegerValues: false));
        options.MakeReadOnly(populateMissingResolver: true);
        return options;
    }
}
