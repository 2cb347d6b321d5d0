using System.Runtime.CompilerServices;
using BackupXe.Core.Events;

namespace BackupXe.SqlServer.Live;

/// <summary>
/// Plays a recorded source back as if it were live (<c>backupxe watch --replay FILE --speed N</c>): each
/// event comes out when its original offset from the first event, divided by the speed, has elapsed.
/// </summary>
/// <remarks>
/// Due times are measured from the start of the replay, not from the previous event, so time spent by the
/// consumer does not add up into drift. Events recorded out of order come out at once.
/// </remarks>
public sealed class ReplayEventSource : ITraceEventSource
{
    /// <summary>The slowest replay accepted: a thousandth of real time.</summary>
    public const double MinSpeed = 0.001;

    // Task.Delay's limit is uint.MaxValue - 1 milliseconds (about 49 days).
    private static readonly TimeSpan MaxDelay = TimeSpan.FromMilliseconds(uint.MaxValue - 1);

    private const double MinWaitSeconds = 0.001;

    private readonly ITraceEventSource _recording;
    private readonly double _speed;
    private readonly TimeProvider _time;

    /// <param name="speed">2 = twice as fast as recorded; 0 or infinity = as fast as possible.</param>
    /// <exception cref="ArgumentOutOfRangeException">Speed is negative or not a number.</exception>
    public ReplayEventSource(ITraceEventSource recording, double speed, TimeProvider? timeProvider = null)
    {
        ArgumentNullException.ThrowIfNull(recording);
        if (!IsValidSpeed(speed))
        {
            throw new ArgumentOutOfRangeException(nameof(speed), speed, SpeedRule);
        }

        _recording = recording;
        _speed = speed;
        _time = timeProvider ?? TimeProvider.System;
    }

    /// <summary>
    /// What a replay at <paramref name="speed"/> reads. Unpaced (0 or infinity) nothing waits, so a recording the
    /// analysis can read synchronously is handed over as it is: <c>watch --replay F --speed 0</c> then reads the file the
    /// way <c>analyze F</c> does, without the merge or a suspension per event, which a wrapper would add to every event.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">Speed is negative or not a number.</exception>
    public static ITraceEventSource Play(ITraceEventSource recording, double speed, TimeProvider? timeProvider = null)
        => recording is ISynchronousTraceEventSource && (speed == 0 || double.IsPositiveInfinity(speed))
            ? recording
            : new ReplayEventSource(recording, speed, timeProvider);

    /// <summary>What <see cref="IsValidSpeed"/> accepts, said the same way by the CLI and the worker.</summary>
    public const string SpeedRule = "must be 0 (as fast as possible) or a multiple of real time from 0.001 up";

    /// <summary>0, infinity, or at least <see cref="MinSpeed"/>: slower would pace one event per millennium.</summary>
    public static bool IsValidSpeed(double speed) => speed == 0 || speed >= MinSpeed;

    public string Name => _recording.Name;

    /// <summary>The recording's format: a replay is still that file.</summary>
    public string Format => _recording.Format;

    private bool Paced => _speed > 0 && !double.IsPositiveInfinity(_speed);

    public async IAsyncEnumerable<TraceEvent> ReadEventsAsync(
        SourceStatus status,
        [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        DateTime? firstRecorded = null;
        long replayStarted = 0;
        var events = _recording.ReadEventsAsync(status, cancellationToken).GetAsyncEnumerator(cancellationToken);
        await using (events.ConfigureAwait(false))
        {
            while (await NextAsync(events, cancellationToken).ConfigureAwait(false))
            {
                var traceEvent = events.Current;
                if (Paced)
                {
                    if (firstRecorded is null)
                    {
                        firstRecorded = traceEvent.Timestamp;
                        replayStarted = _time.GetTimestamp();
                    }
                    else
                    {
                        // In seconds as a double: a gap of years at a slow speed exceeds what a TimeSpan holds,
                        // and Task.Delay takes at most MaxDelay at a time.
                        var due = (traceEvent.Timestamp - firstRecorded.Value).TotalSeconds / _speed;
                        double wait;
                        // Timers count whole milliseconds: a shorter wait fires at once without the clock moving, so on a
                        // clock that moves only when told (a test's) the loop would spin for ever. Such an event is due.
                        while ((wait = due - _time.GetElapsedTime(replayStarted).TotalSeconds) >= MinWaitSeconds)
                        {
                            if (!await DelayAsync(TimeSpan.FromSeconds(Math.Min(wait, MaxDelay.TotalSeconds)), cancellationToken).ConfigureAwait(false))
                            {
                                yield break;
                            }
                        }
                    }
                }

                yield return traceEvent;
            }
        }
    }

    private static async ValueTask<bool> NextAsync(IAsyncEnumerator<TraceEvent> events, CancellationToken cancellationToken)
    {
        try
        {
            return await events.MoveNextAsync().ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            return false;
        }
    }

    /// <summary>False when cancelled: stopping a replay just ends it.</summary>
    private async ValueTask<bool> DelayAsync(TimeSpan wait, CancellationToken cancellationToken)
    {
        try
        {
            await Task.Delay(wait, _time, cancellationToken).ConfigureAwait(false);
            return true;
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            return false;
        }
    }
}
