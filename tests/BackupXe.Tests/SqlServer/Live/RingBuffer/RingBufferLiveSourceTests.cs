using BackupXe.Core.Events;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Live.RingBuffer;
using BackupXe.SqlServer.Sessions;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using Xunit;

namespace BackupXe.Tests.SqlServer.Live.RingBuffer;

/// <summary>
/// The <c>ring_buffer</c> transport end to end: the driver against the TDS double serving successive
/// sys.dm_xe_session_targets.target_data documents of a ring_buffer target (strict FIFO, totalEventsProcessed counting
/// every event received, as Microsoft's ring_buffer target page describes). Not SQL Server.
/// </summary>
public class RingBufferLiveSourceTests
{
    private static readonly TimeSpan Poll = TimeSpan.FromMilliseconds(50);

    [Fact]
    public async Task New_events_are_handed_on_once_across_reads_and_what_the_target_discarded_first_is_reported()
    {
        // Given three reads: two events; four (two new); then nine received but only the newest four held (one discarded)
        var e = Enumerable.Range(1, 9).Select(Event).ToArray();
        var sql = Running();
        sql.RingBufferReads.Enqueue(Target(total: 2, e[0], e[1]));
        sql.RingBufferReads.Enqueue(Target(total: 4, e[0], e[1], e[2], e[3]));
        sql.RingBufferReads.Enqueue(Target(total: 9, e[5], e[6], e[7], e[8]));
        await using var server = TdsServerDouble.Start(sql.Script);
        var changes = new RecordingLiveObserver();
        var source = new RingBufferLiveSource(new SqlConnectionFactory(TdsClient.Settings(server)), new CaptureSessionSettings(), Poll, changes);

        // When
        var (events, status) = await ReadAsync(source, 8);

        // Then
        Assert.Equal(["step 1", "step 2", "step 3", "step 4", "step 6", "step 7", "step 8", "step 9"], events.Select(Message));
        Assert.Empty(status.Problems);
        Assert.Equal(1, source.Lost);
        var lost = Assert.Single(changes.Changes.OfType<LiveSourceChange.EventsLost>());
        Assert.Contains("1 event was discarded by the ring_buffer target of BackupXe before being read", lost.Describe(), StringComparison.Ordinal);
        var read = server.Requests.First(r => r.Text.Contains("N'ring_buffer'", StringComparison.Ordinal));
        Assert.Equal("BackupXe", read.Parameters["@session"]);
        Assert.Equal("15.0.2000 (the connected server's login response)", $"{status.Server?.Build} ({status.Server?.Evidence})");
    }

    [Fact]
    public async Task A_count_that_went_backwards_is_a_restart_or_failover_and_is_reported_as_a_loss_of_unknown_size()
    {
        // Given the session restarted between two reads (a failover empties the buffer)
        var sql = Running();
        sql.RingBufferReads.Enqueue(Target(total: 3, Event(1), Event(2), Event(3)));
        sql.RingBufferReads.Enqueue(Target(total: 1, Event(4)));
        await using var server = TdsServerDouble.Start(sql.Script);
        var changes = new RecordingLiveObserver();
        var source = new RingBufferLiveSource(new SqlConnectionFactory(TdsClient.Settings(server)), new CaptureSessionSettings(), Poll, changes);

        // When
        var (events, _) = await ReadAsync(source, 4);

        // Then
        Assert.Equal(["step 1", "step 2", "step 3", "step 4"], events.Select(Message));
        Assert.Contains("started again from empty", Assert.Single(changes.Changes.OfType<LiveSourceChange.EventsLost>()).Describe(), StringComparison.Ordinal);
        Assert.Equal(0, source.Lost);
    }

    [Fact]
    public async Task A_session_without_a_ring_buffer_target_is_refused_in_one_line_before_any_read()
    {
        // Given the default session, whose target is an event_file
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true };
        await using var server = TdsServerDouble.Start(sql.Script);
        var source = new RingBufferLiveSource(new SqlConnectionFactory(TdsClient.Settings(server)), new CaptureSessionSettings(), Poll);

        // When
        var (events, status) = await ReadAsync(source, 1);

        // Then
        Assert.Empty(events);
        Assert.True(status.Unusable);
        Assert.Contains("has no ring_buffer target (it has package0.event_file)", Assert.Single(status.Problems).Message, StringComparison.Ordinal);
        Assert.DoesNotContain(server.Requests, r => r.Text.Contains("N'ring_buffer'", StringComparison.Ordinal));
    }

    private static ScriptedSqlServer Running() =>
        new() { SessionExists = true, SessionRunning = true, Target = "package0.ring_buffer" };

    private static string Event(int step) =>
        XeXmlEvents.Progress($"2024-05-01T01:00:{step:00}.000Z", $"step {step}");

    /// <summary>A RingBufferTarget document as target_data holds it: the counts, then the events held, oldest first.</summary>
    private static string Target(long total, params string[] events) =>
        $"<RingBufferTarget truncated=\"0\" processingTime=\"0\" totalEventsProcessed=\"{total}\" eventCount=\"{events.Length}\" droppedCount=\"0\" memoryUsed=\"1024\">"
        + string.Join("", events) + "</RingBufferTarget>";

    private static string? Message(TraceEvent e) => (e as ProgressTraceEvent)?.Message;

    private static async Task<(List<TraceEvent> Events, SourceStatus Status)> ReadAsync(ITraceEventSource source, int count)
    {
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(TestContext.Current.CancellationToken);
        stop.CancelAfter(TimeSpan.FromSeconds(20));
        var events = new List<TraceEvent>();
        var status = new SourceStatus();
        await foreach (var traceEvent in source.ReadEventsAsync(status, stop.Token))
        {
            events.Add(traceEvent);
            if (events.Count >= count)
            {
                await stop.CancelAsync();
            }
        }

        return (events, status);
    }
}
