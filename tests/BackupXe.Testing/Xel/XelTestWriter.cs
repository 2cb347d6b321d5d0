using System.Buffers.Binary;
using System.Text;
using BackupXe.Sources.Xel;
using BackupXe.Sources.XeEvents;

namespace BackupXe.Testing.Xel;

/// <summary>Where the writer put each buffer and record of a built file, for tests that cut or damage it.</summary>
internal sealed record XelLayoutMap(IReadOnlyList<XelBufferSpan> EventBuffers, int MetadataOffset);

/// <summary>One event buffer of a built file: its offset, size, and the offsets and event count of its records.</summary>
internal sealed record XelBufferSpan(int Offset, int Size, IReadOnlyList<int> RecordOffsets);

/// <summary>
/// TEST-ONLY: writes .xel files from the rules of docs/xel-format.md, so that events the genuine fixture lacks
/// (backup_restore_progress_trace, wait_info, wait_info_external) can be read back. Not a real event_file writer:
/// it cannot produce the unknown checksum word (+0x1C), and it writes only what the format description names.
/// Proven on the fixture first (XelWriterProofTests): its event records re-encode byte for byte.
/// </summary>
internal static class XelTestWriter
{
    private const int BufferHeaderSize = 0x4C;
    private const int EventDataOffset = 0x4D;

    public static byte[] File(XelCatalogue catalogue, IEnumerable<XeEvent> events, int bufferSize = 64 * 1024) =>
        File(catalogue, events, out _, bufferSize);

    /// <summary>A whole file: header block, one metadata buffer, then event buffers of <paramref name="bufferSize"/> bytes.</summary>
    /// <param name="metadata">Writes this catalogue's metadata instead of <paramref name="catalogue"/>'s (events are still encoded by the latter).</param>
    public static byte[] File(XelCatalogue catalogue, IEnumerable<XeEvent> events, out XelLayoutMap layout, int bufferSize = 64 * 1024, XelCatalogue? metadata = null)
    {
        var file = new MemoryStream();
        file.Write(FileHeader());
        var chunks = new MemoryStream();
        foreach (var package in (metadata ?? catalogue).Packages)
        {
            chunks.Write(MetadataChunk(package, catalogue.SessionGuid, catalogue.Clock));
        }

        var metadataOffset = (int)file.Position;
        file.Write(LogBuffer(1, Guid.Empty, chunks.ToArray(), BufferHeaderSize));

        var buffers = new List<XelBufferSpan>();
        var used = new MemoryStream();
        var offsets = new List<int>();
        void Flush()
        {
            if (used.Length == 0)
            {
                return;
            }

            var bytes = LogBuffer(0, catalogue.SessionGuid, used.ToArray(), EventDataOffset, bufferSize);
            buffers.Add(new XelBufferSpan((int)file.Position, bytes.Length, offsets.Select(o => (int)file.Position + EventDataOffset + o).ToList()));
            file.Write(bytes);
            used.SetLength(0);
            offsets = [];
        }

        foreach (var xeEvent in events)
        {
            var record = EventRecord(xeEvent, catalogue);
            if (EventDataOffset + used.Length + record.Length > bufferSize)
            {
                Flush();
            }

            offsets.Add((int)used.Length);
            used.Write(record);
        }

        Flush();
        layout = new XelLayoutMap(buffers, metadataOffset);
        return file.ToArray();
    }

    public static byte[] FileHeader()
    {
        var header = new byte[512];
        BinaryPrimitives.WriteUInt32LittleEndian(header, 0xEFAB375A);
        BinaryPrimitives.WriteUInt16LittleEndian(header.AsSpan(4), 10);
        header[7] = 2;
        return header;
    }

    /// <summary>A log buffer around <paramref name="used"/>, sized to the next sector (or to <paramref name="size"/>).</summary>
    public static byte[] LogBuffer(ushort type, Guid session, byte[] used, int dataOffset, int size = 0)
    {
        var total = Math.Max(size, (dataOffset + used.Length + 511) / 512 * 512);
        var buffer = new byte[total];
        var span = buffer.AsSpan();
        BinaryPrimitives.WriteUInt32LittleEndian(span[0x08..], 0xFFFFFFFF);
        BinaryPrimitives.WriteUInt16LittleEndian(span[0x0C..], 10);
        BinaryPrimitives.WriteUInt16LittleEndian(span[0x0E..], type);
        BinaryPrimitives.WriteUInt32LittleEndian(span[0x10..], (uint)total);
        BinaryPrimitives.WriteUInt16LittleEndian(span[0x16..], (ushort)dataOffset);
        BinaryPrimitives.WriteUInt32LittleEndian(span[0x18..], (uint)used.Length);
        session.TryWriteBytes(span[0x20..]);
        used.CopyTo(span[dataOffset..]);
        return buffer;
    }

    /// <summary>One package chunk, padded to 16 bytes.</summary>
    public static byte[] MetadataChunk(XelPackage package, Guid session, XelClock clock)
    {
        var w = new ByteWriter();
        w.U16(10);
        w.U32(0);
        w.Guid(session);
        w.Bytes([0, 0, 1, 0, 0, 0, 0, 0, 0, 0]);
        w.U64((ulong)clock.BaseFileTime);
        w.U64((ulong)clock.TicksPerSecond);

        w.U32(0x0000000A);
        w.U32(package.Id);
        w.WideStringZ(package.Name);
        w.WideStringZ(package.Description);
        w.Guid(package.Guid);
        w.Guid(package.ModuleGuid);
        w.U16(0);
        w.U32(0);

        w.U32((uint)package.Events.Count);
        foreach (var e in package.Events)
        {
            w.U32(0x0002000A);
            w.U32(e.Id);
            w.WideStringZ(e.Name);
            w.WideStringZ(e.Description);
            w.U16((ushort)e.ReadOnlyColumns.Count);
            w.U16((ushort)e.CustomizableColumns.Count);
            w.U16((ushort)e.DataColumns.Count);
            w.U16((ushort)e.FixedDataCount);
            foreach (var c in e.ReadOnlyColumns)
            {
                w.U32(c.TypeId);
                w.WideStringZ(c.Name);
                w.Bytes(c.Value);
                w.WideStringZ(c.Description);
            }

            foreach (var c in e.CustomizableColumns)
            {
                w.U32(c.TypeId);
                w.WideStringZ(c.Name);
                w.U64(c.Configured);
                w.U64(c.Default);
                w.U64(1);
                w.WideStringZ(c.Description);
            }

            foreach (var c in e.DataColumns)
            {
                w.U32(c.TypeId);
                w.WideStringZ(c.Name);
                w.U16(c.PayloadOffset);
                w.U16(c.Flags);
                w.WideStringZ(c.Description);
            }
        }

        w.U32((uint)package.Actions.Count);
        foreach (var a in package.Actions)
        {
            w.U32(0);
            w.U32(a.Id);
            w.WideStringZ(a.Name);
            w.WideStringZ(a.Description);
            w.U32(a.TypeId);
            w.U32(0);
            w.U32(0);
        }

        w.U32((uint)package.Maps.Count);
        foreach (var m in package.Maps)
        {
            w.U32(0);
            w.U32(m.Id);
            w.WideStringZ(m.Name);
            w.WideStringZ(m.Description);
            w.U8(m.KeySize);
            w.U16((ushort)m.Entries.Count);
            foreach (var (key, text) in m.Entries)
            {
                w.U32(key);
                w.WideStringZ(text);
            }
        }

        w.U32((uint)package.Types.Count);
        foreach (var t in package.Types)
        {
            w.U32(0);
            w.U32(t.Id);
            w.WideStringZ(t.Name);
            w.WideStringZ(t.Description);
            w.U8(t.Size);
        }

        while (w.Length % 16 != 0)
        {
            w.U8(0);
        }

        var chunk = w.ToArray();
        BinaryPrimitives.WriteUInt32LittleEndian(chunk.AsSpan(2), (uint)chunk.Length);
        return chunk;
    }

    /// <summary>One event record: header, payload (fixed area, then variable data in column order), actions, terminator.</summary>
    public static byte[] EventRecord(XeEvent xeEvent, XelCatalogue catalogue)
    {
        var eventClass = catalogue.Events.Values.Single(e => e.Name == xeEvent.Name && e.Package == xeEvent.Package);
        var columns = eventClass.DataColumns;
        var widths = columns.Select(c => FixedWidth(catalogue, c.TypeId)).ToList();
        var fixedEnd = columns.Select((c, i) => c.PayloadOffset + (widths[i] == 0 ? 8 : widths[i])).DefaultIfEmpty(0).Max();
        var payload = new byte[fixedEnd];
        var variable = new ByteWriter();
        for (var i = 0; i < columns.Count; i++)
        {
            var column = columns[i];
            var value = xeEvent.Fields.Single(f => f.Name == column.Name).Value;
            var bytes = Encode(catalogue, column.TypeId, value);
            if (widths[i] == 0)
            {
                BinaryPrimitives.WriteUInt32LittleEndian(payload.AsSpan(column.PayloadOffset), (uint)(fixedEnd + variable.Length));
                BinaryPrimitives.WriteUInt32LittleEndian(payload.AsSpan(column.PayloadOffset + 4), (uint)bytes.Length);
                variable.Bytes(bytes);
            }
            else
            {
                bytes.CopyTo(payload.AsSpan(column.PayloadOffset));
            }
        }

        var w = new ByteWriter();
        w.U32(eventClass.Id);
        w.U16(10);
        w.U16(0x8000);
        w.U32(0);
        w.U64(catalogue.Clock.ToTicks(xeEvent.Timestamp));
        w.U32((uint)(payload.Length + variable.Length));
        w.Bytes(payload);
        w.Bytes(variable.ToArray());
        foreach (var action in xeEvent.Actions)
        {
            var actionClass = catalogue.Actions.Values.Single(a => a.Name == action.Name && a.Package == action.Package);
            var bytes = Encode(catalogue, actionClass.TypeId, action.Value);
            w.U32(actionClass.Id);
            w.U32((uint)bytes.Length);
            w.Bytes(bytes);
        }

        w.U32(0x60000000);
        w.U32(0);
        return w.ToArray();
    }

    private static int FixedWidth(XelCatalogue catalogue, uint typeId) =>
        catalogue.Maps.TryGetValue(typeId, out var map) ? map.KeySize : catalogue.Types[typeId].Size;

    /// <summary>A value's bytes by its type's name and size (docs/xel-format.md section 6).</summary>
    private static byte[] Encode(XelCatalogue catalogue, uint typeId, object? value)
    {
        var size = FixedWidth(catalogue, typeId);
        var typeName = catalogue.TypeName(typeId);
        switch (value)
        {
            case string s when typeName.StartsWith("ansi", StringComparison.Ordinal):
                return Encoding.Latin1.GetBytes(s);
            case string s:
                return Encoding.Unicode.GetBytes(s);
            case byte[] bytes:
                return bytes;
            case Guid g:
                return g.ToByteArray();
            case XeActivityId activity:
                var twenty = new byte[20];
                activity.Id.TryWriteBytes(twenty);
                BinaryPrimitives.WriteUInt32LittleEndian(twenty.AsSpan(16), activity.Sequence);
                return twenty;
            case bool b:
                return Integer(b ? 1UL : 0UL, size);
            case ulong u:
                return Integer(u, size);
            case long l:
                return Integer(unchecked((ulong)l), size);
            case double d when size == 4:
                var four = new byte[4];
                BinaryPrimitives.WriteSingleLittleEndian(four, (float)d);
                return four;
            case double d:
                var eight = new byte[8];
                BinaryPrimitives.WriteDoubleLittleEndian(eight, d);
                return eight;
            default:
                throw new ArgumentException($"cannot encode {value?.GetType().Name ?? "null"} as {typeName}");
        }
    }

    private static byte[] Integer(ulong value, int size)
    {
        var bytes = new byte[size];
        for (var i = 0; i < size; i++)
        {
            bytes[i] = (byte)(value >> (8 * i));
        }

        return bytes;
    }

    private sealed class ByteWriter
    {
        private readonly MemoryStream _stream = new();

        public int Length => (int)_stream.Length;

        public void U8(byte value) => _stream.WriteByte(value);

        public void U16(ushort value) => Write(stackalloc byte[2], s => BinaryPrimitives.WriteUInt16LittleEndian(s, value));

        public void U32(uint value) => Write(stackalloc byte[4], s => BinaryPrimitives.WriteUInt32LittleEndian(s, value));

        public void U64(ulong value) => Write(stackalloc byte[8], s => BinaryPrimitives.WriteUInt64LittleEndian(s, value));

        public void Guid(Guid value) => _stream.Write(value.ToByteArray());

        public void Bytes(ReadOnlySpan<byte> bytes) => _stream.Write(bytes);

        public void WideStringZ(string text)
        {
            _stream.Write(Encoding.Unicode.GetBytes(text));
            U16(0);
        }

        public byte[] ToArray() => _stream.ToArray();

        private void Write(Span<byte> scratch, SpanAction fill)
        {
            fill(scratch);
            _stream.Write(scratch);
        }

        private delegate void SpanAction(Span<byte> span);
    }
}
