using System.Text;

namespace BackupXe.Testing.Tds;

/// <summary>
/// A result column of the double, written with the nullable TDS types a real server uses for these SQL types
/// ([MS-TDS] 2.2.5.4): INTN, BITN, FLTN, NVARCHAR/BIGVARBINARY (PLP when max), IMAGE, DATETIMN, DATETIME2N, GUIDN.
/// xml is sent as nvarchar(max), which SqlClient reads the same way through GetString.
/// </summary>
public abstract class TdsColumn(string name)
{
    public string Name { get; } = name;

    public static TdsColumn Int(string name) => new IntColumn(name, 4);

    public static TdsColumn SmallInt(string name) => new IntColumn(name, 2);

    /// <summary>real: FLTN of 4 bytes, an IEEE-754 single ([MS-TDS] 2.2.5.5.1.3).</summary>
    public static TdsColumn Real(string name) => new RealColumn(name);

    public static TdsColumn BigInt(string name) => new IntColumn(name, 8);

    public static TdsColumn Bit(string name) => new BitColumn(name);

    /// <summary>nvarchar(<paramref name="maxLength"/>) in characters, or nvarchar(max) when null.</summary>
    public static TdsColumn NVarChar(string name, int? maxLength = 4000) => new NVarCharColumn(name, maxLength);

    /// <summary>An xml column as nvarchar(max): what CONVERT(nvarchar(max), x) returns.</summary>
    public static TdsColumn XmlAsNVarChar(string name) => new NVarCharColumn(name, null);

    /// <summary>varbinary(<paramref name="maxLength"/>) in bytes, or varbinary(max) when null.</summary>
    public static TdsColumn VarBinary(string name, int? maxLength = 8000) => new VarBinaryColumn(name, maxLength);

    /// <summary>
    /// image, the legacy large binary type: IMAGETYPE with a LONGLEN maximum and a table name in the metadata, a
    /// text pointer and timestamp before each value ([MS-TDS] 2.2.5.4.2, 2.2.5.5.1.1 textptr). What
    /// sys.fn_MSxe_read_event_stream's data column is documented as.
    /// </summary>
    public static TdsColumn Image(string name) => new ImageColumn(name);

    public static TdsColumn DateTime(string name) => new DateTimeColumn(name);

    public static TdsColumn DateTime2(string name) => new DateTime2Column(name);

    public static TdsColumn UniqueIdentifier(string name) => new GuidColumn(name);

    internal abstract void WriteTypeInfo(TdsTokens tokens);

    internal abstract void WriteValue(TdsTokens tokens, object? value);

    /// <summary>A variable-length value: PLP for max types, else a USHORT length (0xFFFF for NULL) and the bytes.</summary>
    private protected static void WriteVariable(TdsTokens tokens, byte[]? data, bool isMax)
    {
        if (isMax)
        {
            WritePlp(tokens, data);
        }
        else if (data is null)
        {
            tokens.UInt16(0xFFFF);
        }
        else
        {
            tokens.UInt16(checked((ushort)data.Length)).Bytes(data);
        }
    }

    /// <summary>
    /// PLP: total length, chunks of ULONG length + data, a zero-length terminator ([MS-TDS] 2.2.5.2.3). As a server
    /// does, each chunk ends at the end of a packet and no length field is split between two packets:
    /// Microsoft.Data.SqlClient 6.1 fails to read a chunk length that is (ArgumentOutOfRangeException, measured).
    /// </summary>
    private protected static void WritePlp(TdsTokens tokens, byte[]? data)
    {
        if (tokens.RoomInPacket < 8)
        {
            tokens.EndPacket();
        }

        if (data is null)
        {
            tokens.Int64(-1);
            return;
        }

        tokens.Int64(data.Length);
        for (var offset = 0; offset < data.Length;)
        {
            if (tokens.RoomInPacket < 5)
            {
                tokens.EndPacket();
            }

            var size = Math.Min(tokens.RoomInPacket - 4, data.Length - offset);
            tokens.UInt32((uint)size).Bytes(data.AsSpan(offset, size));
            offset += size;
        }

        if (tokens.RoomInPacket < 4)
        {
            tokens.EndPacket();
        }

        tokens.UInt32(0);
    }

    private sealed class IntColumn(string name, byte size) : TdsColumn(name)
    {
        internal override void WriteTypeInfo(TdsTokens tokens) => tokens.Byte(0x26).Byte(size);

        internal override void WriteValue(TdsTokens tokens, object? value)
        {
            if (value is null)
            {
                tokens.Byte(0);
            }
            else if (size == 2)
            {
                tokens.Byte(2).UInt16(unchecked((ushort)Convert.ToInt16(value, System.Globalization.CultureInfo.InvariantCulture)));
            }
            else if (size == 4)
            {
                tokens.Byte(4).Int32(Convert.ToInt32(value, System.Globalization.CultureInfo.InvariantCulture));
            }
            else
            {
                tokens.Byte(8).Int64(Convert.ToInt64(value, System.Globalization.CultureInfo.InvariantCulture));
            }
        }
    }

    private sealed class RealColumn(string name) : TdsColumn(name)
    {
        internal override void WriteTypeInfo(TdsTokens tokens) => tokens.Byte(0x6D).Byte(4);

        internal override void WriteValue(TdsTokens tokens, object? value)
        {
            if (value is null)
            {
                tokens.Byte(0);
                return;
            }

            var bytes = new byte[4];
            System.Buffers.Binary.BinaryPrimitives.WriteSingleLittleEndian(bytes, Convert.ToSingle(value, System.Globalization.CultureInfo.InvariantCulture));
            tokens.Byte(4).Bytes(bytes);
        }
    }

    private sealed class BitColumn(string name) : TdsColumn(name)
    {
        internal override void WriteTypeInfo(TdsTokens tokens) => tokens.Byte(0x68).Byte(1);

        internal override void WriteValue(TdsTokens tokens, object? value)
        {
            if (value is null)
            {
                tokens.Byte(0);
            }
            else
            {
                tokens.Byte(1).Byte((bool)value ? (byte)1 : (byte)0);
            }
        }
    }

    private sealed class NVarCharColumn(string name, int? maxLength) : TdsColumn(name)
    {
        internal override void WriteTypeInfo(TdsTokens tokens) =>
            tokens.Byte(0xE7).UInt16(maxLength is { } n ? checked((ushort)(n * 2)) : (ushort)0xFFFF).Bytes(TdsTokens.DefaultCollation);

        internal override void WriteValue(TdsTokens tokens, object? value) =>
            WriteVariable(tokens, value is null ? null : Encoding.Unicode.GetBytes((string)value), isMax: maxLength is null);
    }

    private sealed class VarBinaryColumn(string name, int? maxLength) : TdsColumn(name)
    {
        internal override void WriteTypeInfo(TdsTokens tokens) =>
            tokens.Byte(0xA5).UInt16(maxLength is { } n ? checked((ushort)n) : (ushort)0xFFFF);

        internal override void WriteValue(TdsTokens tokens, object? value) =>
            WriteVariable(tokens, (byte[]?)value, isMax: maxLength is null);
    }

    private sealed class ImageColumn(string name) : TdsColumn(name)
    {
        // A text pointer is 16 bytes; its value and the timestamp mean nothing to a reader of the result.
        private static readonly byte[] TextPointer = new byte[16];

        internal override void WriteTypeInfo(TdsTokens tokens) =>
            tokens.Byte(0x22).Int32(int.MaxValue).Byte(1).UsVarChar(Name);

        internal override void WriteValue(TdsTokens tokens, object? value)
        {
            if (value is not byte[] data)
            {
                // NULL: a text pointer of length 0 and nothing after it.
                tokens.Byte(0);
                return;
            }

            tokens.Byte((byte)TextPointer.Length).Bytes(TextPointer).Int64(0).Int32(data.Length).Bytes(data);
        }
    }

    /// <summary>datetime: days since 1900-01-01 and 1/300 s since midnight ([MS-TDS] 2.2.5.5.1.8).</summary>
    private sealed class DateTimeColumn(string name) : TdsColumn(name)
    {
        internal override void WriteTypeInfo(TdsTokens tokens) => tokens.Byte(0x6F).Byte(8);

        internal override void WriteValue(TdsTokens tokens, object? value)
        {
            if (value is null)
            {
                tokens.Byte(0);
                return;
            }

            var at = (System.DateTime)value;
            var days = (at.Date - new System.DateTime(1900, 1, 1)).Days;
            var ticks = (uint)Math.Round(at.TimeOfDay.TotalMilliseconds * 300 / 1000);
            tokens.Byte(8).Int32(days).UInt32(ticks);
        }
    }

    /// <summary>datetime2(7): 5 bytes of 100 ns since midnight, 3 bytes of days since 0001-01-01 ([MS-TDS] 2.2.5.5.1.8).</summary>
    private sealed class DateTime2Column(string name) : TdsColumn(name)
    {
        internal override void WriteTypeInfo(TdsTokens tokens) => tokens.Byte(0x2A).Byte(7);

        internal override void WriteValue(TdsTokens tokens, object? value)
        {
            if (value is null)
            {
                tokens.Byte(0);
                return;
            }

            var at = (System.DateTime)value;
            var time = at.TimeOfDay.Ticks;
            var days = (at.Date - System.DateTime.MinValue).Days;
            tokens.Byte(8)
                .Byte((byte)time).Byte((byte)(time >> 8)).Byte((byte)(time >> 16)).Byte((byte)(time >> 24)).Byte((byte)(time >> 32))
                .Byte((byte)days).Byte((byte)(days >> 8)).Byte((byte)(days >> 16));
        }
    }

    private sealed class GuidColumn(string name) : TdsColumn(name)
    {
        internal override void WriteTypeInfo(TdsTokens tokens) => tokens.Byte(0x24).Byte(16);

        internal override void WriteValue(TdsTokens tokens, object? value)
        {
            if (value is null)
            {
                tokens.Byte(0);
            }
            else
            {
                tokens.Byte(16).Bytes(((Guid)value).ToByteArray());
            }
        }
    }
}
