using System.Runtime.CompilerServices;
using BackupXe.Core.Events;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live.EventFile;
using BackupXe.SqlServer.Sessions;

namespace BackupXe.SqlServer.Live.RingBuffer;

/// <summary>
/// One instance read live over the <c>ring_buffer</c> transport: the route for Azure SQL Managed Instance, where an
/// event_file needs Azure Blob Storage and a credential, and Microsoft's own backup-monitoring page reads a ring_buffer
/// target. The session must exist, run and have a <c>package0.ring_buffer</c> target (BackupXe does not create one);
/// its target is read every poll interval (<see cref="RingBufferConnections"/>) with reconnects
/// (<see cref="ResilientLiveSource"/>). Nothing is checkpointed: the buffer is in the server's memory only. Events the
/// target discarded before a read, and a restart or failover that emptied it, are reported as lost.
/// </summary>
internal sealed class RingBufferLiveSource(
    SqlConnectionFactory connections,
    CaptureSessionSettings session,
    TimeSpan pollInterval,
    ILiveSourceObserver? observer = null,
    TimeProvider? timeProvider = null) : ITraceEventSource
{
    /// <summary>The target's name in sys.server_event_session_targets and sys.dm_xe_session_targets.</summary>
    public const string TargetName = "ring_buffer";

    private RingBufferConnections? _reads;

    public string Name { get; } = $"{connections.Settings.Server}/{session.SessionName}";

    public string Format => "live";

    /// <summary>Events the target discarded before they could be read, so far.</summary>
    public long Lost => _reads?.Lost ?? 0;

    public async IAsyncEnumerable<TraceEvent> ReadEventsAsync(SourceStatus status, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(status);
        var client = new SessionClient(connections, session);
        var (state, problem) = await CaptureSessionReadiness.CheckAsync(client, ensureSession: false, new TransientRetry(observer: observer, time: timeProvider), cancellationToken).ConfigureAwait(false);
        if (problem is null && !state!.Targets.Any(t => t.EndsWith("." + TargetName, StringComparison.OrdinalIgnoreCase) || t.Equals(TargetName, StringComparison.OrdinalIgnoreCase)))
        {
            problem = $"the event session {session.SessionName} has no ring_buffer target (it has {(state.Targets.Count == 0 ? "none" : string.Join(", ", state.Targets))}): "
                + "add one (ALTER EVENT SESSION ... ADD TARGET package0.ring_buffer), or read it with the file transport.";
        }

        if (problem is not null)
        {
            status.Report(Name, problem);
            status.Unusable = true;
            yield break;
        }

        ConnectedServer.Note(connections, status);
        _reads = new RingBufferConnections(connections, session.SessionName, pollInterval, observer, timeProvider);
        var resilient = new ResilientLiveSource(
            Name,
            _reads,
            new EventFileFailureClassifier(),
            new LiveSourceOptions { SessionName = session.SessionName, RecreateSession = false },
            null,
            observer,
            timeProvider);
        var names = new PhysicalDatabaseNames(connections);
        await foreach (var traceEvent in resilient.ReadEventsAsync(status, cancellationToken).ConfigureAwait(false))
        {
            yield return await names.LogicalAsync(traceEvent, cancellationToken).ConfigureAwait(false);
        }
    }
}
