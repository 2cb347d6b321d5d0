using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Requests;
using BackupXe.SqlServer.Requirements;
using BackupXe.SqlServer.Sessions;
using Microsoft.Data.SqlClient;

namespace BackupXe.SqlServer.Sessions;

/// <summary>What <see cref="SessionClient.InstallAsync(CancellationToken)"/> did.</summary>
/// <param name="Problems">Unmet requirements; when any, nothing was changed on the server.</param>
/// <param name="Before">The session before the script ran (whether one was replaced).</param>
/// <param name="After">The session after; null when nothing ran.</param>
/// <param name="ServerMessages">PRINT output of the script.</param>
public sealed record SessionInstallOutcome(
    IReadOnlyList<RequirementProblem> Problems,
    SessionStatus? Before,
    SessionStatus? After,
    IReadOnlyList<string> ServerMessages)
{
    public bool Installed => Problems.Count == 0 && After is { Exists: true, Running: true };
}

/// <summary>
/// The install script failed on the server: the server's error (kept as the inner exception, so failures are still
/// classified by its numbers), followed by what the failure left of the session.
/// </summary>
internal sealed class SessionInstallException(SqlException failure, string left)
    : InvalidOperationException($"{SqlFailureText.Describe(failure)}; {left}", failure)
{
    /// <summary>What is left of the session on the server, as one sentence.</summary>
    public string Left { get; } = left;
}

/// <summary>The login or server does not meet <see cref="ServerRequirements"/>: creating the session cannot work.</summary>
internal sealed class ServerRequirementException(IReadOnlyList<RequirementProblem> problems)
    : Exception(string.Join(" ", problems.Select(p => p.Message)))
{
    public IReadOnlyList<RequirementProblem> Problems { get; } = problems;
}

/// <summary>
/// Runs the embedded sessions/*.sql on a server: the same text <c>backupxe session script</c> prints. Checks the
/// version and permissions first, so a login that cannot create the session gets the GRANT to ask for instead
/// of a half-run script.
/// </summary>
public sealed class SessionClient(SqlConnectionFactory factory, CaptureSessionSettings settings) : ISessionInstaller
{
    public CaptureSessionSettings Settings { get; } = settings;

    /// <summary>Version, edition, engine edition, login and effective server permissions.</summary>
    public async Task<ServerFacts> ReadServerFactsAsync(CancellationToken cancellationToken)
    {
        await using var connection = await factory.OpenAsync(cancellationToken).ConfigureAwait(false);
        return await ReadServerFactsAsync(connection, cancellationToken).ConfigureAwait(false);
    }

    internal async Task<ServerFacts> ReadServerFactsAsync(SqlConnection connection, CancellationToken cancellationToken)
    {
        await using var command = factory.Command(connection, SessionScripts.ServerFacts);
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            throw new InvalidOperationException("The server-facts query returned no row.");
        }

        var major = SqlRows.Number(reader, "product_major_version");
        var edition = SqlRows.Text(reader, "edition");
        var engineEdition = SqlRows.Number(reader, "engine_edition");
        var login = SqlRows.Text(reader, "login_name");
        var permissions = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        if (await reader.NextResultAsync(cancellationToken).ConfigureAwait(false))
        {
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                if (SqlRows.Text(reader, "permission_name") is { } permission)
                {
                    permissions.Add(permission);
                }
            }
        }

        return new ServerFacts(
            major is { } m and >= 0 and <= int.MaxValue ? (int)m : 0,
            edition,
            permissions,
            engineEdition is { } e and >= 0 and <= int.MaxValue ? (int)e : null,
            login);
    }

    public async Task<SessionStatus> StatusAsync(CancellationToken cancellationToken)
    {
        await using var connection = await factory.OpenAsync(cancellationToken).ConfigureAwait(false);
        return await StatusAsync(connection, cancellationToken).ConfigureAwait(false);
    }

    internal async Task<SessionStatus> StatusAsync(SqlConnection connection, CancellationToken cancellationToken)
    {
        await using var command = factory.Command(connection, SessionScripts.RenderStatus(Settings.SessionName));
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            // The script always returns its one anchor row; no row means it was not our script that answered.
            throw new InvalidOperationException("The session status query returned no row.");
        }

        if (SqlRows.Flag(reader, "is_defined") != true)
        {
            return SessionStatus.Missing(Settings.SessionName);
        }

        var targets = SqlRows.Text(reader, "targets");
        return new SessionStatus(
            Settings.SessionName,
            Exists: true,
            Running: SqlRows.Flag(reader, "is_running") == true,
            StartsWithServer: SqlRows.Flag(reader, "starts_with_server"),
            Targets: string.IsNullOrEmpty(targets) ? [] : targets.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries),
            DroppedEventCount: SqlRows.Number(reader, "dropped_event_count"),
            DroppedBufferCount: SqlRows.Number(reader, "dropped_buffer_count"),
            ConfiguredFile: SqlRows.Text(reader, "configured_file"),
            CurrentFile: SqlRows.Text(reader, "current_file"),
            BufferMemoryBytes: SqlRows.Number(reader, "buffer_memory_bytes"));
    }

    /// <summary>The installed session's events and wait filter against this build's catalog (sessions/backupxe-session-drift.sql).</summary>
    public async Task<SessionDrift> DriftAsync(CancellationToken cancellationToken)
    {
        await using var connection = await factory.OpenAsync(cancellationToken).ConfigureAwait(false);
        return await DriftAsync(connection, cancellationToken).ConfigureAwait(false);
    }

    internal async Task<SessionDrift> DriftAsync(SqlConnection connection, CancellationToken cancellationToken)
    {
        await using var command = factory.Command(connection, SessionScripts.RenderDrift(Settings.SessionName));
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        var events = new List<InstalledEvent>();
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            if (SqlRows.Text(reader, "package") is { } package && SqlRows.Text(reader, "name") is { } name)
            {
                events.Add(new InstalledEvent(package, name, SqlRows.Text(reader, "predicate")));
            }
        }

        var waits = new Dictionary<long, string>();
        await NextResultAsync(reader, cancellationToken).ConfigureAwait(false);
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            if (SqlRows.Number(reader, "map_key") is { } key && SqlRows.Text(reader, "map_value") is { } value)
            {
                waits[key] = value;
            }
        }

        var offered = new HashSet<string>(StringComparer.Ordinal);
        await NextResultAsync(reader, cancellationToken).ConfigureAwait(false);
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            offered.Add($"{SqlRows.Text(reader, "package")}.{SqlRows.Text(reader, "name")}");
        }

        var fields = new HashSet<string>(StringComparer.Ordinal);
        await NextResultAsync(reader, cancellationToken).ConfigureAwait(false);
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            fields.Add($"{SqlRows.Text(reader, "object_name")}.{SqlRows.Text(reader, "name")}");
        }

        return SessionDrift.Compare(events, new XeCatalog(waits, offered, fields));
    }

    private static async Task NextResultAsync(SqlDataReader reader, CancellationToken cancellationToken)
    {
        if (!await reader.NextResultAsync(cancellationToken).ConfigureAwait(false))
        {
            // The script always returns four result sets; fewer means it was not our script that answered.
            throw new InvalidOperationException("The session drift query returned fewer result sets than it has.");
        }
    }

    /// <summary>
    /// Creates (or re-creates, re-resolving the map keys) and starts the session, when the server and login
    /// allow it. Idempotent: the script drops an existing session of the same name first.
    /// </summary>
    public async Task<SessionInstallOutcome> InstallAsync(CancellationToken cancellationToken)
    {
        var script = SessionScripts.RenderInstall(Settings);
        await using var connection = await factory.OpenAsync(cancellationToken).ConfigureAwait(false);
        var facts = await ReadServerFactsAsync(connection, cancellationToken).ConfigureAwait(false);
        var problems = ServerRequirements.Check(facts, eventFilePath: Settings.FilePath);
        var before = problems.All(p => p.Kind == RequirementKind.MissingPermission) && RunningRequestReader.SeesAllSessions(facts)
            ? await StatusAsync(connection, cancellationToken).ConfigureAwait(false)
            : null;
        if (before is { Exists: true })
        {
            // A re-install drops the session first: on SQL Server 2022+ that is a permission of its own.
            problems = ServerRequirements.Check(facts, replacesSession: true, eventFilePath: Settings.FilePath);
        }

        if (problems.Count > 0)
        {
            return new SessionInstallOutcome(problems, before, null, []);
        }

        IReadOnlyList<string> messages;
        try
        {
            messages = await ExecuteAsync(connection, script, cancellationToken).ConfigureAwait(false);
        }
        catch (SqlException failure)
        {
            // Not the caller's token: a cancelled install is cleaned up all the same, within the command timeout.
            var left = await CleanUpFailedInstallAsync(facts, before, CancellationToken.None).ConfigureAwait(false);
            throw new SessionInstallException(failure, left);
        }

        var after = await StatusAsync(connection, cancellationToken).ConfigureAwait(false);
        return new SessionInstallOutcome(problems, before, after, messages);
    }

    /// <summary>
    /// After the install script failed: what it left of the session, on a new connection (the failure may have
    /// closed this one). The script drops a session that cannot start; when its own clean-up could not run (the
    /// batch ended early) or could not drop it, a stopped session is dropped here if the login may.
    /// </summary>
    private async Task<string> CleanUpFailedInstallAsync(ServerFacts facts, SessionStatus? before, CancellationToken cancellationToken)
    {
        var name = SessionName.Quote(Settings.SessionName);
        var replaced = before is { Exists: true }
            ? $"; the session {name} that was there before had been dropped to be replaced and is not restored"
            : string.Empty;
        SessionStatus left;
        try
        {
            await using var connection = await factory.OpenAsync(cancellationToken).ConfigureAwait(false);
            left = await StatusAsync(connection, cancellationToken).ConfigureAwait(false);
            if (left is { Exists: true, Running: false } && ServerRequirements.CheckUninstall(facts, running: false).Count == 0)
            {
                await ExecuteAsync(connection, SessionScripts.RenderDrop(Settings.SessionName), cancellationToken).ConfigureAwait(false);
                left = await StatusAsync(connection, cancellationToken).ConfigureAwait(false);
            }
        }
        catch (Exception failure) when (failure is SqlException or InvalidOperationException or IOException)
        {
            return $"whether a stopped session {name} was left on the server could not be checked ({SqlFailureText.Describe(failure)}); `backupxe session status` says{replaced}.";
        }

        if (!left.Exists)
        {
            return $"no session {name} was left on the server{replaced}.";
        }

        if (left.Running)
        {
            return $"the session {name} is on the server and running.";
        }

        var grant = ServerRequirements.CheckUninstall(facts, running: false) is { Count: > 0 } missing
            ? $" ({string.Join(" ", missing.Select(p => p.Message))})"
            : string.Empty;
        return $"a stopped session {name} is left on the server and this login cannot drop it{grant}; "
            + $"a DBA removes it with DROP EVENT SESSION {name} ON SERVER{replaced}.";
    }

    /// <summary>Stops and drops the session; the outcome's Before says whether there was one.</summary>
    public async Task<SessionInstallOutcome> UninstallAsync(CancellationToken cancellationToken)
    {
        var script = SessionScripts.RenderDrop(Settings.SessionName);
        await using var connection = await factory.OpenAsync(cancellationToken).ConfigureAwait(false);
        var before = await StatusAsync(connection, cancellationToken).ConfigureAwait(false);
        if (!before.Exists)
        {
            return new SessionInstallOutcome([], before, before, []);
        }

        var facts = await ReadServerFactsAsync(connection, cancellationToken).ConfigureAwait(false);
        if (ServerRequirements.CheckUninstall(facts, before.Running) is { Count: > 0 } problems)
        {
            return new SessionInstallOutcome(problems, before, before, []);
        }

        var messages = await ExecuteAsync(connection, script, cancellationToken).ConfigureAwait(false);
        var after = await StatusAsync(connection, cancellationToken).ConfigureAwait(false);
        return new SessionInstallOutcome([], before, after, messages);
    }

    /// <summary>For the live source: re-creates the session, or throws what stands in the way.</summary>
    async Task ISessionInstaller.InstallAsync(CancellationToken cancellationToken)
    {
        var outcome = await InstallAsync(cancellationToken).ConfigureAwait(false);
        if (outcome.Problems.Count > 0)
        {
            throw new ServerRequirementException(outcome.Problems);
        }
    }

    private async Task<IReadOnlyList<string>> ExecuteAsync(SqlConnection connection, string script, CancellationToken cancellationToken)
    {
        var messages = new List<string>();
        void Collect(object sender, SqlInfoMessageEventArgs e)
        {
            foreach (SqlError error in e.Errors)
            {
                messages.Add(error.Message);
            }
        }

        connection.InfoMessage += Collect;
        try
        {
            await using var command = factory.Command(connection, script);
            await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            connection.InfoMessage -= Collect;
        }

        return messages;
    }
}
