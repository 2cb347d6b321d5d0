using System.Buffers.Binary;
using System.Text;

namespace BackupXe.Testing.Tds;

/// <summary>
/// Builds a server token stream ([MS-TDS] 2.2.7): little-endian integers, B_VARCHAR / US_VARCHAR strings in
/// UTF-16, and the tokens SqlClient needs to log in and read results.
/// </summary>
internal sealed class TdsTokens
{
    /// <summary>Latin1_General_CI_AS: LCID 0x0409, flags 0xD0, sort id 52 ([MS-TDS] 2.2.5.1.2).</summary>
    public static readonly byte[] DefaultCollation = [0x09, 0x04, 0xD0, 0x00, 0x34];

    private readonly MemoryStream buffer = new();
    private readonly List<int> breaks = [];

    public int Length => (int)buffer.Length;

    /// <summary>Bytes of tokens one packet carries: the negotiated packet size less the 8-byte header.</summary>
    public int PacketPayload { get; set; } = 4096 - 8;

    /// <summary>Offsets since the last <see cref="Take"/> where a packet ends early (see <see cref="EndPacket"/>).</summary>
    public IReadOnlyList<int> Breaks => breaks;

    /// <summary>Bytes left in the packet the next byte goes into, when the tokens are sent from a packet start.</summary>
    public int RoomInPacket
    {
        get
        {
            var start = breaks.Count == 0 ? 0 : breaks[^1];
            return PacketPayload - ((Length - start) % PacketPayload);
        }
    }

    /// <summary>Ends the current packet here, so that the next field starts a packet.</summary>
    public void EndPacket()
    {
        if (RoomInPacket != PacketPayload)
        {
            breaks.Add(Length);
        }
    }

    public byte[] Take()
    {
        var bytes = buffer.ToArray();
        buffer.SetLength(0);
        breaks.Clear();
        return bytes;
    }

    public TdsTokens Byte(byte value)
    {
        buffer.WriteByte(value);
        return this;
    }

    public TdsTokens Bytes(ReadOnlySpan<byte> value)
    {
        buffer.Write(value);
        return this;
    }

    public TdsTokens UInt16(ushort value)
    {
        Span<byte> span = stackalloc byte[2];
        BinaryPrimitives.WriteUInt16LittleEndian(span, value);
        return Bytes(span);
    }

    public TdsTokens Int32(int value)
    {
        Span<byte> span = stackalloc byte[4];
        BinaryPrimitives.WriteInt32LittleEndian(span, value);
        return Bytes(span);
    }

    public TdsTokens UInt32(uint value)
    {
        Span<byte> span = stackalloc byte[4];
        BinaryPrimitives.WriteUInt32LittleEndian(span, value);
        return Bytes(span);
    }

    public TdsTokens Int64(long value)
    {
        Span<byte> span = stackalloc byte[8];
        BinaryPrimitives.WriteInt64LittleEndian(span, value);
        return Bytes(span);
    }

    /// <summary>B_VARCHAR: a length in characters as one byte, then UTF-16LE.</summary>
    public TdsTokens BVarChar(string value) => Byte(checked((byte)value.Length)).Bytes(Encoding.Unicode.GetBytes(value));

    /// <summary>US_VARCHAR: a length in characters as two bytes, then UTF-16LE.</summary>
    public TdsTokens UsVarChar(string value) => UInt16(checked((ushort)value.Length)).Bytes(Encoding.Unicode.GetBytes(value));

    /// <summary>ENVCHANGE ([MS-TDS] 2.2.7.9) with B_VARCHAR values: 1 database, 2 language, 4 packet size.</summary>
    public TdsTokens EnvChange(byte type, string newValue, string oldValue)
    {
        var body = new TdsTokens().Byte(type).BVarChar(newValue).BVarChar(oldValue).Take();
        return Byte(0xE3).UInt16((ushort)body.Length).Bytes(body);
    }

    /// <summary>ENVCHANGE type 7, SQL collation, with B_VARBYTE values.</summary>
    public TdsTokens CollationChange(byte[] collation)
    {
        var body = new TdsTokens().Byte(7).Byte((byte)collation.Length).Bytes(collation).Byte(0).Take();
        return Byte(0xE3).UInt16((ushort)body.Length).Bytes(body);
    }

    /// <summary>
    /// LOGINACK ([MS-TDS] 2.2.7.14): interface 1 (T-SQL), TDS 7.4 written high byte first as the spec shows, the
    /// program name and its version (major, minor, build high, build low).
    /// </summary>
    public TdsTokens LoginAck(int major, int minor, int build)
    {
        var body = new TdsTokens().Byte(1).Bytes([0x74, 0x00, 0x00, 0x04]).BVarChar("Microsoft SQL Server")
            .Byte((byte)major).Byte((byte)minor).Byte((byte)(build >> 8)).Byte((byte)build).Take();
        return Byte(0xAD).UInt16((ushort)body.Length).Bytes(body);
    }

    /// <summary>ERROR (0xAA) or INFO (0xAB) ([MS-TDS] 2.2.7.10 / 2.2.7.13).</summary>
    public TdsTokens Message(bool error, int number, byte state, byte @class, string text, string serverName, int line)
    {
        var body = new TdsTokens().Int32(number).Byte(state).Byte(@class).UsVarChar(text).BVarChar(serverName).BVarChar(string.Empty).Int32(line).Take();
        return Byte(error ? (byte)0xAA : (byte)0xAB).UInt16((ushort)body.Length).Bytes(body);
    }

    /// <summary>DONE (0xFD), DONEPROC (0xFE) or DONEINPROC (0xFF) ([MS-TDS] 2.2.7.6): status, current command, row count.</summary>
    public TdsTokens Done(byte token, TdsDoneStatus status, ushort command, long rowCount) =>
        Byte(token).UInt16((ushort)status).UInt16(command).Int64(rowCount);

    /// <summary>RETURNSTATUS (0x79): the procedure's return value.</summary>
    public TdsTokens ReturnStatus(int value) => Byte(0x79).Int32(value);

    /// <summary>COLMETADATA (0x81) ([MS-TDS] 2.2.7.4).</summary>
    public TdsTokens ColumnMetadata(IReadOnlyList<TdsColumn> columns)
    {
        Byte(0x81).UInt16((ushort)columns.Count);
        foreach (var column in columns)
        {
            // UserType 0; flags: nullable (bit 0), updateable unknown (bit 3).
            UInt32(0).UInt16(0x0009);
            column.WriteTypeInfo(this);
            BVarChar(column.Name);
        }

        return this;
    }

    /// <summary>ROW (0xD1) ([MS-TDS] 2.2.7.19).</summary>
    public TdsTokens Row(IReadOnlyList<TdsColumn> columns, IReadOnlyList<object?> values)
    {
        if (values.Count != columns.Count)
        {
            throw new ArgumentException($"A row of {values.Count} values for {columns.Count} columns.");
        }

        Byte(0xD1);
        for (var i = 0; i < columns.Count; i++)
        {
            columns[i].WriteValue(this, values[i]);
        }

        return this;
    }
}

/// <summary>DONE status bits ([MS-TDS] 2.2.7.6).</summary>
[Flags]
internal enum TdsDoneStatus : ushort
{
    Final = 0x00,
    More = 0x01,
    Error = 0x02,
    Count = 0x10,
    Attention = 0x20,
}
