namespace BackupXe.Sources.IO;

/// <summary>The first bytes of a stream that may not seek back, read to choose how to read the rest.</summary>
internal static class StreamHead
{
    /// <summary>
    /// Up to <paramref name="count"/> bytes (fewer only at the end of the stream), to be handed on with the rest through
    /// <see cref="Formats.PrefixedStream"/>. The stream is disposed when the read fails, since no reader will own it.
    /// </summary>
    public static ReadOnlyMemory<byte> Read(Stream stream, int count)
    {
        var head = new byte[count];
        try
        {
            return head.AsMemory(0, stream.ReadAtLeast(head, count, throwOnEndOfStream: false));
        }
        catch
        {
            stream.Dispose();
            throw;
        }
    }
}
