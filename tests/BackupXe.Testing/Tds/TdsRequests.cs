using System.Buffers.Binary;
using System.Text;

namespace BackupXe.Testing.Tds;

/// <summary>What the client sent in LOGIN7 ([MS-TDS] 2.2.6.4). The password is kept so tests can prove it arrived.</summary>
/// <param name="ClientProcessId">ClientPID: the client's operating-system process, which tells two worker processes apart.</param>
public sealed record TdsLogin(string HostName, string UserName, string Password, string ApplicationName, string ServerName, string Database, int PacketSize, int ClientProcessId = 0)
{
    internal static TdsLogin Parse(byte[] payload)
    {
        string Field(int position, bool scrambled = false)
        {
            var offset = BinaryPrimitives.ReadUInt16LittleEndian(payload.AsSpan(position));
            var characters = BinaryPrimitives.ReadUInt16LittleEndian(payload.AsSpan(position + 2));
            var bytes = payload.AsSpan(offset, characters * 2).ToArray();
            if (scrambled)
            {
                // The client swaps each byte's nibbles, then XORs with 0xA5 ([MS-TDS] 2.2.6.4): undo both.
                for (var i = 0; i < bytes.Length; i++)
                {
                    var b = bytes[i] ^ 0xA5;
                    bytes[i] = (byte)(((b & 0x0F) << 4) | (b >> 4));
                }
            }

            return Encoding.Unicode.GetString(bytes);
        }

        return new TdsLogin(
            HostName: Field(36),
            UserName: Field(40),
            Password: Field(44, scrambled: true),
            ApplicationName: Field(48),
            ServerName: Field(52),
            Database: Field(68),
            PacketSize: BinaryPrimitives.ReadInt32LittleEndian(payload.AsSpan(8)),
            ClientProcessId: BinaryPrimitives.ReadInt32LittleEndian(payload.AsSpan(16)));
    }
}

/// <summary>A query the double received: a SQL batch's text, or an RPC's procedure and parameters.</summary>
/// <param name="Text">The batch text; for sp_executesql, its @stmt.</param>
/// <param name="Procedure">null for a batch; "sp_executesql" (id 10) or the name sent.</param>
/// <param name="Parameters">Typed parameters after @stmt and @params, by name (with the @), decoded to CLR values.</param>
/// <param name="Declarations">sp_executesql's @params: the parameters' SQL types as the driver declared them.</param>
public sealed record TdsRequest(string Text, string? Procedure, IReadOnlyDictionary<string, object?> Parameters, string Declarations = "")
{
    /// <summary>The SQL batch payload: ALL_HEADERS, then the text in UTF-16 ([MS-TDS] 2.2.6.7).</summary>
    internal static TdsRequest ParseBatch(byte[] payload)
    {
        var headers = (int)BinaryPrimitives.ReadUInt32LittleEndian(payload);
        return new TdsRequest(Encoding.Unicode.GetString(payload, headers, payload.Length - headers), null, new Dictionary<string, object?>());
    }

    /// <summary>The RPC payload ([MS-TDS] 2.2.6.6): ALL_HEADERS, the procedure, option flags, then parameters.</summary>
    internal static TdsRequest ParseRpc(byte[] payload)
    {
        var reader = new TdsValueReader(payload, (int)BinaryPrimitives.ReadUInt32LittleEndian(payload));
        var nameLength = reader.UInt16();
        var procedure = nameLength == 0xFFFF
            ? reader.UInt16() switch { 10 => "sp_executesql", var id => $"proc id {id}" }
            : reader.Unicode(nameLength);
        reader.UInt16();
        var parameters = new List<(string Name, object? Value)>();
        while (!reader.AtEnd && reader.Peek() is not (0x80 or 0xFF or 0xFE))
        {
            var name = reader.Unicode(reader.Byte());
            reader.Byte();
            parameters.Add((name, reader.TypedValue()));
        }

        var statement = procedure == "sp_executesql" && parameters.Count > 0 ? parameters[0].Value as string ?? string.Empty : string.Empty;
        var typed = procedure == "sp_executesql" ? parameters.Skip(2) : parameters;
        var declarations = procedure == "sp_executesql" && parameters.Count > 1 ? parameters[1].Value as string ?? string.Empty : string.Empty;
        return new TdsRequest(statement, procedure, typed.ToDictionary(p => p.Name, p => p.Value, StringComparer.OrdinalIgnoreCase), declarations);
    }
}

/// <summary>Reads TYPE_INFO and values of RPC parameters ([MS-TDS] 2.2.5.4-2.2.5.5), for the types SqlClient sends.</summary>
internal sealed class TdsValueReader(byte[] data, int position)
{
    private int position = position;

    public bool AtEnd => position >= data.Length;

    public byte Peek() => data[position];

    public byte Byte() => data[position++];

    public ushort UInt16()
    {
        var value = BinaryPrimitives.ReadUInt16LittleEndian(data.AsSpan(position));
        position += 2;
        return value;
    }

    public string Unicode(int characters)
    {
        var text = Encoding.Unicode.GetString(data, position, characters * 2);
        position += characters * 2;
        return text;
    }

    public object? TypedValue()
    {
        var type = Byte();
        switch (type)
        {
            case 0x26: // INTN
            case 0x68: // BITN
            case 0x6F: // DATETIMN
            case 0x24: // GUIDN
            case 0x6D: // FLTN
            {
                Byte();
                var length = Byte();
                var bytes = Take(length);
                return length == 0 ? null : type switch
                {
                    0x26 => length switch
                    {
                        1 => (object)bytes[0],
                        2 => BinaryPrimitives.ReadInt16LittleEndian(bytes),
                        4 => BinaryPrimitives.ReadInt32LittleEndian(bytes),
                        _ => BinaryPrimitives.ReadInt64LittleEndian(bytes),
                    },
                    0x68 => bytes[0] != 0,
                    0x6F => new DateTime(1900, 1, 1).AddDays(BinaryPrimitives.ReadInt32LittleEndian(bytes))
                        .AddMilliseconds(Math.Round(BinaryPrimitives.ReadUInt32LittleEndian(bytes.AsSpan(4)) * 1000.0 / 300)),
                    0x24 => new Guid(bytes),
                    _ => length == 4 ? BinaryPrimitives.ReadSingleLittleEndian(bytes) : BinaryPrimitives.ReadDoubleLittleEndian(bytes),
                };
            }

            case 0x2A: // DATETIME2N
            {
                var scale = Byte();
                var length = Byte();
                if (length == 0)
                {
                    return null;
                }

                var bytes = Take(length);
                var timeLength = length - 3;
                long units = 0;
                for (var i = timeLength - 1; i >= 0; i--)
                {
                    units = (units << 8) | bytes[i];
                }

                var days = bytes[timeLength] | (bytes[timeLength + 1] << 8) | (bytes[timeLength + 2] << 16);
                return DateTime.MinValue.AddDays(days).AddTicks(units * (long)Math.Pow(10, 7 - scale));
            }

            case 0xE7: // NVARCHAR
            case 0xA7: // BIGVARCHAR
            {
                var maxLength = UInt16();
                Take(5);
                var bytes = maxLength == 0xFFFF ? Plp() : Sized();
                return bytes is null ? null : type == 0xE7 ? Encoding.Unicode.GetString(bytes) : Encoding.Latin1.GetString(bytes);
            }

            case 0xA5: // BIGVARBINARY
            {
                var maxLength = UInt16();
                return maxLength == 0xFFFF ? Plp() : Sized();
            }

            default:
                throw new NotSupportedException($"The TDS double does not decode parameter type 0x{type:X2}; add it to TdsValueReader.");
        }
    }

    private byte[] Take(int count)
    {
        var bytes = data.AsSpan(position, count).ToArray();
        position += count;
        return bytes;
    }

    private byte[]? Sized()
    {
        var length = UInt16();
        return length == 0xFFFF ? null : Take(length);
    }

    private byte[]? Plp()
    {
        var total = BinaryPrimitives.ReadUInt64LittleEndian(data.AsSpan(position));
        position += 8;
        if (total == ulong.MaxValue)
        {
            return null;
        }

        using var result = new MemoryStream();
        while (true)
        {
            var chunk = (int)BinaryPrimitives.ReadUInt32LittleEndian(data.AsSpan(position));
            position += 4;
            if (chunk == 0)
            {
                return result.ToArray();
            }

            result.Write(Take(chunk));
        }
    }
}
