namespace BackupXe.Sources.IO;

/// <summary>
/// A stream read once from start to end over another, which it owns: what every filter under the text readers is
/// (a replayed prefix, UTF-8 appended to UTF-16, long CDATA handed on as text). Only reading is left to the filter.
/// </summary>
internal abstract class ForwardReadStream(Stream inner) : Stream
{
    /// <summary>The stream this one reads from, disposed with it.</summary>
    protected Stream Inner { get; } = inner;

    public sealed override bool CanRead => true;

    public sealed override bool CanSeek => false;

    public sealed override bool CanWrite => false;

    public sealed override long Length => throw new NotSupportedException();

    public sealed override long Position
    {
        get => throw new NotSupportedException();
        set => throw new NotSupportedException();
    }

    public abstract override int Read(Span<byte> buffer);

    public sealed override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

    public sealed override void Flush()
    {
    }

    public sealed override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public sealed override void SetLength(long value) => throw new NotSupportedException();

    public sealed override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            Inner.Dispose();
        }

        base.Dispose(disposing);
    }
}
