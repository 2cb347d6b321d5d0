using BackupXe.Core.Events;
using BackupXe.Sources;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Live;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.SqlServer.Live;

public sealed class ReplayEventSourceTests
{
    private static readonly TimeSpan SafetyTimeout = TimeSpan.FromSeconds(10);

    private static RecordedEventSource Recording(params double[] seconds) =>
        new("backup.xel", "xel", seconds.Select(s => (TraceEvent)LiveEvents.Progress(s, $"at {s}")).ToArray());

    public sealed class Identity
    {
        [Fact]
        public void Reports_the_recording_s_name_and_format()
        {
            var replay = new ReplayEventSource(Recording(0), 1, new FakeClock());

            Assert.Equal("backup.xel", replay.Name);
            Assert.Equal("xel", replay.Format);
        }

        [Theory]
        [InlineData(-1)]
        [InlineData(double.NaN)]
        [InlineData(double.NegativeInfinity)]
        public void Rejects_a_speed_that_makes_no_sense(double speed)
        {
            Assert.Throws<ArgumentOutOfRangeException>(() => new ReplayEventSource(Recording(0), speed));
        }
    }

    public sealed class Unpaced
    {
        [Theory]
        [InlineData(0)]
        [InlineData(double.PositiveInfinity)]
        public void Hands_a_file_read_synchronously_to_the_analysis_as_it_is(double speed)
        {
            // Given a recording the analysis can read without an await per event
            var recording = InputSources.Open(CliRun.Sample("buffer-starved-backup.xml"));
            Assert.IsAssignableFrom<ISynchronousTraceEventSource>(recording);

            // When it is replayed as fast as possible, Then nothing stands between it and the analysis
            Assert.Same(recording, ReplayEventSource.Play(recording, speed));
        }

        [Fact]
        public void Paces_a_recording_at_any_other_speed()
        {
            var recording = InputSources.Open(CliRun.Sample("buffer-starved-backup.xml"));

            Assert.IsType<ReplayEventSource>(ReplayEventSource.Play(recording, 1, new FakeClock()));
        }

        [Fact]
        public void Keeps_the_wrapper_for_a_source_that_is_only_asynchronous()
        {
            Assert.IsType<ReplayEventSource>(ReplayEventSource.Play(Recording(0, 1), 0));
        }

        [Theory]
        [InlineData(-1)]
        [InlineData(double.NaN)]
        public void Still_rejects_a_speed_that_makes_no_sense(double speed)
        {
            var recording = InputSources.Open(CliRun.Sample("buffer-starved-backup.xml"));

            Assert.Throws<ArgumentOutOfRangeException>(() => ReplayEventSource.Play(recording, speed));
        }
    }

    public sealed class Timing
    {
        [Fact]
        public async Task Keeps_the_recorded_gaps_divided_by_the_speed()
        {
            // Given events recorded at 0 s, 10 s and 30 s, replayed at double speed
            var time = new FakeClock();
            var replay = new ReplayEventSource(Recording(0, 10, 30), 2, time);
            var status = new SourceStatus();
            await using var events = replay.ReadEventsAsync(status, CancellationToken.None).GetAsyncEnumerator();

            // When / Then: the first comes at once
            Assert.True(await events.MoveNextAsync());

            // the second after 5 s, not a moment before
            var second = events.MoveNextAsync().AsTask();
            Assert.Equal(TimeSpan.FromSeconds(5), await time.NextTimerAsync());
            time.Advance(TimeSpan.FromSeconds(4.9));
            Assert.False(second.IsCompleted);
            time.Advance(TimeSpan.FromSeconds(0.1));
            Assert.True(await second.WaitAsync(SafetyTimeout));

            // and the third 15 s after the start
            var third = events.MoveNextAsync().AsTask();
            Assert.Equal(TimeSpan.FromSeconds(10), await time.NextTimerAsync());
            time.Advance(TimeSpan.FromSeconds(10));
            Assert.True(await third.WaitAsync(SafetyTimeout));
            Assert.Equal(LiveEvents.Start.AddSeconds(30), events.Current.Timestamp);

            Assert.False(await events.MoveNextAsync());
            Assert.Equal(3, status.Events);
        }

        [Fact]
        public async Task Hands_out_an_event_due_within_a_millisecond_at_once_on_a_clock_that_only_moves_when_told()
        {
            // Given events 0.1 s apart replayed at 3x: the second is due at 0.0333... s
            var time = new FakeClock();
            var replay = new ReplayEventSource(Recording(0, 0.1), 3, time);
            await using var events = replay.ReadEventsAsync(new SourceStatus(), CancellationToken.None).GetAsyncEnumerator();
            Assert.True(await events.MoveNextAsync());

            // When the clock is less than a millisecond short of it as the replay asks for it (moved first: a timer the
            // replay had already set for the whole 33.3 ms would rightly wait for the rest)
            time.Advance(TimeSpan.FromTicks(333_000));
            var second = events.MoveNextAsync().AsTask();

            // Then it is handed out, not held by a timer shorter than a millisecond (which never fires on this clock)
            Assert.True(await second.WaitAsync(SafetyTimeout));
            Assert.Empty(time.ScheduledDelays);
        }

        [Fact]
        public async Task Does_not_drift_when_the_consumer_is_slow()
        {
            var time = new FakeClock();
            var replay = new ReplayEventSource(Recording(0, 10), 1, time);
            await using var events = replay.ReadEventsAsync(new SourceStatus(), CancellationToken.None).GetAsyncEnumerator();
            Assert.True(await events.MoveNextAsync());

            // Given the consumer spent 4 s on the first event
            time.Advance(TimeSpan.FromSeconds(4));

            // Then the second is due 6 s later, 10 s after the start
            var second = events.MoveNextAsync().AsTask();
            Assert.Equal(TimeSpan.FromSeconds(6), await time.NextTimerAsync());
            time.Advance(TimeSpan.FromSeconds(6));
            Assert.True(await second.WaitAsync(SafetyTimeout));
        }

        [Fact]
        public async Task Hands_out_late_and_out_of_order_events_at_once()
        {
            var time = new FakeClock();
            var replay = new ReplayEventSource(Recording(10, 5, 10), 1, time);

            var received = await ReadAll(replay);

            Assert.Equal(3, received.Count);
            Assert.Empty(time.ScheduledDelays);
        }

        [Theory]
        [InlineData(0)]
        [InlineData(double.PositiveInfinity)]
        public async Task At_speed_zero_or_infinity_goes_as_fast_as_possible(double speed)
        {
            var time = new FakeClock();
            var replay = new ReplayEventSource(Recording(0, 600, 3600), speed, time);

            var received = await ReadAll(replay);

            Assert.Equal(3, received.Count);
            Assert.Empty(time.ScheduledDelays);
        }

        private static async Task<List<TraceEvent>> ReadAll(ITraceEventSource source)
        {
            var received = new List<TraceEvent>();
            await foreach (var traceEvent in source.ReadEventsAsync(new SourceStatus(), CancellationToken.None).WithCancellation(CancellationToken.None))
            {
                received.Add(traceEvent);
            }

            return received;
        }
    }

    public sealed class Cancellation
    {
        [Fact]
        public async Task While_waiting_for_the_next_event_ends_the_replay_cleanly()
        {
            var time = new FakeClock();
            var replay = new ReplayEventSource(Recording(0, 60), 1, time);
            using var cancellation = new CancellationTokenSource();
            await using var events = replay.ReadEventsAsync(new SourceStatus(), cancellation.Token).GetAsyncEnumerator();
            Assert.True(await events.MoveNextAsync());

            var second = events.MoveNextAsync().AsTask();
            await time.NextTimerAsync();
            await cancellation.CancelAsync();

            Assert.False(await second.WaitAsync(SafetyTimeout));
        }
    }
}
