using System.Text;

namespace BackupXe.Tests.Support;

/// <summary>
/// Standard output as bytes for an in-process run whose <see cref="Console.Out"/> is captured: the UTF-8 written
/// here is decoded into the same writer, in the order it is written, as a terminal would show both.
/// </summary>
internal sealed class DecodingStream(TextWriter text) : Stream
{
    private readonly Decoder _decoder = new UTF8Encoding(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true).GetDecoder();

    public override bool CanRead => false;

    public override bool CanSeek => false;

    public override bool CanWrite => true;

    public override long Length => throw new NotSupportedException();

    public override long Position
    {
        get => throw new NotSupportedException();
        set => throw new NotSupportedException();
    }

    public override void Write(byte[] buffer, int offset, int count) => Write(buffer.AsSpan(offset, count));

    public override void Write(ReadOnlySpan<byte> buffer)
    {
        var chars = new char[_decoder.GetCharCount(buffer, flush: false)];
        var count = _decoder.GetChars(buffer, chars, flush: false);
        text.Write(chars, 0, count);
    }

    public override void Flush() => text.Flush();

    public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();
}
