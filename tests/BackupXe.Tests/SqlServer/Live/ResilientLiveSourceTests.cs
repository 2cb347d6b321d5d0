using BackupXe.Core.Events;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using BackupXe.Tests.Support;
using Xunit;
using static BackupXe.Tests.Support.ScriptedConnection;

namespace BackupXe.Tests.SqlServer.Live;

public sealed class ResilientLiveSourceTests
{
    private static readonly TimeSpan Second = TimeSpan.FromSeconds(1);

    private static NetworkException Network() => new("A transport-level error has occurred when receiving results from the server.");

    private static (ResilientLiveSource Source, FakeClock Time, RecordingLiveObserver Observer) Build(
        ScriptedStreamFactory streams,
        LiveSourceOptions? options = null,
        ISessionInstaller? installer = null,
        Random? jitter = null)
    {
        var time = new FakeClock();
        var observer = new RecordingLiveObserver();
        var source = new ResilientLiveSource(
            "db1/BackupXe",
            streams,
            new TypeFailureClassifier(),
            options ?? new LiveSourceOptions { JitterRatio = 0 },
            installer,
            observer,
            time,
            jitter);
        return (source, time, observer);
    }

    public sealed class Identity
    {
        [Fact]
        public void Is_a_live_source_named_after_server_and_session()
        {
            var (source, _, _) = Build(new ScriptedStreamFactory());

            Assert.Equal("live", source.Format);
            Assert.Equal("db1/BackupXe", source.Name);
        }

        [Fact]
        public void Refuses_RecreateSession_without_an_installer()
        {
            var failure = Assert.Throws<ArgumentException>(
                () => Build(new ScriptedStreamFactory(), new LiveSourceOptions { RecreateSession = true }));

            Assert.Contains("RecreateSession", failure.Message);
        }

        [Fact]
        public void Refuses_invalid_options_naming_the_setting()
        {
            var failure = Assert.Throws<ArgumentException>(
                () => Build(new ScriptedStreamFactory(), new LiveSourceOptions { ChannelCapacity = 0 }));

            Assert.Contains("ChannelCapacity", failure.Message);
        }
    }

    public sealed class Streaming
    {
        [Fact]
        public async Task Delivers_events_in_order_and_reports_connected_and_flowing()
        {
            // Given one connection delivering three events
            var events = LiveEvents.Numbered(3);
            var (source, _, observer) = Build(new ScriptedStreamFactory(Delivers(events)));
            await using var run = new LiveRun(source);

            // When
            var received = new[] { await run.NextAsync(), await run.NextAsync(), await run.NextAsync() };

            // Then
            Assert.Equal(events, received);
            Assert.Equal(3, run.Status.Events);
            Assert.Equal(3, source.Statistics.EventsReceived);
            Assert.Equal(
                [
                    new LiveSourceChange.Connecting(1),
                    new LiveSourceChange.Connected(1),
                    new LiveSourceChange.EventsFlowing(1),
                ],
                observer.Changes);
        }

        [Fact]
        public async Task Keeps_streaming_when_the_observer_throws()
        {
            var source = new ResilientLiveSource(
                "db1/BackupXe",
                new ScriptedStreamFactory(Delivers(LiveEvents.Numbered(1))),
                new TypeFailureClassifier(),
                observer: new ThrowingObserver(),
                timeProvider: new FakeClock());
            await using var run = new LiveRun(source);

            Assert.NotNull(await run.NextAsync());
        }

        private sealed class ThrowingObserver : ILiveSourceObserver
        {
            public void OnChange(LiveSourceChange change) => throw new InvalidOperationException("log sink down");
        }
    }

    public sealed class Reconnecting
    {
        [Fact]
        public async Task Backs_off_exponentially_between_failed_attempts()
        {
            // Given three failed connections, then one that delivers
            var streams = new ScriptedStreamFactory(
                FailsWith(Network()), FailsWith(Network()), FailsWith(Network()), Delivers(LiveEvents.Progress(0)));
            var (source, time, observer) = Build(streams);
            await using var run = new LiveRun(source);

            // When the consumer waits and each back-off elapses
            _ = run.Ask();
            var delays = new[] { await time.FireNextTimerAsync(), await time.FireNextTimerAsync(), await time.FireNextTimerAsync() };
            await run.NextAsync();

            // Then the delays doubled from the initial one
            Assert.Equal([1 * Second, 2 * Second, 4 * Second], delays);
            Assert.Equal([1, 2, 3], observer.Of<LiveSourceChange.ReconnectScheduled>().Select(c => c.Attempt));
            Assert.Equal(4, streams.Opened);
            Assert.Equal(3, source.Statistics.Reconnects);
        }

        [Fact]
        public async Task Never_waits_longer_than_the_maximum_delay()
        {
            var streams = new ScriptedStreamFactory(
                FailsWith(Network()), FailsWith(Network()), FailsWith(Network()), FailsWith(Network()), Delivers(LiveEvents.Progress(0)));
            var options = new LiveSourceOptions { JitterRatio = 0, BackoffMultiplier = 10, MaxReconnectDelay = 30 * Second };
            var (source, time, _) = Build(streams, options);
            await using var run = new LiveRun(source);

            _ = run.Ask();
            var delays = new List<TimeSpan>();
            for (var i = 0; i < 4; i++)
            {
                delays.Add(await time.FireNextTimerAsync());
            }

            await run.NextAsync();
            Assert.Equal([1 * Second, 10 * Second, 30 * Second, 30 * Second], delays);
        }

        [Fact]
        public async Task Shortens_each_delay_by_the_jitter_drawn()
        {
            var streams = new ScriptedStreamFactory(FailsWith(Network()), Delivers(LiveEvents.Progress(0)));
            var options = new LiveSourceOptions { InitialReconnectDelay = 10 * Second, JitterRatio = 0.2 };
            var (source, time, _) = Build(streams, options, jitter: new FixedJitter(0.5));
            await using var run = new LiveRun(source);

            _ = run.Ask();
            var delay = await time.FireNextTimerAsync();
            await run.NextAsync();

            // 10 s less half of the 20% jitter range
            Assert.Equal(9 * Second, delay);
        }

        [Fact]
        public async Task Starts_the_back_off_over_once_events_flow_again()
        {
            // Given two failures, a connection that delivers then drops, and two more failures
            var streams = new ScriptedStreamFactory(
                FailsWith(Network()),
                FailsWith(Network()),
                DeliversThenFails(Network(), LiveEvents.Progress(0)),
                FailsWith(Network()),
                Delivers(LiveEvents.Progress(1)));
            var (source, time, observer) = Build(streams);
            await using var run = new LiveRun(source);

            // When
            _ = run.Ask();
            var delays = new List<TimeSpan>();
            for (var i = 0; i < 4; i++)
            {
                delays.Add(await time.FireNextTimerAsync());
            }

            await run.NextAsync();
            await run.NextAsync();

            // Then the attempt after the events counts from one again
            Assert.Equal([1 * Second, 2 * Second, 1 * Second, 2 * Second], delays);
            Assert.Equal([1, 2, 1, 2], observer.Of<LiveSourceChange.ReconnectScheduled>().Select(c => c.Attempt));
            Assert.Equal([3, 5], observer.Of<LiveSourceChange.EventsFlowing>().Select(c => c.Connection));
        }

        [Fact]
        public async Task Reconnects_when_the_server_ends_the_stream()
        {
            var streams = new ScriptedStreamFactory(ServerCloses(LiveEvents.Progress(0)), Delivers(LiveEvents.Progress(1)));
            var (source, time, observer) = Build(streams);
            await using var run = new LiveRun(source);

            await run.NextAsync();
            _ = run.Ask();
            Assert.Equal(Second, await time.FireNextTimerAsync());
            await run.NextAsync();

            var disconnected = Assert.Single(observer.Of<LiveSourceChange.Disconnected>());
            Assert.Equal(new LiveSourceChange.Disconnected("the server ended the stream", LiveFailureKind.Transient), disconnected);
        }

        [Fact]
        public async Task Reports_the_disconnect_reason_with_secrets_masked()
        {
            var streams = new ScriptedStreamFactory(
                FailsWith(new NetworkException("Cannot connect: Server=db1;User ID=app;Password=hunter2")),
                Delivers(LiveEvents.Progress(0)));
            var (source, time, observer) = Build(streams);
            await using var run = new LiveRun(source);

            _ = run.Ask();
            await time.FireNextTimerAsync();
            await run.NextAsync();

            var disconnected = Assert.Single(observer.Of<LiveSourceChange.Disconnected>());
            Assert.Equal("Cannot connect: Server=db1;User ID=app;Password=***", disconnected.Reason);
        }

        [Fact]
        public async Task Gives_up_after_the_maximum_attempts_with_the_last_reason()
        {
            var streams = new ScriptedStreamFactory(FailsWith(Network()), FailsWith(Network()), FailsWith(Network()));
            var (source, time, observer) = Build(streams, new LiveSourceOptions { JitterRatio = 0, MaxReconnectAttempts = 2 });
            await using var run = new LiveRun(source);

            _ = run.Ask();
            await time.FireNextTimerAsync();
            await time.FireNextTimerAsync();
            await run.EndsAsync();

            var problem = Assert.Single(run.Status.Problems);
            Assert.StartsWith("Gave up after 2 reconnect attempts", problem.Message);
            Assert.Contains("transport-level error", problem.Message);
            Assert.Equal(3, streams.Opened);
            Assert.Single(observer.Of<LiveSourceChange.Stopped>());
        }
    }

    public sealed class MissingSession
    {
        [Fact]
        public async Task Without_recreate_stops_and_says_how_to_create_it()
        {
            // Given the session was dropped and re-creating is not allowed
            var streams = new ScriptedStreamFactory(FailsWith(new SessionMissingException("The event session 'BackupXe' was not found.")));
            var (source, time, observer) = Build(streams);
            await using var run = new LiveRun(source);

            // When
            await run.EndsAsync();

            // Then reading stops at once with a message naming the session and the script
            var problem = Assert.Single(run.Status.Problems);
            Assert.Equal("db1/BackupXe", problem.Location);
            Assert.Contains("The event session BackupXe is not on the server", problem.Message);
            Assert.Contains("sessions/backupxe-session.sql", problem.Message);
            Assert.Contains("RecreateSession", problem.Message);
            Assert.True(run.Status.Unusable);
            Assert.Equal(1, streams.Opened);
            Assert.Empty(time.ScheduledDelays);
            Assert.Equal(problem.Message, Assert.Single(observer.Of<LiveSourceChange.Stopped>()).Reason);
        }

        [Fact]
        public async Task With_recreate_installs_the_session_and_reconnects()
        {
            // Given
            var streams = new ScriptedStreamFactory(
                FailsWith(new SessionMissingException("The event session 'BackupXe' was not found.")),
                Delivers(LiveEvents.Progress(0)));
            var installer = new CountingSessionInstaller();
            var (source, time, observer) = Build(streams, new LiveSourceOptions { JitterRatio = 0, RecreateSession = true }, installer);
            await using var run = new LiveRun(source);

            // When
            _ = run.Ask();
            var delay = await time.FireNextTimerAsync();
            await run.NextAsync();

            // Then
            Assert.Equal(1, installer.Installs);
            Assert.Equal(Second, delay);
            Assert.Equal(
                [
                    new LiveSourceChange.Connecting(1),
                    new LiveSourceChange.Disconnected("The event session 'BackupXe' was not found.", LiveFailureKind.SessionMissing),
                    new LiveSourceChange.SessionRecreated("BackupXe"),
                    new LiveSourceChange.ReconnectScheduled(1, Second),
                    new LiveSourceChange.Connecting(2),
                    new LiveSourceChange.Connected(2),
                    new LiveSourceChange.EventsFlowing(2),
                ],
                observer.Changes);
            Assert.Empty(run.Status.Problems);
        }

        [Fact]
        public async Task Stops_when_re_creating_is_refused()
        {
            var streams = new ScriptedStreamFactory(FailsWith(new SessionMissingException("not found")));
            var installer = new CountingSessionInstaller(
                new LoginFailedException("CREATE EVENT SESSION permission denied in database 'master'."));
            var (source, _, _) = Build(streams, new LiveSourceOptions { RecreateSession = true }, installer);
            await using var run = new LiveRun(source);

            await run.EndsAsync();

            var problem = Assert.Single(run.Status.Problems);
            Assert.Equal(
                "The event session BackupXe is missing and could not be re-created: CREATE EVENT SESSION permission denied in database 'master'.",
                problem.Message);
        }

        [Fact]
        public async Task Backs_off_and_tries_again_when_re_creating_fails_transiently()
        {
            var streams = new ScriptedStreamFactory(
                FailsWith(new SessionMissingException("not found")),
                Delivers(LiveEvents.Progress(0)));
            var installer = new CountingSessionInstaller(Network());
            var (source, time, observer) = Build(streams, new LiveSourceOptions { JitterRatio = 0, RecreateSession = true }, installer);
            await using var run = new LiveRun(source);

            _ = run.Ask();
            await time.FireNextTimerAsync();
            await run.NextAsync();

            Assert.Empty(observer.Of<LiveSourceChange.SessionRecreated>());
            Assert.Equal(2, observer.Of<LiveSourceChange.Disconnected>().Count);
        }
    }

    public sealed class FatalFailure
    {
        [Fact]
        public async Task Stops_with_a_plain_message_and_no_stack_trace()
        {
            // Given a login that the server rejects, in a message that echoes the connection string
            var streams = new ScriptedStreamFactory(FailsWith(new LoginFailedException(
                "Login failed for user 'backupxe'. Server=db1;User ID=backupxe;Password=hunter2")));
            var (source, time, observer) = Build(streams);
            await using var run = new LiveRun(source);

            // When
            await run.EndsAsync();

            // Then
            var problem = Assert.Single(run.Status.Problems);
            Assert.StartsWith("Login failed for user 'backupxe'. Server=db1;User ID=backupxe;Password=***", problem.Message);
            Assert.Contains("Reconnecting will not fix this", problem.Message);
            Assert.DoesNotContain("hunter2", problem.Message);
            Assert.DoesNotContain(" at ", problem.Message);
            Assert.True(run.Status.Unusable);
            Assert.Equal(1, streams.Opened);
            Assert.Empty(time.ScheduledDelays);
            Assert.IsType<LiveSourceChange.Stopped>(observer.Changes[^1]);
        }

        [Fact]
        public async Task After_events_keeps_them_and_the_source_stays_usable()
        {
            var streams = new ScriptedStreamFactory(DeliversThenFails(new LoginFailedException("Login failed."), LiveEvents.Progress(0)));
            var (source, _, _) = Build(streams);
            await using var run = new LiveRun(source);

            await run.NextAsync();
            await run.EndsAsync();

            Assert.Single(run.Status.Problems);
            Assert.False(run.Status.Unusable);
            Assert.Equal(1, run.Status.Events);
        }
    }

    public sealed class DriverFault
    {
        [Fact]
        public async Task A_fault_thrown_inside_SqlClient_is_said_as_the_drivers_and_the_source_reconnects_to_the_next_event_never_pointing_at_the_login()
        {
            // Given a connection that delivers one event and then fails with an exception SqlClient's own code threw (the
            // kind a large batch of event rows raised inside the driver), then a connection that goes on
            var fault = Assert.ThrowsAny<ArgumentException>(() => new Microsoft.Data.SqlClient.SqlConnectionStringBuilder { ConnectTimeout = -1 });
            var streams = new ScriptedStreamFactory(DeliversThenFails(fault, LiveEvents.Progress(0)), Delivers(LiveEvents.Progress(1)));
            var time = new FakeClock();
            var observer = new RecordingLiveObserver();
            var source = new ResilientLiveSource("db1/BackupXe", streams, new BackupXe.SqlServer.Client.SqlFailureClassifier(), new LiveSourceOptions { JitterRatio = 0 }, null, observer, time);
            await using var run = new LiveRun(source);

            // When
            await run.NextAsync();
            await time.FireNextTimerAsync();
            await run.NextAsync();

            // Then it reconnected after the usual back-off, said the driver failed with its own text, and no login hint
            var disconnected = Assert.Single(observer.Of<LiveSourceChange.Disconnected>());
            Assert.Equal(LiveFailureKind.DriverFault, disconnected.Kind);
            Assert.StartsWith("disconnected (driver fault): the SqlClient driver failed inside itself (" + fault.GetType().Name, disconnected.Describe(), StringComparison.Ordinal);
            Assert.Contains(fault.Message.Split('\n')[0].Trim(), disconnected.Reason, StringComparison.Ordinal);
            Assert.DoesNotContain("login", string.Join(" ", observer.Changes.Select(c => c.Describe())), StringComparison.OrdinalIgnoreCase);
            Assert.Empty(run.Status.Problems);
            Assert.Equal(2, streams.Opened);
        }
    }

    public sealed class Backpressure
    {
        [Fact]
        public async Task A_full_channel_makes_the_reader_wait_and_the_wait_is_measured()
        {
            // Given a channel of two and a connection that delivers five events
            var events = LiveEvents.Numbered(5);
            var connection = Delivers(events);
            var (source, time, _) = Build(
                new ScriptedStreamFactory(connection),
                new LiveSourceOptions { JitterRatio = 0, ChannelCapacity = 2 });
            await using var run = new LiveRun(source);

            // When the consumer takes one event and then stalls for three seconds
            var received = new List<TraceEvent> { await run.NextAsync() };
            // (Started 4 means the third write finished, so the waiting seen is the fourth event's.)
            await LiveRun.Until(() => connection.Started == 4 && source.Statistics.ReaderWaiting, "the fourth event waits for room");
            Assert.Equal(3, connection.Delivered);
            time.Advance(3 * Second);
            Assert.Equal(3, connection.Delivered);
            for (var i = 0; i < 4; i++)
            {
                received.Add(await run.NextAsync());
            }

            // Then nothing was lost, the queue never held more than its capacity, and the stall is visible
            Assert.Equal(events, received);
            Assert.Equal(2, source.Statistics.QueueHighWater);
            Assert.True(source.Statistics.BlockedWrites >= 1);
            Assert.Equal(3 * Second, source.Statistics.TimeBlocked);
        }

        [Fact]
        public async Task Cancelling_while_the_reader_waits_ends_cleanly()
        {
            var connection = Delivers(LiveEvents.Numbered(5));
            var (source, _, _) = Build(new ScriptedStreamFactory(connection), new LiveSourceOptions { ChannelCapacity = 1 });
            var run = new LiveRun(source);

            await run.NextAsync();
            await LiveRun.Until(() => source.Statistics.ReaderWaiting, "the reader waits for room");
            run.Cancel();
            await run.EndsAsync();
            await run.DisposeAsync();

            Assert.Empty(run.Status.Problems);
        }
    }

    public sealed class Cancellation
    {
        [Fact]
        public async Task Ends_the_sequence_without_an_exception()
        {
            // Given a live stream that keeps delivering
            var (source, _, _) = Build(new ScriptedStreamFactory(Delivers(LiveEvents.Numbered(3))));
            using var cancellation = new CancellationTokenSource();
            var status = new SourceStatus();
            var received = 0;

            // When the caller cancels after the first event, the way Ctrl+C does
            await foreach (var _ in source.ReadEventsAsync(status, cancellation.Token))
            {
                received++;
                await cancellation.CancelAsync();
            }

            // Then the loop just ends: no exception, no problem, nothing more handed out
            Assert.Equal(1, received);
            Assert.Empty(status.Problems);
            Assert.False(status.Unusable);
        }

        [Fact]
        public async Task During_a_back_off_ends_cleanly()
        {
            var streams = new ScriptedStreamFactory(FailsWith(Network()));
            var (source, time, _) = Build(streams);
            var run = new LiveRun(source);

            _ = run.Ask();
            await time.NextTimerAsync();
            run.Cancel();
            await run.EndsAsync();
            await run.DisposeAsync();

            Assert.Empty(run.Status.Problems);
            Assert.False(time.HasPendingTimer);
        }

        [Fact]
        public async Task Treats_whatever_the_adapter_throws_on_cancel_as_shutdown()
        {
            // Given an adapter that surfaces cancellation as its own exception (SqlClient does)
            var (source, _, observer) = Build(new ScriptedStreamFactory(HangsThenFailsOnCancel(new NetworkException("Operation cancelled by user."))));
            var run = new LiveRun(source);

            _ = run.Ask();
            await LiveRun.Until(() => observer.Of<LiveSourceChange.Connecting>().Count == 1, "connecting");
            run.Cancel();
            await run.EndsAsync();
            await run.DisposeAsync();

            Assert.Empty(run.Status.Problems);
            Assert.Empty(observer.Of<LiveSourceChange.Disconnected>());
        }
    }
}
