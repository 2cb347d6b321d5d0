using System.Buffers;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Text.Json.Serialization.Metadata;
using BackupXe.Core.Events;
using BackupXe.Core.History;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using OperationStatus = BackupXe.Core.Reporting.OperationStatus;

namespace BackupXe.Core.Rendering;

/// <summary>
/// How reports become JSON, shared by the CLI's JSON output and the daemon's history (report_json column):
/// camelCase names, enums as kebab-case strings, nulls written so that a reader can tell "not in the input" from
/// "field unknown to this version". The serializer with these options reads reports back and is the definition;
/// the report types are written by <see cref="ReportJsonFields"/>, which the tests hold to the serializer's bytes.
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
        => JsonSerializer.Serialize(value, TypeInfo<T>(indented ? IndentedOptions : Options));

    /// <summary>One operation, written by <see cref="ReportJsonFields"/>: the same text as the generic overload, without the serializer.</summary>
    public static string Serialize(OperationReport report, bool indented = false)
    {
        var buffer = new ArrayBufferWriter<byte>(indented ? 8192 : 4096);
        using (var writer = new Utf8JsonWriter(buffer, ReportJsonFields.WriterOptions(indented)))
        {
            ReportJsonFields.Write(writer, report);
        }

        return Encoding.UTF8.GetString(buffer.WrittenSpan);
    }

    /// <exception cref="JsonException">The text is not a report of this shape.</exception>
    public static T Deserialize<T>(string json)
        => JsonSerializer.Deserialize(json, TypeInfo<T>(Options))
           ?? throw new JsonException($"The JSON text is null where a {typeof(T).Name} was expected.");

    /// <exception cref="NotSupportedException">The type has no compile-time metadata (ReportJsonContext).</exception>
    internal static JsonTypeInfo<T> TypeInfo<T>(JsonSerializerOptions options) => (JsonTypeInfo<T>)options.GetTypeInfo(typeof(T));

    private static JsonSerializerOptions Create(bool indented)
    {
        var options = new JsonSerializerOptions
        {
            PropertyNamingPolicy = ReportJsonFields.PropertyNaming,
            Encoder = ReportJsonFields.Encoder,
            DefaultIgnoreCondition = JsonIgnoreCondition.Never,
            WriteIndented = indented,

            // Every type the product writes or reads has compile-time metadata (ReportJsonContext), so the native
            // build (docs/installation.md), which has no reflection serializer, writes what the tests check. A type
            // missing from the context fails loudly in both builds instead of being written by reflection in one.
            TypeInfoResolver = ReportJsonContext.Default,
        };
        foreach (var converter in EnumConverters())
        {
            options.Converters.Add(converter);
        }

        options.MakeReadOnly();
        return options;
    }

    /// <summary>
    /// The contract's enum spelling for each enum the reports carry. One generic converter per type rather than the
    /// non-generic factory, which makes its converters at run time and so is unavailable to a native build; a test
    /// holds this list to every public enum of the assembly.
    /// </summary>
    internal static IEnumerable<JsonConverter> EnumConverters()
    {
        yield return Spelled<OperationKind>();
        yield return Spelled<OperationScope>();
        yield return Spelled<OperationPhase>();
        yield return Spelled<PhaseEdge>();
        yield return Spelled<BufferParameter>();
        yield return Spelled<OperationStatus>();
        yield return Spelled<WaitAttribution>();
        yield return Spelled<Bottleneck>();
        yield return Spelled<Confidence>();
        yield return Spelled<DeviceKind>();
        yield return Spelled<HistorySource>();
        yield return Spelled<CopyStage>();
        yield return Spelled<GainBasis>();
        yield return Spelled<SnapshotEvent>();
        yield return Spelled<QuietKind>();
        yield return Spelled<BaselineVerdict>();
        yield return Spelled<Tuning.TrialPurpose>();
        yield return Spelled<Tuning.LimitingSide>();
        yield return Spelled<Tuning.RestoreSide>();
        yield return Spelled<Tuning.UrlStorage>();
        yield return Spelled<Tuning.RateSource>();
        yield return Spelled<Diagnosis.DefectSymptom>();
        yield return Spelled<Parsing.MessageSide>();
        yield return Spelled<Drill.DrillStatus>();
        yield return Spelled<Fleet.ComplianceState>();
        yield return Spelled<Fleet.ChainState>();
        yield return Spelled<Fleet.RtoSource>();
        yield return Spelled<Fleet.ComplianceAspect>();
    }

    private static JsonStringEnumConverter<T> Spelled<T>()
        where T : struct, Enum
        => new(ReportJsonFields.EnumNaming, allowIntegerValues: false);
}
