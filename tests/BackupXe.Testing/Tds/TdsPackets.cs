using System.Buffers.Binary;

namespace BackupXe.Testing.Tds;

/// <summary>TDS packet types and the 8-byte packet header ([MS-TDS] 2.2.3.1).</summary>
internal static class TdsPacketType
{
    public const byte SqlBatch = 0x01;
    public const byte Rpc = 0x03;
    public const byte TabularResult = 0x04;
    public const byte Attention = 0x06;
    public const byte Login7 = 0x10;
    public const byte PreLogin = 0x12;
}

/// <summary>One client message: its packet type and the payload of all its packets joined.</summary>
internal sealed record TdsMessage(byte Type, byte[] Payload);

/// <summary>Reads whole messages (packets up to the end-of-message bit) from a stream.</summary>
internal static class TdsPacketReader
{
    private const int HeaderLength = 8;
    private const byte EndOfMessage = 0x01;

    /// <summary>The next message, or null when the peer closed the connection.</summary>
    public static async Task<TdsMessage?> ReadAsync(Stream stream, CancellationToken cancellationToken)
    {
        var header = new byte[HeaderLength];
        using var payload = new MemoryStream();
        while (true)
        {
            if (!await FillAsync(stream, header, cancellationToken))
            {
                return null;
            }

            // Length is big-endian and counts the header ([MS-TDS] 2.2.3.1.3).
            var length = BinaryPrimitives.ReadUInt16BigEndian(header.AsSpan(2));
            if (length < HeaderLength)
            {
                throw new InvalidDataException($"TDS packet length {length} is shorter than its header.");
            }

            var body = new byte[length - HeaderLength];
            if (!await FillAsync(stream, body, cancellationToken))
            {
                return null;
            }

            payload.Write(body);
            if ((header[1] & EndOfMessage) != 0)
            {
                return new TdsMessage(header[0], payload.ToArray());
            }
        }
    }

    private static async Task<bool> FillAsync(Stream stream, byte[] buffer, CancellationToken cancellationToken)
    {
        var read = 0;
        while (read < buffer.Length)
        {
            int n;
            try
            {
                n = await stream.ReadAsync(buffer.AsMemory(read), cancellationToken);
            }
            catch (IOException)
            {
                return false;
            }

            if (n == 0)
            {
                return false;
            }

            read += n;
        }

        return true;
    }
}

/// <summary>Splits a server message into packets of the negotiated size and sends them.</summary>
internal sealed class TdsPacketWriter(Stream stream)
{
    private const ushort ServerProcessId = 51;
    private byte packetId = 1;

    /// <summary>Negotiated in LOGIN7 (ENVCHANGE type 4); 4096 before that ([MS-TDS] 2.2.6.4).</summary>
    public int PacketSize { get; set; } = 4096;

    /// <summary>
    /// Sends <paramref name="data"/> as packets of type 0x04. With <paramref name="endOfMessage"/> false every
    /// packet leaves the EOM bit clear, so a result can be streamed row by row.
    /// </summary>
    public Task SendAsync(ReadOnlyMemory<byte> data, bool endOfMessage, CancellationToken cancellationToken) =>
        SendAsync(data, [], endOfMessage, cancellationToken);

    /// <summary>The tokens built so far, with the packet ends they asked for (<see cref="TdsTokens.EndPacket"/>).</summary>
    public Task SendAsync(TdsTokens tokens, bool endOfMessage, CancellationToken cancellationToken)
    {
        var breaks = tokens.Breaks.ToArray();
        return SendAsync(tokens.Take(), breaks, endOfMessage, cancellationToken);
    }

    private async Task SendAsync(ReadOnlyMemory<byte> data, int[] breaks, bool endOfMessage, CancellationToken cancellationToken)
    {
        var chunk = PacketSize - 8;
        var offset = 0;
        var nextBreak = 0;
        do
        {
            while (nextBreak < breaks.Length && breaks[nextBreak] <= offset)
            {
                nextBreak++;
            }

            var end = nextBreak < breaks.Length ? Math.Min(breaks[nextBreak], data.Length) : data.Length;
            var size = Math.Min(chunk, end - offset);
            var last = offset + size >= data.Length;
            var packet = new byte[8 + size];
            packet[0] = TdsPacketType.TabularResult;
            packet[1] = (byte)(last && endOfMessage ? 0x01 : 0x00);
            BinaryPrimitives.WriteUInt16BigEndian(packet.AsSpan(2), (ushort)packet.Length);
            BinaryPrimitives.WriteUInt16BigEndian(packet.AsSpan(4), ServerProcessId);
            packet[6] = packetId++;
            data.Slice(offset, size).CopyTo(packet.AsMemory(8));
            await stream.WriteAsync(packet, cancellationToken);
            offset += size;
        }
        while (offset < data.Length);

        await stream.FlushAsync(cancellationToken);
    }
}
