using System.Buffers;
using System.Text;
using System.Text.Json;
using BackupXe.Core.Analysis;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;

namespace BackupXe.Tests.Rendering.Support;

/// <summary>
/// The JSON report as <see cref="JsonSerializer"/> writes it with the contract's options, value by value into one
/// indented document: what <see cref="JsonReportWriter"/> wrote before it had its own writer, and the bytes that
/// writer is held to.
/// </summary>
internal static class SerializerOracle
{
    public static string Document(IEnumerable<OperationReport> operations, AnalysisFindings findings)
    {
        var buffer = new ArrayBufferWriter<byte>();
        var summary = new ReportSummary();
        using (var json = new Utf8JsonWriter(buffer, new JsonWriterOptions { Indented = true, Encoder = ReportJson.Options.Encoder }))
        {
            json.WriteStartObject();
            json.WriteNumber("schemaVersion", ReportJson.SchemaVersion);
            json.WriteStartArray("operations");
            foreach (var operation in operations)
            {
                summary.Add(operation);
                JsonSerializer.Serialize(json, operation, ReportJson.Options);
            }

            json.WriteEndArray();
            if (findings.RunsCompared.Count > 0)
            {
                json.WritePropertyName("runsCompared");
                JsonSerializer.Serialize(json, findings.RunsCompared, ReportJson.Options);
            }

            if (findings.InputFindings.Count > 0)
            {
                json.WritePropertyName("findings");
                JsonSerializer.Serialize(json, findings.InputFindings, ReportJson.Options);
            }

            json.WritePropertyName("inputs");
            JsonSerializer.Serialize(json, findings.Inputs, ReportJson.Options);
            json.WritePropertyName("summary");
            JsonSerializer.Serialize(json, summary.ToReport(findings), ReportJson.Options);
            json.WriteEndObject();
        }

        return Encoding.UTF8.GetString(buffer.WrittenSpan) + Environment.NewLine;
    }

    public static string Serialize<T>(T value, bool indented) => JsonSerializer.Serialize(value, indented ? ReportJson.IndentedOptions : ReportJson.Options);

    /// <summary>The hand-written writer's text for one value of a report type.</summary>
    public static string Written(Action<Utf8JsonWriter> write, bool indented)
    {
        var buffer = new ArrayBufferWriter<byte>();
        using (var json = new Utf8JsonWriter(buffer, ReportJsonFields.WriterOptions(indented)))
        {
            write(json);
        }

        return Encoding.UTF8.GetString(buffer.WrittenSpan);
    }

    /// <summary>
    /// The whole document as <see cref="JsonReportWriter"/> writes it. <paramref name="operations"/> is enumerated once,
    /// so a sequence that runs an analysis can feed it.
    /// </summary>
    public static string Streamed(IEnumerable<OperationReport> operations, AnalysisFindings findings)
    {
        using var bytes = new MemoryStream();
        using (var writer = new JsonReportWriter(bytes))
        {
            foreach (var operation in operations)
            {
                writer.OnOperationCompleted(operation);
            }

            writer.Complete(findings);
        }

        return Encoding.UTF8.GetString(bytes.ToArray());
    }
}
