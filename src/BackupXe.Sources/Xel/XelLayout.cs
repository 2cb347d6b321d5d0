namespace BackupXe.Sources.Xel;

/// <summary>
/// The fixed numbers of the event_file format, as worked out from the genuine fixture
/// (docs/xel.md, and docs/xel-format.md sections 1-5). Everything else is read from the file.
/// </summary>
internal static class XelLayout
{
    /// <summary>First four bytes of every file (5A 37 AB EF).</summary>
    public const uint FileMagic = 0xEFAB375A;

    /// <summary>The only format version seen, in the file header, every buffer, chunk and record.</summary>
    public const ushort Version = 10;

    /// <summary>The file header block is padded to one sector; buffers follow it and are sector multiples.</summary>
    public const int SectorSize = 512;

    /// <summary>Defined bytes at the start of every log buffer.</summary>
    public const int BufferHeaderSize = 0x4C;

    public const uint BufferSignature = 0xFFFFFFFF;

    public const ushort EventBuffer = 0;
    public const ushort MetadataBuffer = 1;

    /// <summary>In the stream protocol (fn_MSxe_read_event_stream) a type-2 row is a file/stream header.</summary>
    public const ushort HeaderBuffer = 2;

    /// <summary>
    /// The largest log buffer accepted. Regular buffers are a few hundred KB and large buffers hold one event up to
    /// MAX_EVENT_SIZE; a declared size beyond this is treated as damage, so that no header can make the reader
    /// allocate gigabytes.
    /// </summary>
    public const int MaxBufferSize = 256 * 1024 * 1024;

    /// <summary>How far past the file header the first buffer is looked for, in sector steps.</summary>
    public const int MaxHeaderScan = 64 * 1024;

    /// <summary>Event record header: id, version, flags, reserved, ticks, payload length.</summary>
    public const int RecordHeaderSize = 0x18;

    /// <summary>Ends every record's action list (package0 type ordinal 0, "null"), followed by a zero length.</summary>
    public const uint ActionListEnd = 0x60000000;

    /// <summary>A metadata chunk header: version, length, session GUID, 10 unknown bytes, clock base, frequency.</summary>
    public const int ChunkHeaderSize = 0x30;

    /// <summary>Chunks are padded to 16 bytes; more unread bytes than that means a layout this reader does not know.</summary>
    public const int ChunkPadding = 15;
}
