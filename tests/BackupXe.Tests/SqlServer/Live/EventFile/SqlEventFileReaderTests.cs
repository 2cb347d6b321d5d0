using BackupXe.Core.Events;
using BackupXe.Sources.XeXml;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Live.EventFile;
using BackupXe.Tests.Support;
using BackupXe.Testing.Tds;
using Xunit;

namespace BackupXe.Tests.SqlServer.Live.EventFile;

/// <summary>
/// The file transport through Microsoft.Data.SqlClient 6.1.8 against the TDS double, which serves the sample
/// capture's event_data rows the way the documented function shapes them. Proves BackupXe's client path and
/// its resume logic, not what SQL Server returns.
/// </summary>
public sealed class SqlEventFileReaderTests
{
    private static readonly IReadOnlyList<string> Capture = ScriptedEventFile.BufferStarvedBackup().Take(1500).ToList();

    private static readonly EventFileTailOptions Fast = new() { PollInterval = TimeSpan.FromMilliseconds(5), BatchSize = 400 };

    private static List<TraceEvent> Expected(IEnumerable<string> rows)
    {
        var parser = new XeEventDataReader();
        var status = new SourceStatus();
        return rows.Select(row => parser.Read(row, status, "expected")).OfType<TraceEvent>().ToList();
    }

    private static async Task<(List<TraceEvent> Events, RecordingLiveObserver Observer)> ReadAsync(TdsServerDouble server, EventFileTail tail, int count)
    {
        var observer = new RecordingLiveObserver();
        var source = new ResilientLiveSource(
            "db1/BackupXe", tail, new SqlFailureClassifier(),
            new LiveSourceOptions { InitialReconnectDelay = TimeSpan.Zero, MaxReconnectDelay = TimeSpan.Zero, JitterRatio = 0 },
            observer: observer);
        var events = new List<TraceEvent>();
        using var cancellation = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        await foreach (var traceEvent in source.ReadEventsAsync(new SourceStatus(), cancellation.Token))
        {
            events.Add(traceEvent);
            if (events.Count == count)
            {
                break;
            }
        }

        return (events, observer);
    }

    [Fact]
    public void Read_pattern_covers_every_rollover_file_of_the_target()
    {
        Assert.Equal(@"C:\MSSQL\Log\BackupXe_0_*.xel", SqlEventFileReader.PatternFor(@"C:\MSSQL\Log\BackupXe_0_133589000000000000.xel"));
        Assert.Equal(@"D:\xe\My_Session_0_*.xel", SqlEventFileReader.PatternFor(@"D:\xe\My_Session_0_133589000000000000.xel"));
        Assert.True(SqlEventFileReader.IsLaterFile("BackupXe_0_133589000000000001.xel", "BackupXe_0_133589000000000000.xel"));
        Assert.False(SqlEventFileReader.IsLaterFile("BackupXe_0_133589000000000000.xel", "BackupXe_0_133589000000000000.xel"));
    }

    [Fact]
    public async Task Sends_the_documented_query_with_paired_initial_arguments()
    {
        var file = ScriptedEventFile.Of(Capture.Take(80).ToList(), eventsPerBuffer: 30, buffersPerFile: 2);
        await using var server = TdsServerDouble.Start(new TdsScript().Serve(file));
        var reader = new SqlEventFileReader(new SqlConnectionFactory(TdsClient.Settings(server)), @"C:\XE\BackupXe*.xel");

        var first = await reader.ReadAsync(null, 50, CancellationToken.None).ToListAsync();
        var rest = await reader.ReadAsync(first[^1].Position, 50, CancellationToken.None).ToListAsync();

        Assert.Equal(50, first.Count);
        Assert.Equal(20, rest.Count);
        var requests = server.Requests.Where(r => r.Text.Contains("fn_xe_file_target_read_file", StringComparison.Ordinal)).ToList();
        Assert.Null(requests[0].Parameters["@initial_file_name"]);
        Assert.Null(requests[0].Parameters["@initial_offset"]);
        Assert.Equal(first[^1].FileName, requests[1].Parameters["@initial_file_name"]);
        Assert.Equal(first[^1].FileOffset, requests[1].Parameters["@initial_offset"]);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    [InlineData(5)]
    public async Task Connection_reset_mid_result_through_the_driver_loses_and_repeats_nothing(int seed)
    {
        // Given resets at random rows of random reads
        var random = new Random(seed);
        var drops = new Queue<int>(Enumerable.Range(0, 6).Select(_ => random.Next(1, 400)));
        var file = ScriptedEventFile.Of(Capture, eventsPerBuffer: 37, buffersPerFile: 10);
        await using var server = TdsServerDouble.Start(new TdsScript().Serve(file, drops));
        var reader = new SqlEventFileReader(new SqlConnectionFactory(TdsClient.Settings(server)), @"C:\XE\BackupXe*.xel");
        var expected = Expected(Capture);

        // When
        var (events, observer) = await ReadAsync(server, new EventFileTail(reader, options: Fast), expected.Count);

        // Then every reset was a transient disconnect, and the events are the capture, once each
        Assert.Empty(drops);
        // (Once in CI this counted 31, with no reset beyond the six scripted; it did not come back in repeated runs,
        // alone, under load or with the whole suite. The message names every disconnect, so that a next time says why.)
        var disconnects = observer.Of<LiveSourceChange.Disconnected>();
        Assert.True(
            disconnects.Count(d => d.Kind == LiveFailureKind.Transient) == 6,
            $"expected 6 transient disconnects, got:{Environment.NewLine}{string.Join(Environment.NewLine, disconnects.Select(d => $"{d.Kind}: {d.Reason}"))}");
        Assert.Equal(expected, events);
    }

    [Fact]
    public async Task A_rolled_over_file_found_through_the_driver_is_a_named_gap()
    {
        var file = ScriptedEventFile.Of(Capture, eventsPerBuffer: 50, buffersPerFile: 4);
        var names = file.FileNames;
        await using var server = TdsServerDouble.Start(new TdsScript().Serve(file));
        var reader = new SqlEventFileReader(new SqlConnectionFactory(TdsClient.Settings(server)), @"C:\XE\BackupXe*.xel");
        var expected = Expected(Capture);
        var checkpoint = new EventFileCheckpoint(new EventFilePosition(names[0], 5_632), null, 0, expected[49].Timestamp);

        file.DeleteOldest(3);
        var tail = new EventFileTail(reader, checkpoint, Fast);
        var (events, _) = await ReadAsync(server, tail, expected.Count - 600);

        var gap = Assert.Single(tail.Gaps);
        Assert.Equal(names[0], gap.MissingFile);
        Assert.Equal(names[3], gap.ResumedAt.FileName);
        Assert.Equal(expected.Skip(600).ToList(), events);
    }

    [Fact]
    public async Task A_damaged_buffer_through_the_driver_goes_on_at_the_targets_current_file_and_names_the_gap()
    {
        // Given eight files of 200 rows; the third has a damaged buffer after its first 120 rows (error 25736)
        var file = ScriptedEventFile.Of(Capture, eventsPerBuffer: 50, buffersPerFile: 4);
        var names = file.FileNames;
        file.Damage(names[2], readableRows: 120);
        var script = new TdsScript().Serve(file);
        await using var server = TdsServerDouble.Start(script);
        var reader = new SqlEventFileReader(new SqlConnectionFactory(TdsClient.Settings(server)), @"C:\XE\BackupXe*.xel");
        var expected = Expected(Capture);
        var tail = new EventFileTail(reader, options: Fast, currentFile: _ => Task.FromResult<string?>(file.CurrentFile));

        // When the tail reads on past it, and the server writes a ninth file afterwards
        var (events, observer) = await ReadAsync(server, tail, 520 + 100);
        var ninth = file.AppendFile(Capture.Take(30).ToList());
        var after = new List<TraceEvent>();
        var observerAfter = new RecordingLiveObserver();
        var source = new ResilientLiveSource("db1/BackupXe", tail, new SqlFailureClassifier(),
            new LiveSourceOptions { InitialReconnectDelay = TimeSpan.Zero, MaxReconnectDelay = TimeSpan.Zero, JitterRatio = 0 }, observer: observerAfter);
        using var cancellation = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        await foreach (var traceEvent in source.ReadEventsAsync(new SourceStatus(), cancellation.Token))
        {
            after.Add(traceEvent);
            if (after.Count == 30)
            {
                break;
            }
        }

        // Then the events before the damage, then the current file from its start, then the new file: the read went on
        var gap = Assert.Single(tail.Gaps);
        Assert.Equal(EventFileGapCause.DamagedBuffer, gap.Cause);
        Assert.Equal(names[2], gap.MissingFile);
        Assert.Equal(names[7], gap.ResumedAt.FileName);
        Assert.Contains("25736", gap.Describe(), StringComparison.Ordinal);
        Assert.Equal(expected.Take(520).Concat(expected.Skip(1400)).ToList(), events);
        Assert.Equal(Expected(Capture.Take(30)), after);
        Assert.Contains(names[2], gap.Describe(), StringComparison.Ordinal);
        Assert.Empty(observer.Of<LiveSourceChange.Stopped>());
        var oneFile = server.Requests.Where(r => Equals(r.Parameters.GetValueOrDefault("@path"), names[7])).ToList();
        Assert.NotEmpty(oneFile);
        Assert.All(oneFile, r => Assert.Null(r.Parameters["@initial_file_name"]));
        Assert.Contains(server.Requests, r => Equals(r.Parameters.GetValueOrDefault("@initial_file_name"), ninth) || Equals(r.Parameters.GetValueOrDefault("@initial_file_name"), names[7]));
    }

    [Fact]
    public async Task A_damaged_buffer_in_the_file_being_written_is_retried_not_fatal()
    {
        // Given one file, damaged after 30 rows, which is also the target's current file
        var file = ScriptedEventFile.Of(Capture.Take(100).ToList(), eventsPerBuffer: 10, buffersPerFile: 10);
        file.Damage(file.CurrentFile, readableRows: 30);
        await using var server = TdsServerDouble.Start(new TdsScript().Serve(file));
        var reader = new SqlEventFileReader(new SqlConnectionFactory(TdsClient.Settings(server)), @"C:\XE\BackupXe*.xel");
        var tail = new EventFileTail(reader, options: Fast, currentFile: _ => Task.FromResult<string?>(file.CurrentFile));

        // When: the 30 readable events, then the reads fail until the test has seen three transient disconnects
        var observer = new RecordingLiveObserver();
        var source = new ResilientLiveSource("db1/BackupXe", tail, new SqlFailureClassifier(),
            new LiveSourceOptions { InitialReconnectDelay = TimeSpan.Zero, MaxReconnectDelay = TimeSpan.Zero, JitterRatio = 0 }, observer: observer);
        var events = new System.Collections.Concurrent.ConcurrentQueue<TraceEvent>();
        using var cancellation = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        var reading = Task.Run(async () =>
        {
            await foreach (var traceEvent in source.ReadEventsAsync(new SourceStatus(), cancellation.Token))
            {
                events.Enqueue(traceEvent);
            }
        });
        // The events reach the queue on the reading task: under load the third disconnect was seen with one of the 30
        // handed on (a full run, 2026-11-29), so the test also waits for the 30, or for the 60 s that end a read that lost some.
        while ((observer.Of<LiveSourceChange.Disconnected>().Count < 3 || events.Count < 30) && !reading.IsCompleted)
        {
            await Task.Delay(10, TestContext.Current.CancellationToken);
        }

        await cancellation.CancelAsync();
        try
        {
            await reading;
        }
        catch (OperationCanceledException)
        {
            // The source may end quietly on cancellation or throw it; either is the test stopping it.
        }

        Assert.True(observer.Of<LiveSourceChange.Disconnected>().Count >= 3);

        // Then nothing was skipped (there is no later file yet), and no stop
        Assert.Equal(Expected(Capture.Take(30)), events);
        Assert.Empty(tail.Gaps);
        Assert.All(observer.Of<LiveSourceChange.Disconnected>(), d => Assert.Equal(LiveFailureKind.Transient, d.Kind));
        Assert.Empty(observer.Of<LiveSourceChange.Stopped>());
    }

    [Fact]
    public async Task Permission_revoked_mid_run_stops_with_the_permission_named_after_exactly_the_rows_read()
    {
        // Given reads that succeed twice (800 rows), then VIEW SERVER STATE is revoked
        var file = ScriptedEventFile.Of(Capture, eventsPerBuffer: 37, buffersPerFile: 10);
        var script = new TdsScript().Serve(file);
        await using var server = TdsServerDouble.Start(script);
        var reader = new SqlEventFileReader(new SqlConnectionFactory(TdsClient.Settings(server)), @"C:\XE\BackupXe*.xel");
        var reads = 0;
        script.On(r => r.Text.Contains("fn_xe_file_target_read_file(@path, NULL, @initial_file_name", StringComparison.Ordinal) && ++reads > 2,
            _ => new TdsResponse().Error(300, 14, ScriptedSqlServer.ServerStateDenied));
        var observer = new RecordingLiveObserver();
        var source = new ResilientLiveSource("db1/BackupXe", new EventFileTail(reader, options: Fast), new SqlFailureClassifier(),
            new LiveSourceOptions { InitialReconnectDelay = TimeSpan.Zero, MaxReconnectDelay = TimeSpan.Zero, JitterRatio = 0 }, observer: observer);
        var status = new SourceStatus();

        // When (the bound ends a read that never stops, so the test fails instead of leaving it running)
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        var events = await source.ReadEventsAsync(status, bound.Token).ToListAsync();

        // Then what the two reads returned is all there, once (the second read starts again at the first one's
        // last buffer, 400 mod 37 = 30 rows of which it skips), and the stop says what to grant
        Assert.Equal(Expected(Capture).Take(800 - 30).ToList(), events);
        var stopped = Assert.Single(observer.Of<LiveSourceChange.Stopped>());
        Assert.Contains("VIEW SERVER STATE", stopped.Reason, StringComparison.Ordinal);
        Assert.Contains(status.Problems, p => p.Message.Contains("VIEW SERVER STATE", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Login_failing_after_a_password_change_stops_without_the_password_and_without_repeats()
    {
        // Given the first read of 400 rows is cut at 150 and the login's password changes as its first event comes in
        var file = ScriptedEventFile.Of(Capture, eventsPerBuffer: 37, buffersPerFile: 10);
        var drops = new Queue<int>([150]);
        await using var server = TdsServerDouble.Start(new TdsScript().Serve(file, drops));
        var reader = new SqlEventFileReader(new SqlConnectionFactory(TdsClient.Settings(server)), @"C:\XE\BackupXe*.xel");
        // Changed on the reading thread, not where the test takes events: the source reads ahead into its channel,
        // so a change made there could come after the reconnect, which would then succeed and tail for ever.
        var observer = new RecordingLiveObserver(change =>
        {
            if (change is LiveSourceChange.EventsFlowing { Connection: 1 })
            {
                server.Credentials = (TdsClient.User, "changed-by-the-dba");
            }
        });
        var source = new ResilientLiveSource("db1/BackupXe", new EventFileTail(reader, options: Fast), new SqlFailureClassifier(),
            new LiveSourceOptions { InitialReconnectDelay = TimeSpan.Zero, MaxReconnectDelay = TimeSpan.Zero, JitterRatio = 0 }, observer: observer);
        var status = new SourceStatus();

        // When (the bound only turns a defect into a failed assertion instead of a hang; the read stops long before it)
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        var events = await source.ReadEventsAsync(status, bound.Token).ToListAsync();

        // Then what the driver delivered before the reset (it drops the rows of a packet cut short) came through
        // once and in order, and the stop is fatal and password-free
        Assert.InRange(events.Count, 1, 150);
        Assert.Equal(Expected(Capture).Take(events.Count).ToList(), events);
        var stopped = Assert.Single(observer.Of<LiveSourceChange.Stopped>());
        Assert.Contains("Login failed", stopped.Reason, StringComparison.Ordinal);
        Assert.DoesNotContain(TdsClient.Password, stopped.Reason, StringComparison.Ordinal);
        Assert.DoesNotContain("changed-by-the-dba", stopped.Reason, StringComparison.Ordinal);
    }
}
