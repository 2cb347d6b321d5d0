using System.Buffers;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;

namespace BackupXe.Cli.Rendering;

/// <summary>
/// UTF-8 output gathered in one large block and handed to its stream a block at a time: a listing of millions of
/// events makes one system call per megabyte instead of one per field, to a file and a pipe alike. Without a stream
/// it only gathers, growing as it must: the part of a listing formatted on another thread, copied out in order.
/// </summary>
internal sealed class OutputBuffer : IBufferWriter<byte>
{
    /// <summary>Bytes gathered before they go to the stream.</summary>
    public const int BlockSize = 1 << 20;

    private readonly Stream? _stream;
    private byte[] _block;
    private int _count;

    public OutputBuffer(Stream stream)
    {
        _stream = stream;
        _block = new byte[BlockSize + (BlockSize / 4)];
    }

    /// <summary>Gathers only; starts at <paramref name="capacity"/> bytes (a decoded log buffer's listing is a few hundred KB).</summary>
    public OutputBuffer(int capacity)
    {
        _block = new byte[capacity];
    }

    /// <summary>What is gathered and not sent yet.</summary>
    public ReadOnlySpan<byte> Gathered => _block.AsSpan(0, _count);

    /// <summary>How many bytes are gathered and not sent yet.</summary>
    public int Length => _count;

    /// <summary>How many blocks were sent to the stream: what was gathered before a change of it is gone.</summary>
    public long Sends { get; private set; }

    /// <summary>Forgets what is gathered (once copied out), keeping the memory for the next part.</summary>
    public void Clear() => _count = 0;

    /// <summary>Forgets what was gathered after the first <paramref name="length"/> bytes (not sent yet).</summary>
    public void TruncateTo(int length)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(length, _count);
        _count = length;
    }

    // Called several times per value, like GetSpan and Write: inlined, the checks' throws out of line.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Advance(int count)
    {
        if ((uint)count > (uint)(_block.Length - _count))
        {
            AdvancedTooFar(count);
        }

        _count += count;
    }

    // Room first: it may replace the block.
    public Memory<byte> GetMemory(int sizeHint = 0)
    {
        var room = Room(sizeHint);
        return _block.AsMemory(_count, room);
    }

    // The listing asks for a few bytes at a time, several times per value: when they fit, no call to Room, which would
    // otherwise run for every value.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public Span<byte> GetSpan(int sizeHint = 0)
    {
        if (_block.Length - _count >= Math.Max(sizeHint, 1))
        {
            return _block.AsSpan(_count);
        }

        return GrownSpan(sizeHint);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Write(ReadOnlySpan<byte> bytes)
    {
        bytes.CopyTo(GetSpan(bytes.Length));
        _count += bytes.Length;
    }

    /// <summary>
    /// Writes prepared bytes by whole blocks when the room allows: the bytes past their length land where the next
    /// write goes, and are overwritten or never counted.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Write(PreparedBytes bytes)
    {
        var blocks = bytes.Blocks;
        if (_block.Length - _count < blocks.Length)
        {
            Write(bytes.Bytes);
            return;
        }

        ref var source = ref MemoryMarshal.GetArrayDataReference(blocks);
        ref var target = ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(_block), _count);
        for (nuint i = 0; i < (nuint)blocks.Length; i += PreparedBytes.BlockSize)
        {
            Vector128.LoadUnsafe(ref source, i).StoreUnsafe(ref target, i);
        }

        _count += bytes.Length;
    }

    /// <summary>
    /// Writes <paramref name="length"/> bytes gathered in <paramref name="source"/> from <paramref name="start"/>: a
    /// short run (a CSV cell) by whole 16-byte blocks when both buffers have room past it, else by a plain copy.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Write(OutputBuffer source, int start, int length)
    {
        var blocks = (length + PreparedBytes.BlockSize - 1) & ~(PreparedBytes.BlockSize - 1);
        if ((uint)start > (uint)source._count || (uint)length > (uint)(source._count - start) || length > 2 * PreparedBytes.BlockSize
            || source._block.Length - start < blocks || _block.Length - _count < blocks)
        {
            Write(source.Gathered.Slice(start, length));
            return;
        }

        ref var from = ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(source._block), start);
        ref var target = ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(_block), _count);
        for (nuint i = 0; i < (nuint)blocks; i += PreparedBytes.BlockSize)
        {
            Vector128.LoadUnsafe(ref from, i).StoreUnsafe(ref target, i);
        }

        _count += length;
    }

    /// <summary>
    /// Writes <paramref name="separator"/> and then the run of <paramref name="source"/> from each start to its end
    /// (none where the end is not past the start), in order: a CSV row's cells. When both buffers have room for every
    /// run rounded up to whole 16-byte blocks, the runs are copied by blocks with no check of their own.
    /// </summary>
    public void WriteRuns(byte separator, OutputBuffer source, ReadOnlySpan<int> starts, ReadOnlySpan<int> ends)
    {
        if (starts.Length != ends.Length)
        {
            throw new ArgumentException("A run needs a start and an end.", nameof(ends));
        }

        // Runs lie inside what the source gathered, apart: together no longer than it, each rounded up by less than a block.
        var bound = (long)source._count + ((long)starts.Length * (1 + PreparedBytes.BlockSize));
        if (_block.Length - _count < bound || source._block.Length - source._count < PreparedBytes.BlockSize)
        {
            for (var i = 0; i < starts.Length; i++)
            {
                Write(separator);
                if (ends[i] > starts[i])
                {
                    Write(source, starts[i], ends[i] - starts[i]);
                }
            }

            return;
        }

        ref var from = ref MemoryMarshal.GetArrayDataReference(source._block);
        ref var target = ref MemoryMarshal.GetArrayDataReference(_block);
        var at = (nuint)_count;
        for (var i = 0; i < starts.Length; i++)
        {
            Unsafe.Add(ref target, at++) = separator;
            var (start, end) = (starts[i], ends[i]);
            if (end <= start)
            {
                continue;
            }

            if ((uint)start > (uint)source._count || (uint)end > (uint)source._count)
            {
                throw new ArgumentOutOfRangeException(nameof(ends), "A run lies outside what the source gathered.");
            }

            for (nuint k = 0; k < (nuint)(end - start); k += PreparedBytes.BlockSize)
            {
                Vector128.LoadUnsafe(ref from, (nuint)start + k).StoreUnsafe(ref target, at + k);
            }

            at += (nuint)(end - start);
        }

        _count = (int)at;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Write(byte value)
    {
        if (_count < _block.Length)
        {
            _block[_count++] = value;
            return;
        }

        GetSpan(1)[0] = value;
        _count++;
    }

    /// <summary>Sends the block once it is full; called between events, so a block ends on a whole line.</summary>
    public void WriteIfFull()
    {
        if (_stream is not null && _count >= BlockSize)
        {
            Send();
        }
    }

    /// <summary>Sends whatever is gathered and flushes the stream (before a source's problems go to standard error).</summary>
    public async Task FlushAsync(CancellationToken cancellationToken)
    {
        Send();
        if (_stream is not null)
        {
            await _stream.FlushAsync(cancellationToken);
        }
    }

    private void Send()
    {
        if (_stream is not null && _count > 0)
        {
            _stream.Write(_block, 0, _count);
            _count = 0;
            Sends++;
        }
    }

    private static void AdvancedTooFar(int count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        throw new InvalidOperationException("Advanced past the memory handed out.");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private Span<byte> GrownSpan(int sizeHint)
    {
        var room = Room(sizeHint);
        return _block.AsSpan(_count, room);
    }

    private int Room(int sizeHint)
    {
        var wanted = Math.Max(sizeHint, 1);
        if (_block.Length - _count < wanted)
        {
            if (_stream is null)
            {
                Array.Resize(ref _block, Math.Max(_block.Length * 2, _count + wanted));
                return _block.Length - _count;
            }

            Send();
            if (_block.Length < wanted)
            {
                // One value larger than the block (a long SQL text): the block grows to hold it.
                _block = new byte[wanted];
            }
        }

        return _block.Length - _count;
    }
}
