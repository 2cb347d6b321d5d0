using System.Buffers;
using System.Text;
using System.Text.Json;
using BackupXe.Core.Analysis;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Rendering;

/// <summary>
/// The JSON report (docs/json-schema.md) written as the analysis runs: one document whose <c>operations</c>
/// array grows as operations complete, followed by <c>inputs</c> and <c>summary</c>, which only the end of
/// the run knows. The UTF-8 goes to the stream as it is, in blocks of about <see cref="BlockBytes"/>, so memory
/// stays at one block and the operations in flight.
/// </summary>
public sealed class JsonReportWriter : IReportStream, IDisposable
{
    /// <summary>
    /// Large blocks, few writes: a write call per small piece of a large report would cost more system time than the
    /// report's writing itself (docs/performance.md, "The JSON report").
    /// </summary>
    private const int BlockBytes = 256 * 1024;

    private readonly Stream _output;
    private readonly ArrayBufferWriter<byte> _buffer = new(BlockBytes * 2);
    private readonly Utf8JsonWriter _json;
    private readonly EscapedJsonCache _texts = new();
    private readonly ReportSummary _summary = new();

    /// <param name="output">Receives the UTF-8 bytes (ASCII, as the contract escapes everything else); flushed at the end, not closed.</param>
    public JsonReportWriter(Stream output)
    {
        _output = output;
        _json = new Utf8JsonWriter(_buffer, ReportJsonFields.WriterOptions(indented: true));
        _json.WriteStartObject();
        _json.WriteNumber("schemaVersion", ReportJson.SchemaVersion);
        _json.WriteStartArray("operations");
    }

    public void OnOperationCompleted(OperationReport report)
    {
        _summary.Add(report);
        ReportJsonFields.Write(_json, report, _texts);
        if (_json.BytesPending + _buffer.WrittenCount >= BlockBytes)
        {
            Drain();
        }
    }

    public void Complete(AnalysisFindings findings)
    {
        _json.WriteEndArray();
        ReportJsonFields.WriteRunsCompared(_json, findings);
        _json.WritePropertyName("inputs");
        ReportJsonFields.Write(_json, findings.Inputs);
        _json.WritePropertyName("summary");
        ReportJsonFields.Write(_json, _summary.ToReport(findings));
        _json.WriteEndObject();
        _json.Flush();
        _buffer.Write(Encoding.UTF8.GetBytes(Environment.NewLine));
        Drain();
        _output.Flush();
    }

    public void Dispose() => _json.Dispose();

    private void Drain()
    {
        _json.Flush();
        _output.Write(_buffer.WrittenSpan);
        _buffer.ResetWrittenCount();
    }
}
