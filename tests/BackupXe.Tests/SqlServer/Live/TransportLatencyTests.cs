using System.Diagnostics;
using System.Globalization;
using System.Threading.Channels;
using BackupXe.Core.Events;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live.EventFile;
using BackupXe.SqlServer.Live.EventStream;
using BackupXe.SqlServer.Sessions;
using BackupXe.Tests.SqlServer.Live.EventStream;
using BackupXe.Tests.Sources.Xel;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using Xunit;
using BackupXe.Testing.Xel;

namespace BackupXe.Tests.SqlServer.Live;

/// <summary>
/// The latency each transport adds between an event being available on the server and its being handed to the
/// pipeline (yielded by the live source, which is what AnalysisSession reads), through the real driver against the
/// TDS double on loopback. "Available" is the row becoming readable in the event file (file) or the double writing the
/// buffer's row (stream). The file transport's latency is its poll wait, so it is asserted on the source's own clock
/// (a wall-clock bound failed on a loaded machine); the stream transport has no wait of its own, shown on a clock that
/// never moves. A real server adds
/// its dispatch latency (MAX_DISPATCH_LATENCY, 2 s in BackupXe's session) before either, and its network; the
/// wall-clock numbers are the bench's, in docs/performance.md.
/// </summary>
public class TransportLatencyTests
{
    private const int Samples = 10;

    [Fact]
    public async Task The_file_transport_hands_an_event_on_at_its_first_poll_after_the_row_is_written()
    {
        // Given the sample capture's rows, none written yet, tailed with the default options (what watch uses) on a
        // clock the test moves: the poll wait is the source's own, so a loaded machine cannot stretch it (the wall-clock
        // figures are the bench's: docs/performance.md)
        var file = ScriptedEventFile.Of(ScriptedEventFile.BufferStarvedBackup(), 37, 40);
        file.WrittenSoFar(0);
        var sql = new ScriptedSqlServer { SessionExists = true, SessionRunning = true };
        await using var server = TdsServerDouble.Start(sql.Script.Serve(file));
        var options = new EventFileTailOptions();
        var time = new FakeClock();
        var source = new EventFileLiveSource("latency", new SqlConnectionFactory(TdsClient.Settings(server)), new CaptureSessionSettings(), false, options, new WatchlessCheckpoints(), TimeSpan.Zero, timeProvider: time);
        var handed = Channel.CreateUnbounded<TimeSpan>();
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(TestContext.Current.CancellationToken);
        var reading = Task.Run(async () =>
        {
            await foreach (var _ in source.ReadEventsAsync(new SourceStatus(), stop.Token))
            {
                handed.Writer.TryWrite(time.Elapsed);
            }
        });
        var random = new Random(11);
        var latencies = new List<TimeSpan>();

        // When one row is written at a time, at a random moment of the poll wait, and the clock is then moved to the
        // end of that wait and no further: only the first poll after the write can hand the row on
        for (var sample = 0; sample < Samples; sample++)
        {
            var untilPoll = await time.NextTimerAsync();
            var beforeWrite = untilPoll * random.NextDouble();
            time.Advance(beforeWrite);
            file.WrittenSoFar(sample + 1);
            var written = time.Elapsed;
            time.Advance(untilPoll - beforeWrite);

            // The wall-clock timeout only turns a row that waits for a later poll into a failure instead of a hang.
            latencies.Add(await handed.Reader.ReadAsync(stop.Token).AsTask().WaitAsync(TimeSpan.FromSeconds(30), stop.Token) - written);
        }

        await stop.CancelAsync();
        await reading; // a live source ends quietly when its reader stops it

        // Then each row went on at that poll: within one poll interval of its writing, on the source's clock
        Report("file (source clock)", latencies);
        Assert.All(latencies, l => Assert.InRange(l, TimeSpan.Zero, options.PollInterval));
        Assert.All(time.ScheduledDelays, d => Assert.Equal(options.PollInterval, d));
    }

    [Fact]
    public async Task The_stream_transport_hands_a_buffer_on_as_soon_as_it_arrives()
    {
        // Given a live stream with its header and metadata sent, and small event buffers to dispatch one at a time
        var built = XelStreamRows.Of(BuiltBackupCatalogue.Create(), [.. BuiltBackupScenario.BufferStarved().Take(400)], bufferSize: 2 * 1024);
        var expectedPerBuffer = built.EventBuffers
            .Select(b => EventStreamDecoderTests.FileEvents([.. built.Header, .. built.Metadata, .. b.Bytes]).Count)
            .ToList();
        var stream = new ScriptedEventStream();
        await using var server = TdsServerDouble.Start(stream.Serve(new ScriptedSqlServer { SessionExists = true, SessionRunning = true }.Script));
        var feed = stream.Feed(0);
        feed.TryWrite(XelStreamRows.Row(EventStreamRowTypes.Header, built.Header));
        feed.TryWrite(XelStreamRows.Row(EventStreamRowTypes.Metadata, built.Metadata));
        // on a clock that never moves: a wait of the source's own on its clock would hold a buffer until the minute's
        // limit below, so every buffer handed on shows there is none
        var standing = new FakeClock();
        var source = new EventStreamLiveSource(new SqlConnectionFactory(TdsClient.Settings(server)), new CaptureSessionSettings(), ensureSession: false, timeProvider: standing);
        var random = new Random(11);

        // When
        var latencies = await MeasureAsync(source, async (sample, emitted) =>
        {
            await Task.Delay(random.Next(0, 200));
            emitted[sample] = Stopwatch.GetTimestamp();
            feed.TryWrite(XelStreamRows.Row(EventStreamRowTypes.Events, built.EventBuffers[sample].Bytes));
        }, sample => expectedPerBuffer[sample], ready: () => stream.Requests >= 1);

        // Then every buffer went on with the source's clock standing still. The wall-clock figures are reported, and
        // only their median is bounded (a wait of a second per buffer outside the clock would show): one sample of a
        // loaded machine has taken 1.9 s, a pause of the machine, not of the source.
        Report("stream", latencies);
        Assert.Equal(TimeSpan.Zero, standing.Elapsed);
        Assert.InRange(latencies.Order().ElementAt(latencies.Count / 2), TimeSpan.Zero, TimeSpan.FromSeconds(1));
    }

    /// <summary>
    /// Emits <see cref="Samples"/> times, each once the previous one was handed on, and returns for each the time from
    /// its emission to its first event leaving the source. The first emission waits until the source is
    /// <paramref name="ready"/> (connected and reading), so connecting is not counted as latency.
    /// </summary>
    private static async Task<List<TimeSpan>> MeasureAsync(ITraceEventSource source, Func<int, long[], Task> emit, Func<int, int> eventsPerSample, Func<bool> ready)
    {
        var emitted = new long[Samples];
        var handed = new long[Samples];
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(TestContext.Current.CancellationToken);
        stop.CancelAfter(TimeSpan.FromSeconds(60));
        var sample = 0;
        var inSample = 0;
        var reading = Task.Run(async () =>
        {
            await foreach (var _ in source.ReadEventsAsync(new SourceStatus(), stop.Token))
            {
                if (inSample++ == 0)
                {
                    handed[sample] = Stopwatch.GetTimestamp();
                }

                if (inSample == eventsPerSample(sample))
                {
                    inSample = 0;
                    if (++sample == Samples)
                    {
                        await stop.CancelAsync();
                    }
                    else
                    {
                        await emit(sample, emitted);
                    }
                }
            }
        });
        while (!ready() && !reading.IsCompleted)
        {
            await Task.Delay(10, stop.Token);
        }

        await emit(0, emitted);
        await reading;
        Assert.Equal(Samples, sample);
        return [.. emitted.Zip(handed, (e, h) => Stopwatch.GetElapsedTime(e, h))];
    }

    private static void Report(string transport, List<TimeSpan> latencies)
    {
        var sorted = latencies.Select(l => l.TotalMilliseconds).Order().ToList();
        TestContext.Current.TestOutputHelper?.WriteLine(string.Create(
            CultureInfo.InvariantCulture,
            $"{transport}: median {sorted[sorted.Count / 2]:0} ms, max {sorted[^1]:0} ms, min {sorted[0]:0} ms over {sorted.Count} samples"));
    }

    /// <summary>No resume point: each measurement starts from nothing, as watch does.</summary>
    private sealed class WatchlessCheckpoints : IEventFileCheckpointStore
    {
        public Task<EventFileCheckpoint?> LoadAsync(string instance, CancellationToken cancellationToken) => Task.FromResult<EventFileCheckpoint?>(null);

        public Task SaveAsync(string instance, EventFileCheckpoint checkpoint, CancellationToken cancellationToken) => Task.CompletedTask;
    }
}
