using System.Runtime.CompilerServices;
using BackupXe.Core.Events;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live.EventFile;
using BackupXe.SqlServer.Sessions;

namespace BackupXe.SqlServer.Live.EventStream;

/// <summary>
/// One instance read live over the experimental <c>stream</c> transport (<c>sys.fn_MSxe_read_event_stream</c>, decoded
/// by the .xel decoder): optionally (re)create the capture session, check it runs, then stream with reconnects
/// (<see cref="ResilientLiveSource"/>). Nothing is checkpointed: a stream has no position, events emitted while
/// disconnected are lost, and each such gap is reported (<see cref="Gaps"/>, and the observer). Failures before the
/// stream starts are reported in the status, not thrown.
/// </summary>
internal sealed class EventStreamLiveSource(
    SqlConnectionFactory connections,
    CaptureSessionSettings session,
    bool ensureSession,
    ILiveSourceObserver? observer = null,
    TimeProvider? timeProvider = null) : ITraceEventSource
{
    private EventStreamConnections? _streams;

    public string Name { get; } = $"{connections.Settings.Server}/{session.SessionName}";

    public string Format => "live";

    /// <summary>The gaps of the current (or last) read.</summary>
    public IReadOnlyList<EventStreamGap> Gaps => _streams?.Gaps ?? [];

    public async IAsyncEnumerable<TraceEvent> ReadEventsAsync(SourceStatus status, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        var client = new SessionClient(connections, session);
        var (_, problem) = await CaptureSessionReadiness.CheckAsync(client, ensureSession, new TransientRetry(observer: observer, time: timeProvider), cancellationToken).ConfigureAwait(false);
        if (problem is not null)
        {
            status.Report(Name, problem);
            status.Unusable = true;
            yield break;
        }

        ConnectedServer.Note(connections, status);
        _streams = new EventStreamConnections(connections, client, observer, timeProvider);
        var resilient = new ResilientLiveSource(
            Name,
            _streams,
            new EventFileFailureClassifier(),
            new LiveSourceOptions { SessionName = session.SessionName, RecreateSession = ensureSession },
            ensureSession ? client : null,
            observer,
            timeProvider);
        var names = new PhysicalDatabaseNames(connections);
        await foreach (var traceEvent in resilient.ReadEventsAsync(status, cancellationToken).ConfigureAwait(false))
        {
            yield return await names.LogicalAsync(traceEvent, cancellationToken).ConfigureAwait(false);
        }
    }
}
