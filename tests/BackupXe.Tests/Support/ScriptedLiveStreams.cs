using BackupXe.Core.Events;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;

namespace BackupXe.Tests.Support;

/// <summary>How one scripted connection ends after delivering its events.</summary>
public enum ConnectionEnd
{
    /// <summary>Throws the connection's failure.</summary>
    Fails,

    /// <summary>Returns, as when the server closes the stream.</summary>
    Returns,

    /// <summary>Waits until cancelled, then throws OperationCanceledException like XELite.</summary>
    Hangs,

    /// <summary>Waits until cancelled, then throws the connection's failure, as SqlClient may on cancel.</summary>
    HangsThenFails,
}

/// <summary>One connection's worth of behaviour: maybe signal connected, deliver events, then end.</summary>
public sealed class ScriptedConnection : ILiveEventStream
{
    private int _started;
    private int _delivered;

    private ScriptedConnection(IReadOnlyList<TraceEvent> events, ConnectionEnd end, Exception? failure, bool signalsConnected)
    {
        Events = events;
        End = end;
        Failure = failure;
        SignalsConnected = signalsConnected;
    }

    public IReadOnlyList<TraceEvent> Events { get; }

    public ConnectionEnd End { get; }

    public Exception? Failure { get; }

    public bool SignalsConnected { get; }

    /// <summary>Deliveries begun (the callback was called).</summary>
    public int Started => Volatile.Read(ref _started);

    /// <summary>Deliveries finished (the callback's task completed): Started - Delivered = 1 means it is blocked.</summary>
    public int Delivered => Volatile.Read(ref _delivered);

    public static ScriptedConnection FailsWith(Exception failure) => new([], ConnectionEnd.Fails, failure, false);

    public static ScriptedConnection Delivers(params TraceEvent[] events) => new(events, ConnectionEnd.Hangs, null, true);

    public static ScriptedConnection DeliversThenFails(Exception failure, params TraceEvent[] events) =>
        new(events, ConnectionEnd.Fails, failure, true);

    public static ScriptedConnection HangsThenFailsOnCancel(Exception failure) => new([], ConnectionEnd.HangsThenFails, failure, true);

    public static ScriptedConnection ServerCloses(params TraceEvent[] events) => new(events, ConnectionEnd.Returns, null, true);

    public Action OnConnected { get; set; } = () => { };

    public async Task ReadAsync(Func<TraceEvent, ValueTask> onEvent, CancellationToken cancellationToken)
    {
        await Task.Yield();
        if (SignalsConnected)
        {
            OnConnected();
        }

        foreach (var traceEvent in Events)
        {
            Interlocked.Increment(ref _started);
            await onEvent(traceEvent);
            Interlocked.Increment(ref _delivered);
        }

        switch (End)
        {
            case ConnectionEnd.Fails:
                // As an awaited failure arrives: with the trace of where it was first thrown (a driver's own fault keeps its frames).
                System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw(Failure!);
                return;
            case ConnectionEnd.Returns:
                return;
            case ConnectionEnd.HangsThenFails:
                try
                {
                    await Task.Delay(Timeout.InfiniteTimeSpan, cancellationToken);
                }
                catch (OperationCanceledException)
                {
                    throw Failure!;
                }

                return;
            default:
                await Task.Delay(Timeout.InfiniteTimeSpan, cancellationToken);
                return;
        }
    }
}

/// <summary>Hands out scripted connections in order; once the script runs out, connections hang until cancelled.</summary>
public sealed class ScriptedStreamFactory(params ScriptedConnection[] script) : ILiveEventStreamFactory
{
    private readonly Queue<ScriptedConnection> _script = new(script);
    private int _opened;

    public int Opened => Volatile.Read(ref _opened);

    public ILiveEventStream Open(Action onConnected)
    {
        Interlocked.Increment(ref _opened);
        ScriptedConnection next;
        lock (_script)
        {
            next = _script.Count > 0 ? _script.Dequeue() : ScriptedConnection.Delivers();
        }

        next.OnConnected = onConnected;
        return next;
    }
}

/// <summary>Classifies by exception type, the way a SqlClient adapter would by error number.</summary>
public sealed class TypeFailureClassifier : ILiveFailureClassifier
{
    public LiveFailureKind Classify(Exception failure) => failure switch
    {
        SessionMissingException => LiveFailureKind.SessionMissing,
        LoginFailedException => LiveFailureKind.Fatal,
        _ => LiveFailureKind.Transient,
    };
}

public sealed class SessionMissingException(string message) : Exception(message);

public sealed class LoginFailedException(string message) : Exception(message);

public sealed class NetworkException(string message) : Exception(message);

/// <summary>Counts installs; optionally fails them.</summary>
public sealed class CountingSessionInstaller(Exception? failure = null) : ISessionInstaller
{
    private int _installs;

    public int Installs => Volatile.Read(ref _installs);

    public Task InstallAsync(CancellationToken cancellationToken)
    {
        Interlocked.Increment(ref _installs);
        return failure is null ? Task.CompletedTask : Task.FromException(failure);
    }
}

/// <summary>
/// Keeps every change, thread-safe, for assertions. <paramref name="react"/> runs on the reading thread as the
/// change happens, before reading goes on: where a test changes the server at a point of the read.
/// </summary>
public sealed class RecordingLiveObserver(Action<LiveSourceChange>? react = null) : ILiveSourceObserver
{
    private readonly List<LiveSourceChange> _changes = [];

    public IReadOnlyList<LiveSourceChange> Changes
    {
        get
        {
            lock (_changes)
            {
                return [.. _changes];
            }
        }
    }

    public IReadOnlyList<T> Of<T>()
        where T : LiveSourceChange => Changes.OfType<T>().ToList();

    public void OnChange(LiveSourceChange change)
    {
        lock (_changes)
        {
            _changes.Add(change);
        }

        react?.Invoke(change);
    }
}

/// <summary>Jitter that always draws the same number.</summary>
public sealed class FixedJitter(double draw) : Random
{
    public override double NextDouble() => draw;
}
