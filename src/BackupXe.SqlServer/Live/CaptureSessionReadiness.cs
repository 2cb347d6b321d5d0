using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Sessions;

namespace BackupXe.SqlServer.Live;

/// <summary>
/// What both live transports check before reading: the capture session (created first when allowed) exists and
/// runs. The whole check is one unit of <see cref="TransientRetry"/>: a transient failure of this first connection (a
/// failover's 4060 with 18456, Azure's 40540) is tried again with back-off, each wait a visible line, like every later
/// read. A failure that remains is a message for the source's status, never an exception: the daemon opens the source
/// again after its delay, watch says it once.
/// </summary>
internal static class CaptureSessionReadiness
{
    /// <returns>The running session's status, or null and why it cannot be read.</returns>
    public static async Task<(SessionStatus? Status, string? Problem)> CheckAsync(SessionClient client, bool ensureSession, TransientRetry retry, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(client);
        ArgumentNullException.ThrowIfNull(retry);
        try
        {
            return await retry.RunAsync(token => CheckOnceAsync(client, ensureSession, token), cancellationToken).ConfigureAwait(false);
        }
        catch (Exception failure) when (!cancellationToken.IsCancellationRequested)
        {
            var kind = new SqlFailureClassifier().Classify(failure);
            var text = kind == LiveFailureKind.DriverFault ? SqlFailureText.DriverFault(failure) : ConnectionStringRedactor.RedactMessage(failure.Message);
            return (null, $"{text} ({(kind == LiveFailureKind.DriverFault ? "driver fault" : kind.ToString().ToLowerInvariant())})");
        }
    }

    private static async Task<(SessionStatus? Status, string? Problem)> CheckOnceAsync(SessionClient client, bool ensureSession, CancellationToken cancellationToken)
    {
        var sessionName = client.Settings.SessionName;
        {
            if (ensureSession)
            {
                var outcome = await client.InstallAsync(cancellationToken).ConfigureAwait(false);
                if (outcome.Problems.Count > 0)
                {
                    return (null, "the capture session cannot be created: " + string.Join(" ", outcome.Problems.Select(p => p.Message)));
                }
            }

            var state = await client.StatusAsync(cancellationToken).ConfigureAwait(false);
            return state.Exists && state.Running
                ? (state, null)
                : (null, $"the event session {sessionName} is {(state.Exists ? "not running" : "not on the server")}: "
                    + $"create and start it with sessions/{SessionScripts.InstallFile} (or set EnsureSession).");
        }
    }
}
