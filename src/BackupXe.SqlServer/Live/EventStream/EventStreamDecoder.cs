using BackupXe.Core.Events;
using BackupXe.Sources.Xel;

namespace BackupXe.SqlServer.Live.EventStream;

/// <summary>
/// Turns the rows of one stream connection into <see cref="TraceEvent"/>s with the .xel decoder: each row is one log
/// buffer, decoded by its own header. A header row starts a new catalogue and clock (a new stream or file has metadata
/// of its own), so a decoder lives as long as one connection and the next connection starts from nothing.
/// </summary>
internal sealed class EventStreamDecoder
{
    private readonly List<TraceEvent> _events = [];
    private XelDecoder _decoder = new();
    private bool _typeMismatchReported;

    /// <summary>Rows read on this connection.</summary>
    public long Rows { get; private set; }

    public long Headers { get; private set; }

    public long MetadataBuffers { get; private set; }

    public long EventBuffers { get; private set; }

    public long SkippedBuffers { get; private set; }

    /// <summary>
    /// The events of <paramref name="row"/>, valid until the next call. Problems go to <paramref name="problem"/> as one
    /// located line each ("row N, offset O: ...").
    /// </summary>
    public IReadOnlyList<TraceEvent> Decode(EventStreamRow row, Action<string> problem)
    {
        ArgumentNullException.ThrowIfNull(problem);
        _events.Clear();
        var number = ++Rows;
        if (row.Oversized)
        {
            SkippedBuffers++;
            problem($"row {number}: type {row.Type} is larger than any log buffer may be ({XelDecoder.MaxBufferBytes} bytes); not read, skipped");
            return _events;
        }

        if (row.Data is not { Length: > 0 } data)
        {
            SkippedBuffers++;
            problem($"row {number}: type {row.Type} came without data; skipped");
            return _events;
        }

        var kind = _decoder.ReadBuffer(data, 0, (offset, message) => problem($"row {number}, offset {offset}: {message}"), _events);
        int? typeOfBuffer = null;
        switch (kind)
        {
            case XelBufferKind.Header:
                Headers++;
                _decoder = new XelDecoder();
                typeOfBuffer = EventStreamRowTypes.Header;
                break;
            case XelBufferKind.Metadata:
                MetadataBuffers++;
                typeOfBuffer = EventStreamRowTypes.Metadata;
                break;
            case XelBufferKind.Events:
                EventBuffers++;
                typeOfBuffer = EventStreamRowTypes.Events;
                break;
            default:
                SkippedBuffers++;
                break;
        }

        if (typeOfBuffer is { } own && own != row.Type && !_typeMismatchReported)
        {
            // The column's meaning is assumed, the buffer's header is the format itself: trust the header, say it once.
            _typeMismatchReported = true;
            problem($"row {number}: the type column says {row.Type} but the buffer is a {kind.ToString().ToLowerInvariant()} buffer ({own}); "
                + "rows are decoded by their own header (reported once per connection)");
        }

        return _events;
    }
}
