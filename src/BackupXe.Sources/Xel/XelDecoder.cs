using System.Buffers.Binary;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Sources.XeEvents;

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
    private readonly Dictionary<uint, XelEventPlan> _events = [];
    private readonly Dictionary<uint, XelValuePlan> _actions = [];
    private readonly HashSet<uint> _unknownActions = [];
    private readonly XeEventFields _fields = new();

    // One parser per decoder (per stream): trace messages are parsed once, where their offset is known.
    private readonly TraceMessageParser _parser = new();
    private bool _sessionMismatchReported;

    /// <summary>The largest log buffer accepted (a larger declared size is damage); a stream reader caps its rows at it.</summary>
    public const int MaxBufferBytes = XelLayout.MaxBufferSize;

    /// <summary>The metadata read so far.</summary>
    public XelCatalogue Catalogue { get; } = new();

    /// <summary>True once a metadata buffer has been read: event buffers before it cannot be decoded.</summary>
    public bool HasMetadata => Catalogue.Packages.Count > 0;

    /// <summary>
    /// Decodes one log buffer given whole, as <c>sys.fn_MSxe_read_event_stream</c> returns one per row: the buffer's own
    /// header (docs/xel-format.md section 3) says what it is. Events are mapped to <paramref name="events"/> through the
    /// shared <see cref="XeEventMapping"/>; every problem goes to <paramref name="report"/> with its offset inside the
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
                ReadEvents(buffer, dataOffset, end, new Guid(buffer.Slice(0x20, 16)), offset, new XelProblemReport(report), null, events);
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
            // Whatever chunks were read are usable; plans are rebuilt against the catalogue as it now stands.
            _events.Clear();
            _actions.Clear();
            foreach (var eventClass in Catalogue.Events.Values)
            {
                _events[eventClass.Id] = new XelEventPlan(eventClass, Catalogue);
            }

            foreach (var action in Catalogue.Actions.Values)
            {
                _actions[action.Id] = XelValuePlan.For(Catalogue, action.Name, action.Package, action.TypeId, isAction: true);
            }
        }
    }

    /// <summary>
    /// Decodes the records of one event buffer. Events are added to <paramref name="whole"/> (every field and action)
    /// or mapped to <paramref name="analysed"/> (BackupXe's events); damage ends the buffer, reported where it is.
    /// <paramref name="cut"/> says the buffer ends where its file was cut, which its caller reports.
    /// </summary>
    /// <returns>How many records were decoded, analysed or not.</returns>
    internal long ReadEvents(
        ReadOnlySpan<byte> buffer,
        int start,
        int end,
        Guid bufferSession,
        long bufferOffset,
        XelProblemReport report,
        List<XeEvent>? whole,
        List<TraceEvent>? analysed,
        bool cut = false)
    {
        if (bufferSession != Guid.Empty && bufferSession != Catalogue.SessionGuid && !_sessionMismatchReported)
        {
            _sessionMismatchReported = true;
            report(bufferOffset + 0x20, $"event buffer belongs to session {bufferSession}, the metadata to {Catalogue.SessionGuid}; read anyway");
        }

        var data = buffer[..end];
        var position = start;
        long decoded = 0;
        while (position < end)
        {
            var recordStart = position;
            XelEventPlan plan;
            ulong ticks;
            int payloadStart;
            int payloadLength;
            int actionsStart;
            try
            {
                var reader = new XelSpanReader(data, position);
                var id = reader.U32();
                var version = reader.U16();
                reader.Skip(6);
                ticks = reader.U64();
                var length = reader.U32();
                if (!_events.TryGetValue(id, out plan!))
                {
                    throw new XelDamageException(recordStart, $"event id 0x{id:X8} is not in the file's metadata");
                }

                if (version != XelLayout.Version)
                {
                    throw new XelDamageException(recordStart + 4, $"event record version {version}, expected {XelLayout.Version}");
                }

                if (length > (uint)reader.Remaining)
                {
                    throw new XelDamageException(recordStart + 0x14, $"{plan.Class.Name} payload of {length} bytes runs past the buffer's {reader.Remaining} bytes");
                }

                payloadStart = reader.Position;
                payloadLength = (int)length;
                reader.Skip(payloadLength);
                actionsStart = reader.Position;
                while (true)
                {
                    var actionId = reader.U32();
                    var actionLength = reader.U32();
                    if (actionId == XelLayout.ActionListEnd && actionLength == 0)
                    {
                        break;
                    }

                    if (actionLength > (uint)reader.Remaining)
                    {
                        throw new XelDamageException(reader.Position - 4, $"{plan.Class.Name} action value of {actionLength} bytes runs past the buffer");
                    }

                    reader.Skip((int)actionLength);
                }

                position = reader.Position;
            }
            catch (XelDamageException e)
            {
                // In a buffer the file ends inside, the record the cut runs through is the cut, reported once already.
                if (!cut)
                {
                    report(bufferOffset + e.Position, $"{e.Message}; the rest of this buffer ({end - recordStart} bytes from offset {bufferOffset + recordStart}) skipped");
                }

                return decoded;
            }

            if (!Catalogue.Clock.TryToUtc(ticks, out var timestamp))
            {
                report(bufferOffset + recordStart + 0x0C, $"{plan.Class.Name} timestamp ({ticks} ticks) is out of range; event skipped");
                continue;
            }

            var payload = data.Slice(payloadStart, payloadLength);
            var actions = data[actionsStart..position];
            try
            {
                if (whole is not null)
                {
                    whole.Add(DecodeWhole(plan, timestamp, payload, actions, bufferOffset + actionsStart, report));
                    decoded++;
                }
                else if (DecodeAnalysed(plan, timestamp, payload, actions, bufferOffset + recordStart, report, analysed!))
                {
                    decoded++;
                }
            }
            catch (XelDamageException e)
            {
                report(bufferOffset + payloadStart + e.Position, $"{plan.Class.Name}: {e.Message}; event skipped");
            }
        }

        return decoded;
    }

    private XeEvent DecodeWhole(XelEventPlan plan, DateTime timestamp, ReadOnlySpan<byte> payload, ReadOnlySpan<byte> actions, long actionsOffset, XelProblemReport report)
    {
        var fields = new XeValue[plan.Columns.Length];
        var fixedEnd = -1;
        for (var i = 0; i < fields.Length; i++)
        {
            var column = plan.Columns[i];
            var value = column.Decode(ColumnBytes(column, payload, ref fixedEnd, plan.Columns), out var text);
            fields[i] = new XeValue(column.Name, column.Package, column.TypeName, value, text);
        }

        var list = new List<XeValue>();
        foreach (var (id, bytes, offset) in new XelActionWalk(actions))
        {
            if (ActionPlan(id, bytes.Length, actionsOffset + offset, report) is not { } action)
            {
                continue;
            }

            // A value whose length does not match its type's size is kept as its bytes rather than misread.
            string? text = null;
            var value = action.Fits(bytes.Length) ? action.Decode(bytes, out text) : bytes.ToArray();
            list.Add(new XeValue(action.Name, action.Package, action.TypeName, value, text));
        }

        return new XeEvent(plan.Class.Name, plan.Class.Package, timestamp, fields, list);
    }

    private bool DecodeAnalysed(XelEventPlan plan, DateTime timestamp, ReadOnlySpan<byte> payload, ReadOnlySpan<byte> actions, long recordOffset, XelProblemReport report, List<TraceEvent> analysed)
    {
        _fields.Clear();
        var fixedEnd = -1;
        foreach (var column in plan.Analysed)
        {
            var value = column.DecodeText(ColumnBytes(column, payload, ref fixedEnd, plan.Columns), out var text);
            _fields.Set(column.Field, value, text);
        }

        var actionsOffset = recordOffset + XelLayout.RecordHeaderSize + payload.Length;
        foreach (var (id, bytes, offset) in new XelActionWalk(actions))
        {
            if (ActionPlan(id, bytes.Length, actionsOffset + offset, report) is { Field: not XeField.None } action && action.Fits(bytes.Length)
                && !_fields.Holds(action.Field))
            {
                var value = action.DecodeText(bytes, out var text);
                _fields.Set(action.Field, value, text);
            }
        }

        switch (XeEventMapping.Map(plan.Class.Name, timestamp, _fields, _parser, out var traceEvent, out var problem))
        {
            case XeMappingOutcome.Event:
                analysed.Add(traceEvent!);
                return true;
            case XeMappingOutcome.NotAnalysed:
                return true;
            default:
                report(recordOffset, problem!);
                return false;
        }
    }

    private XelValuePlan? ActionPlan(uint id, int length, long offset, XelProblemReport report)
    {
        if (_actions.TryGetValue(id, out var action))
        {
            return action;
        }

        // The length is explicit, so an action the metadata does not describe can be stepped over safely.
        if (_unknownActions.Add(id))
        {
            report(offset, $"action id 0x{id:X8} is not in the file's metadata; its values ({length} bytes here) are skipped");
        }

        return null;
    }

    /// <summary>The bytes of one column in a payload, checked against the payload's length.</summary>
    private static ReadOnlySpan<byte> ColumnBytes(XelValuePlan column, ReadOnlySpan<byte> payload, ref int fixedEnd, XelValuePlan[] columns)
    {
        if (column.IsVariable)
        {
            if (column.Offset + 8 > payload.Length)
            {
                throw new XelDamageException(Math.Min(column.Offset, payload.Length), $"{column.Name} descriptor at {column.Offset} lies past the {payload.Length}-byte payload");
            }

            var reader = new XelSpanReader(payload, column.Offset);
            var dataOffset = reader.U32();
            var length = reader.U32();
            if ((ulong)dataOffset + length > (ulong)payload.Length)
            {
                throw new XelDamageException(column.Offset, $"{column.Name} ({length} bytes at {dataOffset}) runs past the {payload.Length}-byte payload");
            }

            return payload.Slice((int)dataOffset, (int)length);
        }

        var size = column.Size;
        if (size == XelValuePlan.RunsToFixedEnd)
        {
            if (fixedEnd < 0)
            {
                fixedEnd = FixedEnd(payload, columns);
            }

            size = Math.Max(0, fixedEnd - column.Offset);
        }

        if (column.Offset + size > payload.Length)
        {
            // Located at the column, or at the payload's end when the metadata places the column beyond it.
            throw new XelDamageException(Math.Min(column.Offset, payload.Length), $"{column.Name} ({size} bytes at {column.Offset}) runs past the {payload.Length}-byte payload");
        }

        return payload.Slice(column.Offset, size);
    }

    /// <summary>Where the variable data starts: the fixed area ends there (or at the payload's end without any).</summary>
    private static int FixedEnd(ReadOnlySpan<byte> payload, XelValuePlan[] columns)
    {
        var end = payload.Length;
        foreach (var column in columns)
        {
            if (column.IsVariable && column.Offset + 8 <= payload.Length)
            {
                end = (int)Math.Min(end, new XelSpanReader(payload, column.Offset).U32());
            }
        }

        return end;
    }
}

/// <summary>The actions of one record, already framed: (id, value bytes, offset of the id in the list).</summary>
internal ref struct XelActionWalk(ReadOnlySpan<byte> actions)
{
    private readonly ReadOnlySpan<byte> _actions = actions;
    private int _position;

    public XelActionValue Current { get; private set; }

    public readonly XelActionWalk GetEnumerator() => this;

    public bool MoveNext()
    {
        var reader = new XelSpanReader(_actions, _position);
        var offset = _position;
        var id = reader.U32();
        var length = (int)reader.U32();
        if (id == XelLayout.ActionListEnd && length == 0)
        {
            return false;
        }

        Current = new XelActionValue(id, reader.Bytes(length), offset);
        _position = reader.Position;
        return true;
    }
}

/// <summary>One action of a record: its id, its value's bytes, and where its id sits in the action list.</summary>
internal readonly ref struct XelActionValue(uint id, ReadOnlySpan<byte> bytes, int offset)
{
    public uint Id { get; } = id;

    public ReadOnlySpan<byte> Bytes { get; } = bytes;

    public int Offset { get; } = offset;

    public void Deconstruct(out uint id, out ReadOnlySpan<byte> bytes, out int offset)
    {
        id = Id;
        bytes = Bytes;
        offset = Offset;
    }
}
