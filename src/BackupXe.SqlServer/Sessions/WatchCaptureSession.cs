using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Requirements;

namespace BackupXe.SqlServer.Sessions;

/// <summary>What <see cref="WatchCaptureSession.StartAsync"/> found or did.</summary>
public enum WatchSessionStart
{
    /// <summary>Created and started for this watch (STARTUP_STATE OFF); <see cref="WatchCaptureSession.StopAsync"/> removes it.</summary>
    Created,

    /// <summary>A session of that name was already running: it is read and left alone.</summary>
    AlreadyRunning,

    /// <summary>Nothing was created: the problems say why (a permission, the platform, a stopped session of that name).</summary>
    Refused,
}

/// <summary>
/// The capture session of one <c>watch --server --start-session</c>: created and started when the watch begins and
/// stopped and dropped when it ends, so the server captures only while someone is watching (Microsoft's backup
/// troubleshooting page warns that backup_restore_progress_trace can cost performance and disk space, and advises
/// short captures). Least privilege first: the login must be able to create, start, stop and drop it, or nothing
/// is created. A session of the same name that exists already is never replaced or removed.
/// </summary>
public sealed class WatchCaptureSession(SqlConnectionFactory factory, CaptureSessionSettings settings)
{
    private readonly SessionClient _client = new(factory, settings with { StartWithServer = false });

    public CaptureSessionSettings Settings => _client.Settings;

    /// <summary>Whether <see cref="StopAsync"/> has something to remove.</summary>
    public bool Created { get; private set; }

    public async Task<(WatchSessionStart Outcome, IReadOnlyList<RequirementProblem> Problems)> StartAsync(CancellationToken cancellationToken)
    {
        var facts = await _client.ReadServerFactsAsync(cancellationToken).ConfigureAwait(false);
        var problems = ServerRequirements.Check(facts, eventFilePath: Settings.FilePath);
        if (problems.Count == 0 || problems.All(p => p.Kind == RequirementKind.MissingPermission))
        {
            var before = await _client.StatusAsync(cancellationToken).ConfigureAwait(false);
            if (before.Running)
            {
                return (WatchSessionStart.AlreadyRunning, []);
            }

            if (before.Exists)
            {
                return (WatchSessionStart.Refused,
                [
                    new RequirementProblem(RequirementKind.UnsupportedPlatform,
                        $"a session named {Settings.SessionName} exists but is stopped: it is not BackupXe's to replace for one watch; "
                        + $"start it (ALTER EVENT SESSION {SessionName.Quote(Settings.SessionName)} ON SERVER STATE = START), or watch with another --session-name."),
                ]);
            }
        }

        // Removing it afterwards is part of the job: a login that could create but not drop it would leave it behind.
        problems = [.. problems, .. ServerRequirements.CheckUninstall(facts, running: true).Where(p => !problems.Any(q => q.Message == p.Message))];
        if (problems.Count > 0)
        {
            return (WatchSessionStart.Refused, problems);
        }

        var outcome = await _client.InstallAsync(cancellationToken).ConfigureAwait(false);
        Created = outcome.After is { Exists: true };
        return outcome.Installed ? (WatchSessionStart.Created, []) : (WatchSessionStart.Refused, outcome.Problems);
    }

    /// <summary>Stops and drops the session this watch created; nothing when it did not create one.</summary>
    public async Task<SessionInstallOutcome?> StopAsync(CancellationToken cancellationToken)
    {
        if (!Created)
        {
            return null;
        }

        var outcome = await _client.UninstallAsync(cancellationToken).ConfigureAwait(false);
        Created = outcome.After is { Exists: true };
        return outcome;
    }
}
