using BackupXe.Cli.Rendering;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Requests;
using BackupXe.SqlServer.Requirements;
using BackupXe.SqlServer.Sessions;

namespace BackupXe.Cli.Commands;

/// <summary>
/// <c>watch --server</c>'s read of <c>sys.dm_exec_requests</c>: once at the start, so backups already running show at
/// once, then every <paramref name="pollInterval"/> when one is given, so their percent moves even without events.
/// Read only. A login without the permission, or a failed read, is one line on standard error; the watch goes on.
/// The first read (the server facts) is the watch's first connection: a transient failure of it is retried
/// (<see cref="TransientRetry"/>, each wait told to <paramref name="observer"/>) before the watch goes on without it.
/// </summary>
internal sealed class WatchRequests(SqlConnectionFactory connections, CaptureSessionSettings session, TimeSpan pollInterval, TextWriter error, TimeProvider time, ILiveSourceObserver? observer = null)
{
    private readonly RunningRequestReader _reader = new(connections);
    private ServerFacts? _facts;
    private string? _lastProblem;

    /// <summary>Shows what runs now. A server that cannot be reached is left to the live source, which says so in its one line.</summary>
    public async Task ShowAtStartAsync(WatchView view, CancellationToken cancellationToken)
    {
        try
        {
            var client = new SessionClient(connections, session);
            _facts = await new TransientRetry(observer: observer, time: time)
                .RunAsync(client.ReadServerFactsAsync, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception) when (!cancellationToken.IsCancellationRequested)
        {
            return;
        }

        await ReadAsync(view, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Reads again every interval until cancelled; nothing when no interval was asked for or the first read could not run.</summary>
    public async Task PollAsync(WatchView view, CancellationToken cancellationToken)
    {
        if (pollInterval <= TimeSpan.Zero || _facts is null || !RunningRequestReader.SeesAllSessions(_facts))
        {
            return;
        }

        try
        {
            while (true)
            {
                await Task.Delay(pollInterval, time, cancellationToken).ConfigureAwait(false);
                await ReadAsync(view, cancellationToken).ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            // The watch ended.
        }
    }

    private async Task ReadAsync(WatchView view, CancellationToken cancellationToken)
    {
        var snapshot = await _reader.ReadAsync(_facts!, cancellationToken).ConfigureAwait(false);
        if (snapshot.Limitation is { } problem)
        {
            // A poll failing every few seconds for the same reason says it once.
            if (problem != _lastProblem && !cancellationToken.IsCancellationRequested)
            {
                _lastProblem = problem;
                await error.WriteLineAsync($"backupxe: {connections.Settings.Server}: {problem}").ConfigureAwait(false);
            }

            return;
        }

        _lastProblem = null;
        view.ShowRequests(snapshot.Requests);
    }
}
