using BackupXe.Core.Events;
using BackupXe.Sources.XeXml;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Live.EventFile;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.SqlServer.Live.EventFile;

public sealed class EventFileTailTests
{
    private static readonly IReadOnlyList<string> Capture = ScriptedEventFile.BufferStarvedBackup();

    private static readonly EventFileTailOptions Fast = new() { PollInterval = TimeSpan.FromMilliseconds(1), BatchSize = 500 };

    private static readonly LiveSourceOptions NoWait = new()
    {
        InitialReconnectDelay = TimeSpan.Zero,
        MaxReconnectDelay = TimeSpan.Zero,
        JitterRatio = 0,
    };

    /// <summary>Every event the capture holds, parsed once, in file order: what a perfect reader hands on.</summary>
    private static List<TraceEvent> Expected(IEnumerable<string> rows)
    {
        var parser = new XeEventDataReader();
        var status = new SourceStatus();
        return rows.Select(row => parser.Read(row, status, "expected")).OfType<TraceEvent>().ToList();
    }

    private static async Task<List<TraceEvent>> ReadAsync(EventFileTail tail, int count)
    {
        var source = new ResilientLiveSource("db1/BackupXe", tail, new TypeFailureClassifier(), NoWait);
        var events = new List<TraceEvent>();
        using var cancellation = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        await foreach (var traceEvent in source.ReadEventsAsync(new SourceStatus(), cancellation.Token))
        {
            events.Add(traceEvent);
            if (events.Count == count)
            {
                break;
            }
        }

        return events;
    }

    /// <summary>
    /// The usual tail of fn_xe_file_target_read_file: after each row remember (file_name, file_offset) and, after a
    /// drop, pass them as initial_file_name / initial_offset. Since that offset is skipped inclusively, every row of
    /// the buffer not yet read when the drop came is lost.
    /// </summary>
    private static async Task<List<string>> NaiveReadAsync(ScriptedEventFile file)
    {
        EventFilePosition? last = null;
        var rows = new List<string>();
        while (true)
        {
            var read = 0;
            try
            {
                await foreach (var row in file.ReadAsync(last, 500, CancellationToken.None))
                {
                    read++;
                    rows.Add(row.EventData);
                    last = row.Position;
                }
            }
            catch (IOException)
            {
                continue;
            }

            if (read == 0)
            {
                return rows;
            }
        }
    }

    private static long[] DropPoints(int seed, int total)
    {
        var random = new Random(seed);
        return Enumerable.Range(0, 12).Select(_ => (long)random.Next(1, total * 2)).Order().ToArray();
    }

    [Fact]
    public async Task Reads_every_event_of_the_capture_once_in_file_order()
    {
        var file = ScriptedEventFile.Of(Capture, eventsPerBuffer: 37, buffersPerFile: 20);
        var expected = Expected(Capture);

        var events = await ReadAsync(new EventFileTail(file, options: Fast), expected.Count);

        Assert.Equal(7150, expected.Count);
        Assert.Equal(expected, events);
    }

    [Fact]
    public async Task A_naive_offset_checkpoint_loses_the_rest_of_the_buffer_a_drop_cut_through()
    {
        // Given drops at random rows, most of them inside a buffer of 37 rows
        var file = ScriptedEventFile.Of(Capture, eventsPerBuffer: 37, buffersPerFile: 20);
        foreach (var point in DropPoints(seed: 1, Capture.Count))
        {
            file.FailAfterTotalRows.Enqueue(point);
        }

        // When read the usual way
        var rows = await NaiveReadAsync(file);

        // Then rows are missing: this is the fault the tail must survive
        Assert.True(rows.Count < Capture.Count, $"naive reader read {rows.Count} of {Capture.Count}");
    }

    [Theory]
    [MemberData(nameof(Seeds))]
    public async Task Connection_dropped_at_random_rows_loses_and_repeats_nothing(int seed)
    {
        var file = ScriptedEventFile.Of(Capture, eventsPerBuffer: 37, buffersPerFile: 20);
        foreach (var point in DropPoints(seed, Capture.Count))
        {
            file.FailAfterTotalRows.Enqueue(point);
        }

        var expected = Expected(Capture);
        var tail = new EventFileTail(file, options: Fast);

        var events = await ReadAsync(tail, expected.Count);

        Assert.Equal(expected.Count, events.Count);
        Assert.Equal(expected, events);
        Assert.Empty(tail.Gaps);
    }

    public static TheoryData<int> Seeds() => new(Enumerable.Range(100, 12));

    [Fact]
    public async Task Resumes_from_a_checkpoint_taken_inside_a_buffer_without_repeating_its_rows()
    {
        // Given a first tail that handed on 1000 events, then stopped
        var file = ScriptedEventFile.Of(Capture, eventsPerBuffer: 37, buffersPerFile: 20);
        var expected = Expected(Capture);
        var first = new EventFileTail(file, options: Fast);
        var head = await ReadAsync(first, 1000);
        var checkpoint = first.CheckpointAfter(1000, head[^1].Timestamp);

        // When a new tail (a restarted process) starts from that checkpoint
        var rest = await ReadAsync(new EventFileTail(file, checkpoint, Fast), expected.Count - 1000);

        // Then together they read the capture exactly once
        Assert.NotNull(checkpoint.Partial);
        Assert.Equal(1000 % 37, checkpoint.PartialRows);
        Assert.Equal(expected, head.Concat(rest).ToList());
    }

    [Fact]
    public async Task Checkpoint_of_an_earlier_event_resumes_right_after_it()
    {
        var file = ScriptedEventFile.Of(Capture, eventsPerBuffer: 37, buffersPerFile: 20);
        var expected = Expected(Capture);
        var first = new EventFileTail(file, options: Fast);
        var head = await ReadAsync(first, 3000);

        var checkpoint = first.CheckpointAfter(2222, head[2221].Timestamp);
        var rest = await ReadAsync(new EventFileTail(file, checkpoint, Fast), expected.Count - 2222);

        Assert.Equal(expected.Skip(2222).ToList(), rest);
    }

    [Fact]
    public async Task Waits_for_rows_the_server_has_not_written_yet()
    {
        var file = ScriptedEventFile.Of(Capture, eventsPerBuffer: 37, buffersPerFile: 20);
        file.WrittenSoFar(37 * 3 + 5);
        var expected = Expected(Capture);
        var tail = new EventFileTail(file, options: Fast);
        var reading = ReadAsync(tail, expected.Count);

        // The server writes the rest a while later (five rows of the fourth buffer were there before).
        await Task.Delay(50);
        Assert.False(reading.IsCompleted);
        file.WrittenSoFar(int.MaxValue);

        Assert.Equal(expected, await reading.WaitAsync(TimeSpan.FromSeconds(30)));
    }

    [Fact]
    public async Task A_file_rolled_over_past_the_checkpoint_is_reported_as_a_gap_and_reading_resumes_at_the_oldest_file()
    {
        // Given a checkpoint inside the first file (400 rows per file)
        var file = ScriptedEventFile.Of(Capture, eventsPerBuffer: 40, buffersPerFile: 10);
        var expected = Expected(Capture);
        var first = new EventFileTail(file, options: Fast);
        var head = await ReadAsync(first, 250);
        var checkpoint = first.CheckpointAfter(250, head[^1].Timestamp);
        var names = file.FileNames;

        // When the target rolls over twice before the reader is back
        file.DeleteOldest(2);
        var observer = new RecordingLiveObserver();
        var tail = new EventFileTail(file, checkpoint, Fast, observer: observer);
        var rest = await ReadAsync(tail, expected.Count - 800);

        // Then the 550 events of the lost files are named as a gap, and nothing after it is lost or repeated
        var gap = Assert.Single(tail.Gaps);
        Assert.Equal(names[0], gap.MissingFile);
        Assert.Equal(new EventFilePosition(names[2], 5_632), gap.ResumedAt);
        Assert.Equal(head[^1].Timestamp, gap.LastEventUtc);
        Assert.Equal(expected[800].Timestamp, gap.FirstEventUtc);
        Assert.Equal(expected.Skip(800).ToList(), rest);
        Assert.Contains(names[0], Assert.Single(observer.Of<LiveSourceChange.EventsLost>()).Description);
        Assert.Contains(tail.Problems.Problems, problem => problem.Message.Contains("rolled over", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Unparsable_rows_are_reported_by_file_and_offset_and_counted_in_the_checkpoint()
    {
        var rows = Capture.Take(74).ToList();
        rows[3] = "<event name=\"backup_restore_progress_trace\" timestamp=\"nonsense\"/>";
        var file = ScriptedEventFile.Of(rows, eventsPerBuffer: 37, buffersPerFile: 20);
        var tail = new EventFileTail(file, options: Fast);

        var events = await ReadAsync(tail, 73);
        var checkpoint = tail.CheckpointAfter(10, events[9].Timestamp);

        var problem = Assert.Single(tail.Problems.Problems);
        Assert.StartsWith(@"C:\XE\BackupXe_0_133000000000000000.xel offset 5632", problem.Location, StringComparison.Ordinal);
        Assert.Equal(11, checkpoint.PartialRows);
    }
}
