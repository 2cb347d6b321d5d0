using System.Data;
using System.Globalization;
using BackupXe.Core.Events;
using BackupXe.Sources.XeXml;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live.EventFile;
using Microsoft.Data.SqlClient;

namespace BackupXe.SqlServer.Live.RingBuffer;

/// <summary>
/// The <c>ring_buffer</c> transport as an <see cref="ILiveEventStreamFactory"/> for <see cref="ResilientLiveSource"/>:
/// each connection reads the session's ring_buffer target (<see cref="Query"/>) every poll interval and hands on the
/// events new since the last read. The count of events already read is kept across connections, so what arrived
/// while disconnected is still read as long as the target still holds it; what it discarded first, and a restart of
/// the session (a failover empties the buffer), are reported as lost.
/// </summary>
internal sealed class RingBufferConnections(
    SqlConnectionFactory connections,
    string sessionName,
    TimeSpan pollInterval,
    ILiveSourceObserver? observer = null,
    TimeProvider? timeProvider = null) : ILiveEventStreamFactory
{
    /// <summary>
    /// The session's ring_buffer target as its XML text (sys.dm_xe_session_targets.target_data, nvarchar(max)); no row
    /// when the session is not running or has no such target.
    /// </summary>
    internal const string Query = """
        SELECT t.target_data
        FROM sys.dm_xe_sessions AS s
        JOIN sys.dm_xe_session_targets AS t ON t.event_session_address = s.address
        WHERE s.name = @session AND t.target_name = N'ring_buffer';
        """;

    private readonly TimeProvider _time = timeProvider ?? TimeProvider.System;
    private readonly string _sessionName = sessionName;
    private readonly TimeSpan _pollInterval = pollInterval;
    private readonly XeEventDataReader _events = new();
    private long? _total;
    private long _lost;

    /// <summary>Events the target discarded before they could be read, over all reads (a restart not counted).</summary>
    public long Lost => Interlocked.Read(ref _lost);

    public ILiveEventStream Open(Action onConnected) => new Connection(this, onConnected);

    private async Task<RingBufferRead?> ReadAsync(SourceStatus problems, CancellationToken cancellationToken)
    {
        await using var connection = await connections.OpenAsync(cancellationToken).ConfigureAwait(false);
        await using var command = connections.Command(connection, Query);
        command.Parameters.Add(new SqlParameter("@session", SqlDbType.NVarChar, 128) { Value = _sessionName });
        await using var reader = await command.ExecuteReaderAsync(CommandBehavior.SequentialAccess, cancellationToken).ConfigureAwait(false);
        if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            return null;
        }

        if (await reader.IsDBNullAsync(0, cancellationToken).ConfigureAwait(false))
        {
            // target_data is nullable: nothing to read yet, and no count to move on from.
            return new RingBufferRead(_total ?? 0, [], 0, Restarted: false);
        }

        // Streamed: the text is read as the XML reader asks for it, never held whole.
        using var text = reader.GetTextReader(0);
        return RingBufferRead.Parse(text, _total, _events, problems, $"{_sessionName} ring_buffer");
    }

    private void Report(RingBufferRead read)
    {
        string? loss = null;
        if (read.Restarted)
        {
            loss = $"the ring_buffer target of {_sessionName} started again from empty (the session was restarted, or the instance failed over): "
                + "the events it received after the previous read and before then are lost, in a number the server no longer knows.";
        }
        else if (read.Lost > 0)
        {
            Interlocked.Add(ref _lost, read.Lost);
            loss = string.Create(CultureInfo.InvariantCulture,
                $"{read.Lost} event{(read.Lost == 1 ? " was" : "s were")} discarded by the ring_buffer target of {_sessionName} before being read (it keeps only its newest events, 1,000 by default): read more often, or use the file transport where nothing may be lost.");
        }

        _total = read.TotalEventsProcessed;
        if (loss is null)
        {
            return;
        }

        try
        {
            observer?.OnChange(new LiveSourceChange.EventsLost(loss));
        }
        catch (Exception)
        {
            // An observer that fails must not stop the capture (ILiveSourceObserver's contract).
        }
    }

    private sealed class Connection(RingBufferConnections owner, Action onConnected) : ILiveEventStream
    {
        public async Task ReadAsync(Func<TraceEvent, ValueTask> onEvent, CancellationToken cancellationToken)
        {
            var connected = false;
            while (true)
            {
                cancellationToken.ThrowIfCancellationRequested();
                var problems = new SourceStatus();
                var read = await owner.ReadAsync(problems, cancellationToken).ConfigureAwait(false)
                    ?? throw new CaptureSessionGoneException(owner._sessionName, exists: true);
                if (!connected)
                {
                    connected = true;
                    onConnected();
                }

                owner.Report(read);
                foreach (var problem in problems.Problems)
                {
                    owner.Notify(new LiveSourceChange.StreamProblem($"{problem.Location}: {problem.Message}"));
                }

                foreach (var traceEvent in read.NewEvents)
                {
                    await onEvent(traceEvent).ConfigureAwait(false);
                }

                await Task.Delay(owner._pollInterval, owner._time, cancellationToken).ConfigureAwait(false);
            }
        }
    }

    private void Notify(LiveSourceChange change)
    {
        try
        {
            observer?.OnChange(change);
        }
        catch (Exception)
        {
            // As above: the observer's failure is not the capture's.
        }
    }
}
