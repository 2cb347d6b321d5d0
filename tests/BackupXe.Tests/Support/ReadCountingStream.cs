namespace BackupXe.Tests.Support;

/// <summary>
/// A file's bytes that count how many were read, for tests of how far a reader reads ahead. Every read of a class
/// derived from MemoryStream, of a span or asynchronous, comes through this overload, so each byte is counted once.
/// </summary>
internal sealed class ReadCountingStream(byte[] bytes) : MemoryStream(bytes, writable: false)
{
    public long BytesRead { get; private set; }

    public override int Read(byte[] buffer, int offset, int count)
    {
        var read = base.Read(buffer, offset, count);
        BytesRead += read;
        return read;
    }
}
