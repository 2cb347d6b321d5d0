using System.Threading.Channels;
using BackupXe.Sources.Xel;
using BackupXe.Sources.XeEvents;
using BackupXe.SqlServer;
using BackupXe.Tests.Sources.Xel;
using BackupXe.Testing.Tds;
using BackupXe.Testing.Xel;

namespace BackupXe.Tests.Support;

/// <summary>
/// <c>sys.fn_MSxe_read_event_stream(@session, 0)</c> on the TDS double: each request (one per connection) is answered
/// with (type int, data image) rows, the types Microsoft's page of the function documents, that the test writes to
/// that connection's feed while the result stays open, as a live session dispatches buffers. Not SQL Server: what
/// the rows hold is the assumed layout (docs/live.md).
/// </summary>
public sealed class ScriptedEventStream
{
    private readonly List<Channel<TdsFeedItem>> _feeds = [];
    private int _requests;

    public static TdsResultSet Columns() => new(TdsColumn.Int("type"), TdsColumn.Image("data"));

    /// <summary>Requests served so far (connections that reached the stream query).</summary>
    public int Requests => Volatile.Read(ref _requests);

    /// <summary>The feed of connection <paramref name="connection"/> (0 = the first).</summary>
    public ChannelWriter<TdsFeedItem> Feed(int connection)
    {
        lock (_feeds)
        {
            while (_feeds.Count <= connection)
            {
                _feeds.Add(Channel.CreateUnbounded<TdsFeedItem>());
            }

            return _feeds[connection].Writer;
        }
    }

    public TdsScript Serve(TdsScript script) => script.On("sys.fn_MSxe_read_event_stream(@session, 0)", _ =>
    {
        var connection = Interlocked.Increment(ref _requests) - 1;
        Feed(connection);
        lock (_feeds)
        {
            return new TdsResponse().Feed(Columns(), _feeds[connection].Reader);
        }
    });
}

/// <summary>
/// BUILT: the log buffers of a .xel written by the test-only <see cref="XelTestWriter"/>, cut into what the stream sends
/// one row each: the 512-byte header block (type 2), the metadata buffer (type 1), the event buffers (type 0).
/// </summary>
internal sealed record XelStreamRows(byte[] Header, byte[] Metadata, IReadOnlyList<(byte[] Bytes, int Events)> EventBuffers)
{
    public static XelStreamRows Of(XelCatalogue catalogue, IReadOnlyList<XeEvent> events, int bufferSize = 64 * 1024)
    {
        var file = XelTestWriter.File(catalogue, events, out var layout, bufferSize);
        var firstEvents = layout.EventBuffers[0].Offset;
        return new XelStreamRows(
            file[..512],
            file[layout.MetadataOffset..firstEvents],
            [.. layout.EventBuffers.Select(b => (file[b.Offset..(b.Offset + b.Size)], b.RecordOffsets.Count))]);
    }

    /// <summary>The whole file again, for comparing with the file reader.</summary>
    public byte[] File() => [.. Header, .. Metadata, .. EventBuffers.SelectMany(b => b.Bytes)];

    public static TdsFeedItem.Row Row(int type, byte[] data) => new([type, data]);
}
