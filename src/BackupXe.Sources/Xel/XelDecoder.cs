using System.Buffers.Binary;
using BackupXe.Core.Events;

namespace BackupXe.Sources.Xel;

/// <summary>Where a decoding problem is, as a byte offset in the file or stream, and what it is.</summary>
internal delegate void XelProblemReport(long offset, string message);

/// <summary>What one buffer given to <see cref="XelDecoder.ReadBuffer"/> was.</summary>
public enum XelBufferKind
{
    /// <summary>An event buffer: its events were decoded.</summary>
    Events,

    /// <summary>A metadata buffer: the catalogue and clock were extended.</summary>
    Metadata,

    /// <summary>
    /// A file or stream header (the event_file header block, or a log buffer of type 2): what follows has metadata
    /// and a clock of its own, so the caller starts a new decoder.
    /// </summary>
    Header,

    /// <summary>Not decodable (damaged, unknown type or version, events before metadata); reported, nothing read.</summary>
    Skipped,
}

/// <summary>
/// Decodes the log buffers of one file (or one live stream) against that file's own metadata: a metadata buffer
/// extends the catalogue and its clock, an event buffer becomes events. Holds no more than the catalogue; the
/// caller owns the buffer bytes.
/// </summary>
public sealed class XelDecoder
{
    private readonly XelBufferDecoder _buffers = new(waitShortcut: true);
    private readonly List<XelFinding> _findings = [];

    // The events of the buffer being read, before they join the caller's list: one list for the stream, not one per buffer.
    private readonly TraceEventList _decoded = new(64);
    private readonly HashSet<long> _onceSaid = [];

    /// <summary>The largest log buffer accepted (a larger declared size is damage); a stream reader caps its rows at it.</summary>
    public const int MaxBufferBytes = XelLayout.MaxBufferSize;

    /// <summary>The metadata read so far.</summary>
    public XelCatalogue Catalogue { get; } = new();

    /// <summary>The metadata read so far, resolved for decoding event buffers.</summary>
    internal XelPlans Plans { get; private set; } = XelPlans.Empty;

    /// <summary>True once a metadata buffer has been read: event buffers before it cannot be decoded.</summary>
    public bool HasMetadata => Catalogue.Packages.Count > 0;

    /// <summary>
    /// Decodes one log buffer given whole, as <c>sys.fn_MSxe_read_event_stream</c> returns one per row: the buffer's own
    /// header (docs/xel-format.md section 3) says what it is. Events are mapped to <paramref name="events"/> through the
    /// shared <see cref="XeEvents.XeEventMapping"/>; every problem goes to <paramref name="report"/> with its offset inside the
    /// buffer plus <paramref name="offset"/>, never as an exception.
    /// </summary>
    public XelBufferKind ReadBuffer(ReadOnlySpan<byte> buffer, long offset, Action<long, string> report, List<TraceEvent> events)
    {
        ArgumentNullException.ThrowIfNull(report);
        ArgumentNullException.ThrowIfNull(events);
        if (buffer.Length >= 6 && BinaryPrimitives.ReadUInt32LittleEndian(buffer) == XelLayout.FileMagic)
        {
            // The header block of a file (magic, version): the stream's first row, or a new file in file mode.
            var headerVersion = BinaryPrimitives.ReadUInt16LittleEndian(buffer[4..]);
            if (headerVersion != XelLayout.Version)
            {
                report(offset + 4, $"unsupported XEL format version {headerVersion} in a stream header (this reader knows version {XelLayout.Version})");
                return XelBufferKind.Skipped;
            }

            return XelBufferKind.Header;
        }

        if (buffer.Length < XelLayout.BufferHeaderSize)
        {
            report(offset, $"{buffer.Length} bytes are too few for a log buffer header ({XelLayout.BufferHeaderSize}); skipped");
            return XelBufferKind.Skipped;
        }

        var signature = BinaryPrimitives.ReadUInt32LittleEndian(buffer[0x08..]);
        var version = BinaryPrimitives.ReadUInt16LittleEndian(buffer[0x0C..]);
        var type = BinaryPrimitives.ReadUInt16LittleEndian(buffer[0x0E..]);
        var dataOffset = BinaryPrimitives.ReadUInt16LittleEndian(buffer[0x16..]);
        var used = BinaryPrimitives.ReadUInt32LittleEndian(buffer[0x18..]);
        if (signature != XelLayout.BufferSignature)
        {
            report(offset + 0x08, "no log buffer header (signature missing); skipped");
            return XelBufferKind.Skipped;
        }

        if (version != XelLayout.Version)
        {
            report(offset + 0x0C, $"unsupported XEL format version {version} in a log buffer header (this reader knows version {XelLayout.Version}); skipped");
            return XelBufferKind.Skipped;
        }

        // The row may stop after its used bytes rather than at the declared (sector-padded) size: only the used part is read.
        if (dataOffset < XelLayout.BufferHeaderSize || (ulong)dataOffset + used > (ulong)buffer.Length)
        {
            report(offset + 0x16, $"log buffer's records ({used} bytes at {dataOffset}) do not fit its {buffer.Length} bytes; skipped");
            return XelBufferKind.Skipped;
        }

        var end = dataOffset + (int)used;
        switch (type)
        {
            case XelLayout.MetadataBuffer:
                try
                {
                    ReadMetadata(buffer, dataOffset, end);
                    return XelBufferKind.Metadata;
                }
                catch (XelDamageException e)
                {
                    report(offset + e.Position, $"metadata not understood: {e.Message}; events that need it will be reported");
                    return XelBufferKind.Skipped;
                }

            case XelLayout.EventBuffer when !HasMetadata:
                report(offset, "event buffer before any metadata: its events cannot be decoded; skipped");
                return XelBufferKind.Skipped;
            case XelLayout.EventBuffer:
                ReadEvents(buffer, dataOffset, end, new Guid(buffer.Slice(0x20, 16)), offset, report, events);
                return XelBufferKind.Events;
            case XelLayout.HeaderBuffer:
                return XelBufferKind.Header;
            default:
                report(offset + 0x0E, $"log buffer type {type} is not known; skipped");
                return XelBufferKind.Skipped;
        }
    }

    /// <summary>Reads a metadata buffer's chunks; throws <see cref="XelDamageException"/> on a layout it does not know.</summary>
    internal void ReadMetadata(ReadOnlySpan<byte> buffer, int start, int end)
    {
        try
        {
            XelMetadataParser.Parse(buffer, start, end, Catalogue);
        }
        finally
        {
            // Whatever chunks were read are usable. Plans are rebuilt against the catalogue as it now stands, as a new
            // object: buffers read before still decode against the plans they were read with.
            Plans = XelPlans.Of(Catalogue);
        }
    }

    // One buffer of a live stream, decoded where it arrives; a problem said once is said once per stream.
    private void ReadEvents(ReadOnlySpan<byte> buffer, int start, int end, Guid session, long offset, Action<long, string> report, List<TraceEvent> events)
    {
        _findings.Clear();
        _decoded.Clear();
        _buffers.Decode(Plans, buffer, start, end, session, offset, _findings, null, _decoded);
        for (var i = 0; i < _decoded.Count; i++)
        {
            events.Add(_decoded[i]);
        }

        foreach (var finding in _findings)
        {
            if (finding.Once == XelFinding.Always || _onceSaid.Add(finding.Once))
            {
                report(finding.Offset, finding.Message);
            }
        }
    }
}
