using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Sessions;

namespace BackupXe.SqlServer.Live;

/// <summary>
/// What both live transports check before reading: the capture session (created first when allowed) exists and
/// runs. A failure is a message for the source's status, never an exception: the daemon retries, watch says it once.
/// </summary>
internal static class CaptureSessionReadiness
{
    /// <returns>The running session's status, or null and why it cannot be read.</returns>
    public static async Task<(SessionStatus? Status, string? Problem)> CheckAsync(SessionClient client, bool ensureSession, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(client);
        var sessionName = client.Settings.SessionName;
        try
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
        catch (Exception failure) when (!cancellationToken.IsCancellationRequested)
        {
            var kind = new SqlFailureClassifier().Classify(failure);
            return (null, $"{ConnectionStringRedactor.RedactMessage(failure.Message)} ({kind.ToString().ToLowerInvariant()})");
        }
    }
}
