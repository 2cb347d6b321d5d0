using System.Data;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Requests;
using BackupXe.SqlServer.Requirements;
using Microsoft.Data.SqlClient;

namespace BackupXe.SqlServer.Sessions;

/// <summary>What <see cref="SessionArming.ArmAsync"/> found or did.</summary>
public enum ArmingOutcome
{
    /// <summary>The stopped session was started here (ALTER EVENT SESSION ... STATE = START); disarming stops it.</summary>
    Started,

    /// <summary>The session was missing and was created here with STARTUP_STATE OFF, and started; disarming stops it.</summary>
    Created,

    /// <summary>The session already ran and was not started here: it is read, and never stopped by BackupXe.</summary>
    AlreadyRunning,

    /// <summary>Nothing was changed: the problems say why (a permission, STARTUP_STATE ON, the platform, no session).</summary>
    Refused,
}

/// <summary>The outcome of one arming, with what stands in the way when it was refused.</summary>
public sealed record ArmingResult(ArmingOutcome Outcome, IReadOnlyList<RequirementProblem> Problems);

/// <summary>
/// Starts an existing capture session before a backup window and stops it after, so the server captures only around
/// the backups (Microsoft's backup troubleshooting page advises short captures of backup_restore_progress_trace).
/// Least privilege first: before the first START the login must be able to stop the session again and to see every
/// running backup, or nothing is changed. Only a session started here is ever stopped here; one found running is
/// read and left alone. The session must not start with the server (STARTUP_STATE OFF), or no window would bound it.
/// </summary>
public sealed class SessionArming(SqlConnectionFactory factory, CaptureSessionSettings settings, bool createWhenMissing)
{
    /// <summary>Starts the session named by @session (QUOTENAME on the server: the name is a parameter, never spliced).</summary>
    public const string StartStatement = """
        DECLARE @statement nvarchar(max) = N'ALTER EVENT SESSION ' + QUOTENAME(@session) + N' ON SERVER STATE = START;';
        EXEC sys.sp_executesql @statement;
        """;

    /// <summary>Stops the session named by @session.</summary>
    public const string StopStatement = """
        DECLARE @statement nvarchar(max) = N'ALTER EVENT SESSION ' + QUOTENAME(@session) + N' ON SERVER STATE = STOP;';
        EXEC sys.sp_executesql @statement;
        """;

    private readonly SessionClient _client = new(factory, settings with { StartWithServer = false });

    public CaptureSessionSettings Settings => _client.Settings;

    /// <summary>Whether the session runs because this arming started it (and so is this arming's to stop).</summary>
    public bool StartedHere { get; private set; }

    /// <summary>The session's state, for a check outside any window.</summary>
    public Task<SessionStatus> StatusAsync(CancellationToken cancellationToken) => _client.StatusAsync(cancellationToken);

    /// <summary>Starts the session (or creates it, when allowed and missing) unless it runs already; refuses before any DDL.</summary>
    public async Task<ArmingResult> ArmAsync(CancellationToken cancellationToken)
    {
        var facts = await _client.ReadServerFactsAsync(cancellationToken).ConfigureAwait(false);
        var platform = ServerRequirements.Check(facts, eventFilePath: Settings.FilePath).Where(p => p.Kind != RequirementKind.MissingPermission).ToList();
        if (platform.Count > 0)
        {
            return new ArmingResult(ArmingOutcome.Refused, platform);
        }

        var problems = ServerRequirements.CheckArming(facts);
        if (!RunningRequestReader.SeesAllSessions(facts))
        {
            // Without it the session's state cannot be read either: nothing more to ask the server.
            return new ArmingResult(ArmingOutcome.Refused, problems);
        }

        var status = await _client.StatusAsync(cancellationToken).ConfigureAwait(false);
        if (status.Running)
        {
            return new ArmingResult(StartedHere ? ArmingOutcome.Started : ArmingOutcome.AlreadyRunning, []);
        }

        if (status.Exists && status.StartsWithServer == true)
        {
            return new ArmingResult(ArmingOutcome.Refused,
            [
                new RequirementProblem(RequirementKind.UnsupportedPlatform,
                    $"the session {Quoted} starts with the server (STARTUP_STATE ON), so no window would bound it: it is not started here. "
                    + $"Make it start only when asked with ALTER EVENT SESSION {Quoted} ON SERVER WITH (STARTUP_STATE = OFF);, or read it without CaptureWindows."),
            ]);
        }

        if (!status.Exists)
        {
            if (!createWhenMissing)
            {
                return new ArmingResult(ArmingOutcome.Refused,
                    [new RequirementProblem(RequirementKind.UnsupportedPlatform, $"the session {Quoted} is not on the server, and creating it is not allowed here.")]);
            }

            problems = [.. problems, .. ServerRequirements.Check(facts, eventFilePath: Settings.FilePath).Where(p => !problems.Any(q => q.Message == p.Message))];
        }

        if (problems.Count > 0)
        {
            return new ArmingResult(ArmingOutcome.Refused, problems);
        }

        if (!status.Exists)
        {
            // The install script creates it with STARTUP_STATE OFF (this client's settings) and starts it.
            var installed = await _client.InstallAsync(cancellationToken).ConfigureAwait(false);
            StartedHere = installed.After is { Running: true };
            return installed.Installed ? new ArmingResult(ArmingOutcome.Created, []) : new ArmingResult(ArmingOutcome.Refused, installed.Problems);
        }

        try
        {
            await ExecuteAsync(StartStatement, cancellationToken).ConfigureAwait(false);
        }
        catch (SqlException failure) when (failure.Number == SqlErrorNumbers.EventSessionAlreadyStarted)
        {
            // Someone else started it between the status read and the START: it is theirs.
            return new ArmingResult(ArmingOutcome.AlreadyRunning, []);
        }

        StartedHere = true;
        return new ArmingResult(ArmingOutcome.Started, []);
    }

    /// <summary>The BACKUP and RESTORE requests running now, or why they could not be read (never thrown).</summary>
    public Task<RunningRequestSnapshot> RunningBackupsAsync(CancellationToken cancellationToken)
        => new RunningRequestReader(factory).ReadVisibleAsync(cancellationToken);

    /// <summary>Stops the session when this arming started it; false (nothing sent) otherwise.</summary>
    public async Task<bool> DisarmAsync(CancellationToken cancellationToken)
    {
        if (!StartedHere)
        {
            return false;
        }

        try
        {
            await ExecuteAsync(StopStatement, cancellationToken).ConfigureAwait(false);
        }
        catch (SqlException failure) when (failure.Number is SqlErrorNumbers.EventSessionAlreadyStopped or SqlErrorNumbers.EventObjectNotFound)
        {
            // Stopped or dropped by someone else meanwhile: what was asked for holds.
        }

        StartedHere = false;
        return true;
    }

    private string Quoted => SessionName.Quote(Settings.SessionName);

    private async Task ExecuteAsync(string statement, CancellationToken cancellationToken)
    {
        await using var connection = await factory.OpenAsync(cancellationToken).ConfigureAwait(false);
        await using var command = factory.Command(connection, statement);
        command.Parameters.Add(new SqlParameter("@session", SqlDbType.NVarChar, 128) { Value = Settings.SessionName });
        await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
    }
}
