using System.Buffers;
using System.Buffers.Binary;

namespace BackupXe.Sources.Xel;

/// <summary>One log buffer as the walk found it. <see cref="Bytes"/> is reused: valid until the walk moves on.</summary>
/// <param name="Start">Offset of the first record inside the buffer.</param>
/// <param name="End">Offset just past the last used byte (the junk tail after it is never read).</param>
/// <param name="Cut">The stream ended inside the records: the last one may be incomplete, and the cut is already reported.</param>
internal readonly record struct XelLogBuffer(long Offset, ushort Type, byte[] Bytes, int Start, int End, Guid Session, bool Cut = false);

/// <summary>
/// Walks an event_file stream buffer by buffer (docs/xel-format.md sections 1-3), holding one buffer in memory at a time.
/// A header that cannot be a buffer is reported with its offset and skipped by scanning sector by sector for the
/// next one; a stream that ends inside a buffer (a file still being written) ends the walk with the complete records
/// of that buffer, and is reported as such.
/// </summary>
internal sealed class XelBufferWalk(Stream stream, XelProblemReport report)
{
    // Pooled: a rollover set opens file after file, and buffers are usually the same few hundred KB.
    private byte[] _bytes = ArrayPool<byte>.Shared.Rent(64 * 1024);

    /// <summary>The file's magic or version is not one this reader knows: nothing of it was read.</summary>
    public bool Rejected { get; private set; }

    /// <summary>The stream ended inside a buffer.</summary>
    public bool Truncated { get; private set; }

    public IEnumerable<XelLogBuffer> Buffers()
    {
        try
        {
            foreach (var buffer in Walk())
            {
                yield return buffer;
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(_bytes);
            _bytes = [];
        }
    }

    private IEnumerable<XelLogBuffer> Walk()
    {
        var header = ReadUpTo(0, XelLayout.SectorSize);
        if (header < 6 || BinaryPrimitives.ReadUInt32LittleEndian(_bytes) != XelLayout.FileMagic)
        {
            Rejected = true;
            report(0, "not an Extended Events .xel file (its first bytes are not the event_file header)");
            yield break;
        }

        var version = BinaryPrimitives.ReadUInt16LittleEndian(_bytes.AsSpan(4));
        if (version != XelLayout.Version)
        {
            Rejected = true;
            report(4, $"unsupported XEL format version {version} (this reader knows version {XelLayout.Version})");
            yield break;
        }

        if (header < XelLayout.SectorSize)
        {
            Truncated = true;
            report(header, $"file ends inside its {XelLayout.SectorSize}-byte header: no log buffer to read (a file still being written?)");
            yield break;
        }

        long position = XelLayout.SectorSize;
        var seekingFirst = true;
        var resyncing = false;
        while (true)
        {
            var got = ReadUpTo(0, XelLayout.BufferHeaderSize);
            if (got == 0)
            {
                if (seekingFirst)
                {
                    Truncated = true;
                    report(position, "the file holds no log buffer after its header: nothing to read (a file still being written?)");
                }

                yield break;
            }

            if (got < XelLayout.BufferHeaderSize)
            {
                Truncated = true;
                report(position, $"file ends {got} bytes into a log buffer header: read up to the last complete buffer (a file still being written?)");
                yield break;
            }

            var span = _bytes.AsSpan(0, XelLayout.BufferHeaderSize);
            var signature = BinaryPrimitives.ReadUInt32LittleEndian(span[0x08..]);
            var bufferVersion = BinaryPrimitives.ReadUInt16LittleEndian(span[0x0C..]);
            var type = BinaryPrimitives.ReadUInt16LittleEndian(span[0x0E..]);
            var size = BinaryPrimitives.ReadUInt32LittleEndian(span[0x10..]);
            var dataOffset = BinaryPrimitives.ReadUInt16LittleEndian(span[0x16..]);
            var used = BinaryPrimitives.ReadUInt32LittleEndian(span[0x18..]);
            var session = new Guid(span.Slice(0x20, 16));

            var framed = signature == XelLayout.BufferSignature
                && size is >= XelLayout.BufferHeaderSize and <= XelLayout.MaxBufferSize
                && dataOffset >= XelLayout.BufferHeaderSize
                && (ulong)dataOffset + used <= size;
            if (signature == XelLayout.BufferSignature && bufferVersion != XelLayout.Version && !resyncing)
            {
                Rejected = true;
                report(position + 0x0C, $"unsupported XEL format version {bufferVersion} in a log buffer header (this reader knows version {XelLayout.Version})");
                yield break;
            }

            if (!framed || bufferVersion != XelLayout.Version)
            {
                // Not a buffer header: before the first buffer that is header padding; later it is damage. Either way
                // the next candidate is the next sector, since every buffer seen starts on one.
                if (!seekingFirst && !resyncing)
                {
                    report(position, signature == XelLayout.BufferSignature
                        ? $"damaged log buffer header (size {size}, data at {dataOffset}, {used} bytes used); looking for the next buffer"
                        : "no log buffer header where one should start (damaged); looking for the next buffer");
                    resyncing = true;
                }

                if (seekingFirst && position >= XelLayout.MaxHeaderScan)
                {
                    Rejected = true;
                    report(position, $"no log buffer found in the first {XelLayout.MaxHeaderScan} bytes after the header");
                    yield break;
                }

                if (ReadUpTo(XelLayout.BufferHeaderSize, XelLayout.SectorSize - XelLayout.BufferHeaderSize) < XelLayout.SectorSize - XelLayout.BufferHeaderSize)
                {
                    if (seekingFirst)
                    {
                        Truncated = true;
                        report(position, "the file ends before its first log buffer: nothing to read");
                    }

                    yield break;
                }

                position += XelLayout.SectorSize;
                continue;
            }

            seekingFirst = false;
            resyncing = false;
            var length = (int)size;
            var have = XelLayout.BufferHeaderSize + ReadUpTo(XelLayout.BufferHeaderSize, length - XelLayout.BufferHeaderSize);
            var end = dataOffset + (int)used;
            if (have < length)
            {
                Truncated = true;
                var complete = have >= end;
                report(position, complete
                    ? $"file ends {have} bytes into a {length}-byte log buffer: read up to the last complete buffer and this one's records, which are all there (a file still being written?)"
                    : $"file ends {have} bytes into a {length}-byte log buffer: read up to the last complete record (a file still being written?)");
                if (complete)
                {
                    yield return new XelLogBuffer(position, type, _bytes, dataOffset, end, session);
                }
                else if (type == XelLayout.EventBuffer && have > dataOffset)
                {
                    // The records that arrived whole are decoded; the one the cut runs through is not.
                    yield return new XelLogBuffer(position, type, _bytes, dataOffset, have, session, Cut: true);
                }

                yield break;
            }

            yield return new XelLogBuffer(position, type, _bytes, dataOffset, end, session);
            position += length;
        }
    }

    /// <summary>
    /// Hands <paramref name="buffer"/>'s bytes to the caller, who returns them to the shared pool when done: the walk
    /// reads on into a fresh array, so a buffer decoded on another thread is not copied first.
    /// </summary>
    public byte[] Detach(XelLogBuffer buffer)
    {
        if (!ReferenceEquals(buffer.Bytes, _bytes))
        {
            throw new InvalidOperationException("Only the buffer the walk handed out last can be detached.");
        }

        var taken = _bytes;
        _bytes = ArrayPool<byte>.Shared.Rent(taken.Length);
        return taken;
    }

    /// <summary>
    /// Reads up to <paramref name="count"/> bytes into <see cref="_bytes"/> at <paramref name="at"/>, growing it only
    /// as data actually arrives, so a damaged size on a short stream never allocates the size it claims.
    /// </summary>
    private int ReadUpTo(int at, int count)
    {
        var total = 0;
        while (total < count)
        {
            var want = count - total;
            if (_bytes.Length < at + total + 1)
            {
                var grown = ArrayPool<byte>.Shared.Rent((int)Math.Min((long)at + count, Math.Max(_bytes.Length * 2L, at + total + 1)));
                _bytes.AsSpan(0, at + total).CopyTo(grown);
                ArrayPool<byte>.Shared.Return(_bytes);
                _bytes = grown;
            }

            var room = Math.Min(want, _bytes.Length - (at + total));
            var read = stream.ReadAtLeast(_bytes.AsSpan(at + total, room), room, throwOnEndOfStream: false);
            total += read;
            if (read < room)
            {
                break;
            }
        }

        return total;
    }
}
