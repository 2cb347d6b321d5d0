using BackupXe.Core.Events;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Live.EventStream;
using BackupXe.SqlServer.Sessions;
using BackupXe.Tests.Sources.Xel;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using Xunit;
using BackupXe.Testing.Xel;

namespace BackupXe.Tests.SqlServer.Live.EventStream;

/// <summary>
/// The <c>stream</c> transport end to end: Microsoft.Data.SqlClient 6.1.8 against the TDS double serving
/// <c>sys.fn_MSxe_read_event_stream</c> rows (int, varbinary(max)) cut from a .xel BUILT by the test-only writer,
/// sent while the result stays open as a live session dispatches. Not SQL Server (docs/live.md says what is assumed).
/// </summary>
public class EventStreamLiveSourceTests
{
    private static readonly XelStreamRows Built = XelStreamRows.Of(BuiltBackupCatalogue.Create(), BuiltBackupScenario.BufferStarved());

    [Fact]
    public async Task Buffers_streamed_live_become_exactly_the_events_the_xel_file_gives()
    {
        // Given a running session whose stream sends the header, the metadata and every event buffer
        var stream = new ScriptedEventStream();
        await using var server = TdsServerDouble.Start(stream.Serve(new ScriptedSqlServer { SessionExists = true, SessionRunning = true }.Script));
        Send(stream.Feed(0), Built.EventBuffers.Select(b => b.Bytes));
        var expected = EventStreamDecoderTests.FileEvents(Built.File());

        // When
        var changes = new RecordingLiveObserver();
        var source = new EventStreamLiveSource(new SqlConnectionFactory(TdsClient.Settings(server)), new CaptureSessionSettings(), ensureSession: false, changes);
        var (events, status) = await ReadAsync(source, expected.Count);

        // Then the same events in the same order, one stream query with the session as a parameter
        Assert.Equal(expected, events.Select(e => e.ToString()));
        Assert.Empty(status.Problems);
        var query = Assert.Single(server.Requests, r => r.Text.Contains("fn_MSxe_read_event_stream", StringComparison.Ordinal));
        Assert.Equal("BackupXe", query.Parameters["@session"]);
        Assert.Empty(source.Gaps);
        Assert.DoesNotContain(changes.Changes, c => c is LiveSourceChange.EventsLost or LiveSourceChange.StreamProblem);
    }

    [Fact]
    public async Task A_dropped_connection_loses_what_was_emitted_meanwhile_and_reports_the_gap_from_when_to_when()
    {
        // Given the connection resets after three event buffers, one buffer is dispatched while no reader is attached,
        // and the next connection's stream starts again with its header and metadata
        var buffers = Built.EventBuffers.Select(b => b.Bytes).ToList();
        var stream = new ScriptedEventStream();
        await using var server = TdsServerDouble.Start(stream.Serve(new ScriptedSqlServer { SessionExists = true, SessionRunning = true }.Script));
        Send(stream.Feed(0), buffers.Take(3));
        Send(stream.Feed(1), buffers.Skip(4));
        var received = EventStreamDecoderTests.FileEvents([.. Built.Header, .. Built.Metadata, .. buffers.Take(3).SelectMany(b => b), .. buffers.Skip(4).SelectMany(b => b)]);
        var beforeDrop = EventStreamDecoderTests.FileEvents([.. Built.Header, .. Built.Metadata, .. buffers.Take(3).SelectMany(b => b)]);
        var lostCount = EventStreamDecoderTests.FileEvents(Built.File()).Count - received.Count;

        // When
        var changes = new RecordingLiveObserver();
        var source = new EventStreamLiveSource(new SqlConnectionFactory(TdsClient.Settings(server)), new CaptureSessionSettings(), ensureSession: false, changes);
        // (the reset comes once the client has read what was sent: a reset discards what it has not read yet)
        var (events, _) = await ReadAsync(source, received.Count, count =>
        {
            if (count == beforeDrop.Count)
            {
                stream.Feed(0).TryWrite(new TdsFeedItem.Drop());
            }
        });

        // Then every event sent was handed on exactly once, the dispatched-while-down buffer's events are missing...
        Assert.True(lostCount > 0);
        Assert.Equal(received, events.Select(e => e.ToString()));
        // ...and that is said: one gap, from the drop to the reconnect, after the last event received before it
        var gap = Assert.Single(source.Gaps);
        Assert.True(gap.DisconnectedUtc <= gap.ReconnectedUtc);
        Assert.Equal(events[beforeDrop.Count - 1].Timestamp, gap.LastEventUtc);
        var lost = Assert.Single(changes.Changes.OfType<LiveSourceChange.EventsLost>());
        Assert.StartsWith("gap: events emitted between ", lost.Describe(), StringComparison.Ordinal);
        Assert.Contains("the stream transport cannot resume after a dropped connection", lost.Describe(), StringComparison.Ordinal);
        Assert.Contains(changes.Changes, c => c is LiveSourceChange.Disconnected { Kind: LiveFailureKind.Transient });
        Assert.Equal(2, stream.Requests);
        // Before reconnecting it checked that the session still runs
        Assert.Contains(server.Requests, r => r.Text.Contains("dm_xe_session_targets", StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_session_stopped_under_the_stream_is_reported_and_not_retried_as_a_network_fault()
    {
        // Given the stream sends three buffers, then the session is stopped and the connection ends
        var buffers = Built.EventBuffers.Select(b => b.Bytes).ToList();
        var stream = new ScriptedEventStream();
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true };
        await using var server = TdsServerDouble.Start(stream.Serve(sql.Script));
        Send(stream.Feed(0), buffers.Take(3));
        var beforeStop = EventStreamDecoderTests.FileEvents([.. Built.Header, .. Built.Metadata, .. buffers.Take(3).SelectMany(b => b)]);

        // When
        var changes = new RecordingLiveObserver();
        var source = new EventStreamLiveSource(new SqlConnectionFactory(TdsClient.Settings(server)), new CaptureSessionSettings(), ensureSession: false, changes);
        var (events, status) = await ReadAsync(source, int.MaxValue, count =>
        {
            if (count == beforeStop.Count)
            {
                sql.SessionRunning = false;
                stream.Feed(0).TryWrite(new TdsFeedItem.Drop());
            }
        });

        // Then what came was handed on, the read stopped naming the session, and no second stream was opened
        Assert.Equal(beforeStop, events.Select(e => e.ToString()));
        Assert.Contains("The event session BackupXe is not on the server", Assert.Single(status.Problems).Message, StringComparison.Ordinal);
        Assert.Single(changes.Of<LiveSourceChange.Stopped>());
        Assert.Equal(1, stream.Requests);
    }

    [Fact]
    public async Task A_row_longer_than_any_log_buffer_is_not_read_into_memory_and_the_rows_after_it_are()
    {
        // Given a cap of 1000 bytes, and a 3000-byte row between a header row and a row without data
        var stream = new ScriptedEventStream();
        await using var server = TdsServerDouble.Start(stream.Serve(new ScriptedSqlServer().Script));
        var feed = stream.Feed(0);
        feed.TryWrite(XelStreamRows.Row(EventStreamRowTypes.Header, Built.Header));
        feed.TryWrite(XelStreamRows.Row(EventStreamRowTypes.Events, new byte[3000]));
        feed.TryWrite(new TdsFeedItem.Row([EventStreamRowTypes.Metadata, null]));
        var reader = new SqlEventStreamReader(new SqlConnectionFactory(TdsClient.Settings(server)), "BackupXe", maxRowBytes: 1000);
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(TestContext.Current.CancellationToken);
        stop.CancelAfter(TimeSpan.FromSeconds(30));

        // When
        var rows = new List<EventStreamRow>();
        await foreach (var row in reader.ReadAsync(() => { }, stop.Token))
        {
            rows.Add(row);
            if (rows.Count == 3)
            {
                break;
            }
        }

        // Then
        Assert.Equal(Built.Header, rows[0].Data);
        Assert.Equal(new EventStreamRow(EventStreamRowTypes.Events, null, Oversized: true), rows[1]);
        Assert.Equal(new EventStreamRow(EventStreamRowTypes.Metadata, null), rows[2]);
        var problems = new List<string>();
        new EventStreamDecoder().Decode(rows[1], problems.Add);
        Assert.StartsWith("row 1: type 0 is larger than any log buffer may be", Assert.Single(problems), StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_session_that_is_not_running_is_one_status_problem_and_no_stream_query()
    {
        // Given
        var stream = new ScriptedEventStream();
        await using var server = TdsServerDouble.Start(stream.Serve(new ScriptedSqlServer { SessionExists = true, SessionRunning = false }.Script));
        var source = new EventStreamLiveSource(new SqlConnectionFactory(TdsClient.Settings(server)), new CaptureSessionSettings(), ensureSession: false);

        // When
        var (events, status) = await ReadAsync(source, 1);

        // Then
        Assert.Empty(events);
        Assert.True(status.Unusable);
        Assert.Contains("BackupXe is not running", Assert.Single(status.Problems).Message, StringComparison.Ordinal);
        Assert.Equal(0, stream.Requests);
    }

    internal static void Send(System.Threading.Channels.ChannelWriter<TdsFeedItem> feed, IEnumerable<byte[]> eventBuffers)
    {
        feed.TryWrite(XelStreamRows.Row(EventStreamRowTypes.Header, Built.Header));
        feed.TryWrite(XelStreamRows.Row(EventStreamRowTypes.Metadata, Built.Metadata));
        foreach (var buffer in eventBuffers)
        {
            feed.TryWrite(XelStreamRows.Row(EventStreamRowTypes.Events, buffer));
        }
    }

    /// <summary>Reads until <paramref name="count"/> events came (or the source ended, or 30 s passed), then stops it.</summary>
    private static async Task<(List<TraceEvent> Events, SourceStatus Status)> ReadAsync(ITraceEventSource source, int count, Action<int>? received = null)
    {
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(TestContext.Current.CancellationToken);
        stop.CancelAfter(TimeSpan.FromSeconds(30));
        var events = new List<TraceEvent>();
        var status = new SourceStatus();
        await foreach (var traceEvent in source.ReadEventsAsync(status, stop.Token))
        {
            events.Add(traceEvent);
            received?.Invoke(events.Count);
            if (events.Count >= count)
            {
                await stop.CancelAsync();
            }
        }

        return (events, status);
    }
}
