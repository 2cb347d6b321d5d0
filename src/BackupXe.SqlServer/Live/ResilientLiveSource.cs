using System.Runtime.CompilerServices;
using System.Threading.Channels;
using BackupXe.Core.Events;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Requirements;
using BackupXe.SqlServer.Sessions;

namespace BackupXe.SqlServer.Live;

/// <summary>
/// A live event session as an <see cref="ITraceEventSource"/> that survives failovers, restarts and dropped
/// sessions: it reconnects with back-off, re-creates a missing session when allowed, and stops with a plain
/// message when reconnecting cannot help.
/// </summary>
/// <remarks>
/// Backpressure: the network reader feeds a bounded channel with <see cref="BoundedChannelFullMode.Wait"/>.
/// Dropping client side (DropOldest) would lose exactly the events that correlate an operation (its start
/// and end messages) without any record; the server already drops under ALLOW_SINGLE_EVENT_LOSS and counts
/// it in dropped_event_count, so loss stays in one accountable place. Waiting has a price: the server
/// disconnects a reader that falls far behind, which the reconnect loop then absorbs. The capacity is sized to
/// absorb bursts, and time spent waiting is measured in <see cref="Statistics"/> so a slow analysis is visible.
/// </remarks>
public sealed class ResilientLiveSource : ITraceEventSource
{
    private readonly ILiveEventStreamFactory _streams;
    private readonly ILiveFailureClassifier _classifier;
    private readonly LiveSourceOptions _options;
    private readonly ISessionInstaller? _installer;
    private readonly ILiveSourceObserver? _observer;
    private readonly TimeProvider _time;
    private readonly ReconnectBackoff _backoff;

    /// <param name="name">What the user named, e.g. "server/BackupXe"; shown in messages.</param>
    /// <param name="installer">Required when <see cref="LiveSourceOptions.RecreateSession"/> is set.</param>
    /// <param name="random">Jitter source; tests pass a fixed one.</param>
    /// <exception cref="ArgumentException">Invalid options, or RecreateSession without an installer.</exception>
    public ResilientLiveSource(
        string name,
        ILiveEventStreamFactory streams,
        ILiveFailureClassifier classifier,
        LiveSourceOptions? options = null,
        ISessionInstaller? installer = null,
        ILiveSourceObserver? observer = null,
        TimeProvider? timeProvider = null,
        Random? random = null)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        ArgumentNullException.ThrowIfNull(streams);
        ArgumentNullException.ThrowIfNull(classifier);
        _options = options ?? new LiveSourceOptions();
        _options.ThrowIfInvalid();
        if (_options.RecreateSession && installer is null)
        {
            throw new ArgumentException(
                $"{nameof(LiveSourceOptions.RecreateSession)} is set but no {nameof(ISessionInstaller)} was given.",
                nameof(installer));
        }

        Name = name;
        _streams = streams;
        _classifier = classifier;
        _installer = installer;
        _observer = observer;
        _time = timeProvider ?? TimeProvider.System;
        _backoff = new ReconnectBackoff(_options, random);
    }

    public string Name { get; }

    public string Format => "live";

    /// <summary>Counters of the current (or last) read, backpressure included.</summary>
    public LiveSourceStatistics Statistics { get; private set; } = new();

    /// <summary>
    /// Streams until <paramref name="cancellationToken"/> fires (the sequence then just ends) or until
    /// reading cannot go on; the reason is then reported in <paramref name="status"/>, never thrown.
    /// </summary>
    public async IAsyncEnumerable<TraceEvent> ReadEventsAsync(
        SourceStatus status,
        [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(status);
        var channel = Channel.CreateBounded<TraceEvent>(new BoundedChannelOptions(_options.ChannelCapacity)
        {
            FullMode = BoundedChannelFullMode.Wait,
            SingleReader = true,
            SingleWriter = true,
        });
        var run = new Run(channel, new LiveSourceStatistics());
        Statistics = run.Statistics;

        using var stopping = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        // Its own task: the adapter's callback must keep draining the network while the caller analyses.
        var producer = Task.Run(() => ProduceAsync(run, stopping.Token), CancellationToken.None);
        long yielded = 0;
        try
        {
            while (await WaitToReadAsync(channel.Reader, cancellationToken).ConfigureAwait(false))
            {
                // Once cancelled, queued events are not handed out: the caller asked to stop, not to drain.
                while (!cancellationToken.IsCancellationRequested && channel.Reader.TryRead(out var traceEvent))
                {
                    yielded++;
                    status.Events++;
                    yield return traceEvent;
                }
            }
        }
        finally
        {
            await stopping.CancelAsync().ConfigureAwait(false);
            await producer.ConfigureAwait(false);
        }

        if (run.StopReason is { } reason)
        {
            status.Report(Name, reason);
            status.Unusable = yielded == 0;
        }
    }

    private static async ValueTask<bool> WaitToReadAsync(ChannelReader<TraceEvent> reader, CancellationToken cancellationToken)
    {
        try
        {
            return await reader.WaitToReadAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            // Shutdown is the normal way a live stream ends: the sequence just ends.
            return false;
        }
    }

    /// <summary>The connect / read / classify / back off loop. Never throws; records why it stopped.</summary>
    private async Task ProduceAsync(Run run, CancellationToken stopping)
    {
        var failures = 0;
        var connection = 0;
        try
        {
            while (!stopping.IsCancellationRequested)
            {
                connection++;
                var failure = await ReadOneConnectionAsync(run, connection, () => failures = 0, stopping).ConfigureAwait(false);
                if (stopping.IsCancellationRequested)
                {
                    return;
                }

                var kind = failure is null ? LiveFailureKind.Transient : Classify(failure);
                var reason = failure is null ? "the server ended the stream"
                    : kind == LiveFailureKind.DriverFault ? Client.SqlFailureText.DriverFault(failure)
                    : ConnectionStringRedactor.RedactMessage(failure.Message);
                Notify(new LiveSourceChange.Disconnected(reason, kind));

                if (kind == LiveFailureKind.Fatal)
                {
                    Stop(run, $"{reason} Reconnecting will not fix this: check the server name, the login, its permissions "
                        + $"({ServerRequirements.AlterAnyEventSession}, {ServerRequirements.ViewServerState}) and the encryption settings.");
                    return;
                }

                if (kind == LiveFailureKind.SessionMissing)
                {
                    if (!_options.RecreateSession)
                    {
                        Stop(run, $"The event session {_options.SessionName} is not on the server ({reason}). "
                            + $"Create it with sessions/{SessionScripts.InstallFile}, or allow BackupXe to re-create it "
                            + $"({nameof(LiveSourceOptions.RecreateSession)}).");
                        return;
                    }

                    var installFailure = await RecreateSessionAsync(stopping).ConfigureAwait(false);
                    if (stopping.IsCancellationRequested)
                    {
                        return;
                    }

                    if (installFailure is not null)
                    {
                        reason = ConnectionStringRedactor.RedactMessage(installFailure.Message);
                        if (Classify(installFailure) == LiveFailureKind.Fatal)
                        {
                            Stop(run, $"The event session {_options.SessionName} is missing and could not be re-created: {reason}");
                            return;
                        }

                        Notify(new LiveSourceChange.Disconnected(reason, LiveFailureKind.Transient));
                    }
                }

                failures++;
                if (failures > _options.MaxReconnectAttempts)
                {
                    Stop(run, $"Gave up after {_options.MaxReconnectAttempts} reconnect attempts without events. Last failure: {reason}");
                    return;
                }

                var delay = _backoff.DelayFor(failures);
                run.Statistics.RecordReconnect();
                Notify(new LiveSourceChange.ReconnectScheduled(failures, delay));
                try
                {
                    await Task.Delay(delay, _time, stopping).ConfigureAwait(false);
                }
                catch (OperationCanceledException) when (stopping.IsCancellationRequested)
                {
                    return;
                }
            }
        }
        finally
        {
            run.Channel.Writer.TryComplete();
        }
    }

    /// <summary>One connection, start to end: null when the server ended it, else what it failed with.</summary>
    private async Task<Exception?> ReadOneConnectionAsync(Run run, int connection, Action eventsFlowing, CancellationToken stopping)
    {
        var flowing = false;
        run.Statistics.RecordConnection();
        Notify(new LiveSourceChange.Connecting(connection));
        try
        {
            var stream = _streams.Open(() => Notify(new LiveSourceChange.Connected(connection)));
            await stream.ReadAsync(
                async traceEvent =>
                {
                    if (!flowing)
                    {
                        // Only events prove the connection works: a connect that fails at once must not reset the back-off.
                        flowing = true;
                        eventsFlowing();
                        Notify(new LiveSourceChange.EventsFlowing(connection));
                    }

                    await WriteAsync(run, traceEvent, stopping).ConfigureAwait(false);
                },
                stopping).ConfigureAwait(false);
            return null;
        }
        catch (Exception) when (stopping.IsCancellationRequested)
        {
            // Whatever the adapter throws on the way out of a cancelled read (OperationCanceledException,
            // or a SqlException saying the operation was cancelled) is shutdown, not failure.
            return null;
        }
        catch (Exception failure)
        {
            return failure;
        }
    }

    private async ValueTask WriteAsync(Run run, TraceEvent traceEvent, CancellationToken stopping)
    {
        var writer = run.Channel.Writer;
        if (!writer.TryWrite(traceEvent))
        {
            var started = _time.GetTimestamp();
            run.Statistics.RecordWaiting(true);
            try
            {
                await writer.WriteAsync(traceEvent, stopping).ConfigureAwait(false);
            }
            finally
            {
                run.Statistics.RecordWaiting(false);
                run.Statistics.RecordBlocked(_time.GetElapsedTime(started));
            }
        }

        run.Statistics.RecordQueued(run.Channel.Reader.Count);
    }

    private async Task<Exception?> RecreateSessionAsync(CancellationToken stopping)
    {
        try
        {
            await _installer!.InstallAsync(stopping).ConfigureAwait(false);
            Notify(new LiveSourceChange.SessionRecreated(_options.SessionName));
            return null;
        }
        catch (Exception) when (stopping.IsCancellationRequested)
        {
            return null;
        }
        catch (Exception failure)
        {
            return failure;
        }
    }

    private LiveFailureKind Classify(Exception failure)
    {
        try
        {
            return _classifier.Classify(failure);
        }
        catch (Exception)
        {
            // A classifier defect must not end a capture that a reconnect might save.
            return LiveFailureKind.Transient;
        }
    }

    private void Stop(Run run, string reason)
    {
        run.StopReason = reason;
        Notify(new LiveSourceChange.Stopped(reason));
    }

    private void Notify(LiveSourceChange change)
    {
        try
        {
            _observer?.OnChange(change);
        }
        catch (Exception)
        {
            // Like a failing log sink: isolated, so logging trouble never ends the capture.
        }
    }

    /// <summary>State of one ReadEventsAsync call, so that two reads never share a channel.</summary>
    private sealed class Run(Channel<TraceEvent> channel, LiveSourceStatistics statistics)
    {
        public Channel<TraceEvent> Channel { get; } = channel;

        public LiveSourceStatistics Statistics { get; } = statistics;

        /// <summary>Written by the producer before it completes the channel; read by the consumer after.</summary>
        public string? StopReason { get; set; }
    }
}
