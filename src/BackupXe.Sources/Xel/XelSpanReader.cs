using System.Buffers.Binary;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Text;

namespace BackupXe.Sources.Xel;

/// <summary>Damage found while decoding a buffer, at an offset inside it. Caught by the reader, never by a user.</summary>
internal sealed class XelDamageException(int position, string message) : Exception(message)
{
    /// <summary>Offset inside the buffer where the damage was found.</summary>
    public int Position { get; } = position;
}

/// <summary>Little-endian reads over one buffer, each checked against its end.</summary>
internal ref struct XelSpanReader(ReadOnlySpan<byte> data, int position)
{
    private readonly ReadOnlySpan<byte> _data = data;

    public int Position { get; set; } = position;

    public readonly int Length => _data.Length;

    public readonly int Remaining => _data.Length - Position;

    public byte U8() => Take(1)[0];

    public ushort U16() => BinaryPrimitives.ReadUInt16LittleEndian(Take(2));

    public uint U32() => BinaryPrimitives.ReadUInt32LittleEndian(Take(4));

    public ulong U64() => BinaryPrimitives.ReadUInt64LittleEndian(Take(8));

    public Guid Guid() => new(Take(16));

    public ReadOnlySpan<byte> Bytes(int count) => Take(count);

    /// <summary>A UTF-16LE string ended by a two-byte NUL, at any (even odd) offset.</summary>
    public string WideStringZ()
    {
        var start = Position;
        for (var i = start; i + 1 < _data.Length; i += 2)
        {
            if (_data[i] == 0 && _data[i + 1] == 0)
            {
                var text = Encoding.Unicode.GetString(_data[start..i]);
                Position = i + 2;
                return text;
            }
        }

        throw new XelDamageException(start, "string runs past the end of its buffer");
    }

    public void Skip(int count) => Take(count);

    // Several reads per record: inlined, with the throw kept out of line (a twelfth of a listing run was this call).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private ReadOnlySpan<byte> Take(int count)
    {
        if (count < 0 || count > _data.Length - Position)
        {
            Short(count);
        }

        var span = _data.Slice(Position, count);
        Position += count;
        return span;
    }

    [DoesNotReturn]
    [MethodImpl(MethodImplOptions.NoInlining)]
    private readonly void Short(int count) =>
        throw new XelDamageException(Math.Min(Position, _data.Length), $"needs {count} bytes, {Math.Max(0, _data.Length - Position)} left");
}
