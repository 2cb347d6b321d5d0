using System.Buffers;
using System.Text;
using System.Text.Json;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Rendering;

/// <summary>
/// <c>watch --format json</c>: one compact operation object per line (JSON Lines), written as UTF-8 and flushed as
/// each operation ends, so that a consumer reads each as it comes. One write per line: through the console's text
/// writer a line went out in writes of 256 bytes.
/// </summary>
public sealed class JsonLinesWriter : IDisposable
{
    private readonly Stream _output;
    private readonly ArrayBufferWriter<byte> _buffer = new(16 * 1024);
    private readonly Utf8JsonWriter _json;
    private readonly EscapedJsonCache _texts = new();
    private readonly byte[] _newLine = Encoding.UTF8.GetBytes(Environment.NewLine);

    /// <param name="output">Receives the lines; flushed after each, not closed.</param>
    public JsonLinesWriter(Stream output)
    {
        _output = output;
        _json = new Utf8JsonWriter(_buffer, ReportJsonFields.WriterOptions(indented: false));
    }

    public void Write(OperationReport report)
    {
        ReportJsonFields.Write(_json, report, _texts);
        _json.Flush();
        _buffer.Write(_newLine);
        _output.Write(_buffer.WrittenSpan);
        _output.Flush();
        _buffer.ResetWrittenCount();

        // The next line is a new top-level value.
        _json.Reset();
    }

    public void Dispose() => _json.Dispose();
}
