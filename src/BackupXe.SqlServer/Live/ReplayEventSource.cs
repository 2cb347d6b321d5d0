using System.Runtime.CompilerServices;
using BackupXe.Core.Events;

namespace BackupXe.SqlServer;

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
    private readonly ITraceEventSource _recording;
    private readonly double _speed;
    private readonly TimeProvider _time;

    /// <param name="speed">2 = twice as fast as recorded; 0 or infinity = as fast as possible.</param>
    /// <exception cref="ArgumentOutOfRangeException">Speed is negative or not a number.</exception>
    public ReplayEventSource(ITraceEventSource recording, double speed, TimeProvider? timeProvider = null)
    {
        ArgumentNullException.ThrowIfNull(recording);
        if (double.IsNaN(speed) || speed < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(speed), speed, "Replay speed must be 0 (as fast as possible) or more.");
        }

        _recording = recording;
        _speed = speed;
        _time = timeProvider ?? TimeProvider.System;
    }

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
                        var due = (traceEvent.Timestamp - firstRecorded.Value) / _speed;
                        var wait = due - _time.GetElapsedTime(replayStarted);
                        if (wait > TimeSpan.Zero && !await DelayAsync(wait, cancellationToken).ConfigureAwait(false))
                        {
                            yield break;
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
