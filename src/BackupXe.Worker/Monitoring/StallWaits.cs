using BackupXe.SqlServer;
using BackupXe.SqlServer.Requests;
using BackupXe.Worker.Logging;
using Microsoft.Extensions.Logging;

namespace BackupXe.Worker.Monitoring;

/// <summary>
/// A live instance's stalled session, looked up once in <c>sys.dm_exec_requests</c> while the stall lasts: its current
/// wait as a structured event (182), or why it could not be read (183). Read only; never throws.
/// </summary>
internal sealed class StallWaits(RunningRequestReader requests, ILogger logger)
{
    public async Task LogAsync(string instance, string kind, string? database, int sessionId, string? phase, CancellationToken cancellationToken)
    {
        var snapshot = await requests.ReadVisibleAsync(cancellationToken).ConfigureAwait(false);
        if (snapshot.Limitation is { } limitation)
        {
            logger.StallWaitUnknown(kind, database, instance, sessionId, phase, limitation);
            return;
        }

        if (snapshot.Requests.FirstOrDefault(r => r.SessionId == sessionId) is not { } request)
        {
            // Without VIEW SERVER STATE (2022+: VIEW SERVER PERFORMANCE STATE) the view lists only the login's own session, with no error.
            logger.StallWaitUnknown(kind, database, instance, sessionId, phase,
                "the session is not in sys.dm_exec_requests: it has ended, or the login lacks VIEW SERVER STATE (VIEW SERVER PERFORMANCE STATE from SQL Server 2022)");
            return;
        }

        logger.StallCurrentWait(kind, database, instance, sessionId, phase, request.WaitType, (long)request.WaitTime.TotalMilliseconds, request.LastWaitType, request.ServerUtc);
    }
}
