using System.Runtime.CompilerServices;
using BackupXe.Core.Events;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Sessions;

namespace BackupXe.SqlServer.Live.EventFile;

/// <summary>
/// One instance read live over the <c>file</c> transport, end to end: optionally (re)create the capture
/// session, find the file its event_file target writes, resume from the instance's saved checkpoint, and tail
/// with reconnects (<see cref="ResilientLiveSource"/>) and idle-point checkpoints
/// (<see cref="CheckpointedLiveSource"/>). Failures before the tail starts are reported in the status, not
/// thrown, and end the read; the daemon opens the source again after its retry delay. With a
/// <paramref name="readLimit"/> (the daemon's, shared by all its instances) every round trip to the server, the
/// session check and each poll, waits for a slot first.
/// </summary>
internal sealed class EventFileLiveSource(
    string instance,
    SqlConnectionFactory connections,
    CaptureSessionSettings session,
    bool ensureSession,
    EventFileTailOptions tailOptions,
    IEventFileCheckpointStore checkpoints,
    TimeSpan checkpointInterval,
    ILiveSourceObserver? observer = null,
    TimeProvider? timeProvider = null,
    ReadConcurrencyLimit? readLimit = null) : ITraceEventSource, IIdleCheckpoint
{
    private CheckpointedLiveSource? _current;

    // An event handed on under its logical database name is a copy; the checkpoint knows the original it read.
    private readonly System.Runtime.CompilerServices.ConditionalWeakTable<TraceEvent, TraceEvent> _renamed = [];

    public string Name { get; } = $"{connections.Settings.Server}/{session.SessionName}";

    public string Format => "live";

    public void MarkIdle(TraceEvent observed) => _current?.MarkIdle(_renamed.TryGetValue(observed, out var original) ? original : observed);

    public async IAsyncEnumerable<TraceEvent> ReadEventsAsync(SourceStatus status, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        var client = new SessionClient(connections, session);
        var (pattern, problem) = readLimit is null
            ? await FindFilesAsync(client, cancellationToken).ConfigureAwait(false)
            : await readLimit.RunAsync(token => FindFilesAsync(client, token), cancellationToken).ConfigureAwait(false);
        if (pattern is null)
        {
            status.Report(Name, problem!);
            status.Unusable = true;
            yield break;
        }

        ConnectedServer.Note(connections, status);
        var start = await checkpoints.LoadAsync(instance, cancellationToken).ConfigureAwait(false);
        IEventFileReader reader = new SqlEventFileReader(connections, pattern);
        var tail = new EventFileTail(readLimit is null ? reader : new LimitedEventFileReader(reader, readLimit), start, tailOptions, timeProvider, observer,
            token => CheckRunningAsync(client, token), token => CurrentFileAsync(client, token));
        var resilient = new ResilientLiveSource(
            Name,
            tail,
            new EventFileFailureClassifier(),
            new LiveSourceOptions { SessionName = session.SessionName, RecreateSession = ensureSession },
            ensureSession ? client : null,
            observer,
            timeProvider);
        _current = new CheckpointedLiveSource(resilient, tail, checkpoints, instance, checkpointInterval, timeProvider);
        var names = new PhysicalDatabaseNames(connections);
        await foreach (var traceEvent in _current.ReadEventsAsync(status, cancellationToken).ConfigureAwait(false))
        {
            var named = await names.LogicalAsync(traceEvent, cancellationToken).ConfigureAwait(false);
            if (!ReferenceEquals(named, traceEvent))
            {
                _renamed.AddOrUpdate(named, traceEvent);
            }

            yield return named;
        }
    }

    private async Task CheckRunningAsync(SessionClient client, CancellationToken cancellationToken)
    {
        var state = readLimit is null
            ? await client.StatusAsync(cancellationToken).ConfigureAwait(false)
            : await readLimit.RunAsync(token => client.StatusAsync(token), cancellationToken).ConfigureAwait(false);
        if (!state.Running)
        {
            throw new CaptureSessionGoneException(session.SessionName, state.Exists);
        }
    }

    /// <summary>The file the target writes now, from the session's status: where reading goes on after a damaged file.</summary>
    private async Task<string?> CurrentFileAsync(SessionClient client, CancellationToken cancellationToken)
    {
        var state = readLimit is null
            ? await client.StatusAsync(cancellationToken).ConfigureAwait(false)
            : await readLimit.RunAsync(token => client.StatusAsync(token), cancellationToken).ConfigureAwait(false);
        return state.Running ? state.CurrentFile : null;
    }

    /// <summary>The read pattern of the running session's event_file target, or why there is none.</summary>
    private async Task<(string? Pattern, string? Problem)> FindFilesAsync(SessionClient client, CancellationToken cancellationToken)
    {
        var (state, problem) = await CaptureSessionReadiness.CheckAsync(client, ensureSession, new TransientRetry(observer: observer, time: timeProvider), cancellationToken).ConfigureAwait(false);
        if (state is null)
        {
            return (null, problem);
        }

        return string.IsNullOrEmpty(state.CurrentFile)
            ? (null, $"the event session {session.SessionName} has no event_file target to read: "
                + $"create it with sessions/{SessionScripts.InstallFile}, or use the stream transport.")
            : (SqlEventFileReader.PatternFor(state.CurrentFile), null);
    }
}
