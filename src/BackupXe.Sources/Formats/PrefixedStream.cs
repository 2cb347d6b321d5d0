using BackupXe.Sources.IO;
namespace BackupXe.Sources.Formats;

/// <summary>
/// The sniffed prefix followed by the rest of the input: a reader sees the input from its first byte although
/// the prefix was already taken off a stream that cannot rewind (standard input, a pipe).
/// </summary>
internal sealed class PrefixedStream(ReadOnlyMemory<byte> prefix, Stream rest) : ForwardReadStream(rest)
{
    private ReadOnlyMemory<byte> _prefix = prefix;

    public override int Read(Span<byte> buffer)
    {
        if (_prefix.IsEmpty)
        {
            return Inner.Read(buffer);
        }

        var length = Math.Min(buffer.Length, _prefix.Length);
        _prefix.Span[..length].CopyTo(buffer);
        _prefix = _prefix[length..];
        return length;
    }

    public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
    {
        if (_prefix.IsEmpty)
        {
            return Inner.ReadAsync(buffer, cancellationToken);
        }

        return ValueTask.FromResult(Read(buffer.Span));
    }

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
        => ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();
}
