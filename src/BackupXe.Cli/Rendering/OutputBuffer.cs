using System.Buffers;

namespace BackupXe.Cli.Rendering;

/// <summary>
/// UTF-8 output gathered in one large block and handed to its stream a block at a time: a listing of millions of
/// events makes one system call per megabyte instead of one per field, to a file and a pipe alike.
/// </summary>
internal sealed class OutputBuffer(Stream stream) : IBufferWriter<byte>
{
    /// <summary>Bytes gathered before they go to the stream.</summary>
    public const int BlockSize = 1 << 20;

    private byte[] _block = new byte[BlockSize + (BlockSize / 4)];
    private int _count;

    public void Advance(int count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        if (count > _block.Length - _count)
        {
            throw new InvalidOperationException("Advanced past the memory handed out.");
        }

        _count += count;
    }

    public Memory<byte> GetMemory(int sizeHint = 0) => _block.AsMemory(_count, Room(sizeHint));

    public Span<byte> GetSpan(int sizeHint = 0) => _block.AsSpan(_count, Room(sizeHint));

    public void Write(ReadOnlySpan<byte> bytes)
    {
        bytes.CopyTo(GetSpan(bytes.Length));
        _count += bytes.Length;
    }

    public void Write(byte value)
    {
        GetSpan(1)[0] = value;
        _count++;
    }

    /// <summary>Sends the block once it is full; called between events, so a block ends on a whole line.</summary>
    public void WriteIfFull()
    {
        if (_count >= BlockSize)
        {
            Send();
        }
    }

    /// <summary>Sends whatever is gathered and flushes the stream (before a source's problems go to standard error).</summary>
    public async Task FlushAsync(CancellationToken cancellationToken)
    {
        Send();
        await stream.FlushAsync(cancellationToken);
    }

    private void Send()
    {
        if (_count > 0)
        {
            stream.Write(_block, 0, _count);
            _count = 0;
        }
    }

    private int Room(int sizeHint)
    {
        var wanted = Math.Max(sizeHint, 1);
        if (_block.Length - _count < wanted)
        {
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
