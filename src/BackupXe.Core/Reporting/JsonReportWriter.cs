using System.Buffers;
using System.Text;
using System.Text.Json;
using BackupXe.Core.Analysis;

namespace BackupXe.Core.Reporting;

/// <summary>
/// The JSON report (docs/json-schema.md) written as the analysis runs: one document whose <c>operations</c>
/// array grows as operations complete, followed by <c>inputs</c> and <c>summary</c>, which only the end of
/// the run knows. Bytes go out in blocks of about <see cref="BlockBytes"/>, so memory stays at one block and
/// the operations in flight.
/// </summary>
public sealed class JsonReportWriter : IReportStream, IDisposable
{
    private const int BlockBytes = 64 * 1024;

    private readonly TextWriter _output;
    private readonly ArrayBufferWriter<byte> _buffer = new(BlockBytes * 2);
    private readonly Utf8JsonWriter _json;
    private readonly ReportSummary _summary = new();
    private char[] _chars = new char[BlockBytes * 2];

    public JsonReportWriter(TextWriter output)
    {
        _output = output;
        _json = new Utf8JsonWriter(_buffer, new JsonWriterOptions { Indented = true, Encoder = ReportJson.Options.Encoder });
        _json.WriteStartObject();
        _json.WriteNumber("schemaVersion", ReportJson.SchemaVersion);
        _json.WriteStartArray("operations");
    }

    public void OnOperationCompleted(OperationReport report)
    {
        _summary.Add(report);
        JsonSerializer.Serialize(_json, report, ReportJson.Options);
        if (_json.BytesPending + _buffer.WrittenCount >= BlockBytes)
        {
            Drain();
        }
    }

    public void Complete(AnalysisFindings findings)
    {
        _json.WriteEndArray();
        _json.WritePropertyName("inputs");
        JsonSerializer.Serialize(_json, findings.Inputs, ReportJson.Options);
        _json.WritePropertyName("summary");
        JsonSerializer.Serialize(_json, _summary.ToReport(findings), ReportJson.Options);
        _json.WriteEndObject();
        Drain();
        _output.WriteLine();
    }

    public void Dispose() => _json.Dispose();

    // Each block ends after a whole value, so it never splits a UTF-8 sequence.
    private void Drain()
    {
        _json.Flush();
        var bytes = _buffer.WrittenSpan;
        var needed = Encoding.UTF8.GetMaxCharCount(bytes.Length);
        if (_chars.Length < needed)
        {
            _chars = new char[needed];
        }

        var count = Encoding.UTF8.GetChars(bytes, _chars);
        _output.Write(_chars, 0, count);
        _buffer.ResetWrittenCount();
    }
}
