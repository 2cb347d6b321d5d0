using System.Globalization;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Rendering;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Requirements;
using BackupXe.SqlServer.Sessions;
using Microsoft.Data.SqlClient;

namespace BackupXe.SqlServer.Preflight;

/// <summary>
/// <c>backupxe check</c>: what a DBA should know before relying on BackupXe on a server, one line each, read only.
/// A check the login may not run becomes a warning naming the error; a lost connection ends the run.
/// </summary>
public sealed class ServerPreflight(SqlConnectionFactory factory, CaptureSessionSettings session)
{
    /// <summary>Below this, large BUFFERCOUNT x MAXTRANSFERSIZE plans (256 MB and more) are at risk.</summary>
    public const long LowMemoryKb = 512 * 1024;

    /// <summary>Past this many rows msdb's history slows down every backup's bookkeeping and SSMS's restore dialog.</summary>
    public const long LargeHistoryRows = 1_000_000;

    public async Task<IReadOnlyList<PreflightCheck>> RunAsync(CancellationToken cancellationToken)
    {
        var client = new SessionClient(factory, session);
        await using var connection = await factory.OpenAsync(cancellationToken).ConfigureAwait(false);
        var facts = await client.ReadServerFactsAsync(connection, cancellationToken).ConfigureAwait(false);
        var problems = ServerRequirements.Check(facts, eventFilePath: session.FilePath);
        var checks = new List<PreflightCheck> { Version(facts, problems), Platform(facts), KnownDefectsOf(LoginBuild(connection.ServerVersion)) };
        var canCapture = problems.All(p => p.Kind == RequirementKind.MissingPermission);
        if (canCapture)
        {
            checks.AddRange(Permissions(problems));
            checks.Add(await Guarded(connection, "capture session", () => SessionState(client, connection, cancellationToken)).ConfigureAwait(false));
            if (await GuardedOptional(connection, "session filter", () => SessionFilter(client, connection, cancellationToken)).ConfigureAwait(false) is { } filter)
            {
                checks.Add(filter);
            }
            checks.Add(await Guarded(connection, "events", () => Events(connection, cancellationToken)).ConfigureAwait(false));
        }
        else if (problems.Any(p => p.Kind == RequirementKind.VersionTooOld))
        {
            checks.Add(await Guarded(connection, "trace flags", () => TraceFlags(connection, cancellationToken)).ConfigureAwait(false));
        }

        checks.Add(await Guarded(connection, "backup compression", () => Compression(connection, cancellationToken)).ConfigureAwait(false));
        checks.Add(await Guarded(connection, "instant file init", () => InstantFileInitialization(connection, cancellationToken)).ConfigureAwait(false));
        checks.Add(await Guarded(connection, "memory", () => Memory(connection, cancellationToken)).ConfigureAwait(false));
        checks.Add(await Guarded(connection, "msdb history", () => History(connection, cancellationToken)).ConfigureAwait(false));
        if (facts.ProductMajorVersion >= 11)
        {
            checks.Add(await Guarded(connection, "backups to URL", () => UrlBackups(connection, cancellationToken)).ConfigureAwait(false));
        }

        return checks;
    }

    /// <summary>The server's build as the login response gives it ("15.00.4223" read as 15.0.4223); null when it is not one.</summary>
    internal static Core.Events.ServerVersion? LoginBuild(string? version) =>
        version is null ? null : Core.Events.ServerVersion.FromBuild(version, "the login response");

    /// <summary>
    /// The defects of docs/known-issues.md whose affected builds include this server's: a warning when one has a fixing
    /// update, a pass that names the rest (those BackupXe cannot yet see in an input, fixed only by a later release).
    /// </summary>
    internal static PreflightCheck KnownDefectsOf(Core.Events.ServerVersion? server)
    {
        const string name = "known defects";
        if (server?.Build is null)
        {
            return new PreflightCheck(name, PreflightOutcome.Pass, "cannot tell: the login response gave no build number");
        }

        var defects = Core.Diagnosis.KnownDefects.For(server);
        if (defects.Count == 0)
        {
            return new PreflightCheck(name, PreflightOutcome.Pass, $"none of docs/known-issues.md applies to build {server.Build}");
        }

        var listed = string.Join("; ", defects.Select(d => $"{d.Id}: {d.Remedy} ({d.Page.Split(',')[0]})"));
        var found = string.Create(CultureInfo.InvariantCulture, $"{defects.Count} documented backup/restore defect{(defects.Count == 1 ? "" : "s")} apply to build {server.Build}: {listed}");
        return defects.Any(d => d.FixedBuild is not null)
            ? new PreflightCheck(name, PreflightOutcome.Warn, found, "install the cumulative update named (docs/known-issues.md says what each one breaks and how BackupXe shows it)")
            : new PreflightCheck(name, PreflightOutcome.Pass, found);
    }

    private static PreflightCheck Version(ServerFacts facts, IReadOnlyList<RequirementProblem> problems)
    {
        var blocking = problems.FirstOrDefault(p => p.Kind != RequirementKind.MissingPermission);
        var product = facts.EngineEdition is ServerRequirements.AzureSqlDatabaseEngineEdition or ServerRequirements.ManagedInstanceEngineEdition
            ? ProductNames.For(facts.ProductMajorVersion, facts.EngineEdition)
            : $"{ProductNames.For(facts.ProductMajorVersion)} (major version {facts.ProductMajorVersion})";
        var found = facts.Edition is null ? product : $"{product}, {facts.Edition}";
        return blocking is null
            ? new PreflightCheck("version", PreflightOutcome.Pass, found)
            : new PreflightCheck("version", PreflightOutcome.Fail, found, blocking.Message);
    }

    /// <summary>
    /// Which platform SERVERPROPERTY('EngineEdition') names, never the version number (Managed Instance reports Azure's),
    /// and what BackupXe does there (docs/server-conformance.md, "Platforms").
    /// </summary>
    internal static PreflightCheck Platform(ServerFacts facts) => facts.EngineEdition switch
    {
        ServerRequirements.AzureSqlDatabaseEngineEdition => new PreflightCheck(
            "platform", PreflightOutcome.Fail, "Azure SQL Database (engine edition 5): no server-scoped event sessions, so nothing to capture",
            "use SQL Server 2016+ or Azure SQL Managed Instance"),
        ServerRequirements.ManagedInstanceEngineEdition => new PreflightCheck(
            "platform", PreflightOutcome.Warn,
            "Azure SQL Managed Instance (engine edition 8): the event file must be an https:// blob URL with a credential for its container "
                + "on the instance; the SQL Server 2022 permissions apply. a database its events name by its physical name (a GUID) is "
                + "shown by its logical name. Or read a session with a ring_buffer target: watch --transport ring_buffer (daemon: Transport ring_buffer)",
            "--file-path https://<account>.blob.core.windows.net/<container>/BackupXe.xel"),
        var edition => new PreflightCheck(
            "platform", PreflightOutcome.Pass,
            string.Create(CultureInfo.InvariantCulture, $"SQL Server (engine edition {edition}): the event file goes to the instance's LOG directory or --file-path; everything BackupXe does applies")),
    };

    private static IEnumerable<PreflightCheck> Permissions(IReadOnlyList<RequirementProblem> problems)
    {
        var missing = problems.Where(p => p.Kind == RequirementKind.MissingPermission).ToList();
        if (missing.Count == 0)
        {
            return [new PreflightCheck("permissions", PreflightOutcome.Pass, "the login can create the session and read its DMVs")];
        }

        return missing.Select(p => new PreflightCheck("permissions", PreflightOutcome.Fail, FirstSentence(p.Message), AfterRun(p.Message)));
    }

    private static async Task<PreflightCheck> SessionState(SessionClient client, SqlConnection connection, CancellationToken cancellationToken)
    {
        var status = await client.StatusAsync(connection, cancellationToken).ConfigureAwait(false);
        var name = status.SessionName;
        if (!status.Exists)
        {
            return new PreflightCheck("capture session", PreflightOutcome.Warn, $"session {name} is not installed",
                $"backupxe session install --server <server>{(name == SessionName.Default ? string.Empty : $" --session-name {SessionName.Argument(name)}")}");
        }

        if (!status.Running)
        {
            return new PreflightCheck("capture session", PreflightOutcome.Warn, $"session {name} exists but is stopped",
                $"ALTER EVENT SESSION {SessionName.Quote(name)} ON SERVER STATE = START;");
        }

        var dropped = string.Create(CultureInfo.InvariantCulture, $"{status.DroppedEventCount ?? 0} events and {status.DroppedBufferCount ?? 0} buffers dropped");
        return status.LostEvents
            ? new PreflightCheck("capture session", PreflightOutcome.Warn, $"session {name} is running; {dropped}",
                "re-run `backupxe session install` (it re-creates the session) and keep fewer sessions running at once; reports from this capture may miss waits")
            : new PreflightCheck("capture session", PreflightOutcome.Pass, $"session {name} is running; {dropped}");
    }

    /// <summary>
    /// The installed session's events and wait keys against this build's catalog; nothing when no session is installed
    /// (the capture session line already says so). A stale key is a warning: the capture runs but misses waits.
    /// </summary>
    private async Task<PreflightCheck?> SessionFilter(SessionClient client, SqlConnection connection, CancellationToken cancellationToken)
    {
        var status = await client.StatusAsync(connection, cancellationToken).ConfigureAwait(false);
        if (!status.Exists)
        {
            return null;
        }

        var drift = await client.DriftAsync(connection, cancellationToken).ConfigureAwait(false);
        return drift.Drifted
            ? new PreflightCheck("session filter", PreflightOutcome.Warn,
                $"session {status.SessionName} was installed for another build: {string.Join("; ", drift.Drifts)}",
                SessionRepair.Reinstall(factory.Settings.Server, status))
            : new PreflightCheck("session filter", PreflightOutcome.Pass, $"session {status.SessionName}: {drift.Checked}");
    }

    private async Task<PreflightCheck> Events(SqlConnection connection, CancellationToken cancellationToken)
    {
        var names = new HashSet<string>(StringComparer.Ordinal);
        await using (var command = factory.Command(connection, PreflightQueries.Events))
        await using (var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false))
        {
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                if (SqlRows.Text(reader, "name") is { } name)
                {
                    names.Add(name);
                }
            }
        }

        if (!names.Contains("backup_restore_progress_trace"))
        {
            return new PreflightCheck("events", PreflightOutcome.Fail, "sqlserver.backup_restore_progress_trace is not on this build",
                "use the errorlog route: DBCC TRACEON(3004, 3014, 3213, 3605, -1); then backupxe analyze ERRORLOG");
        }

        var throughput = names.FirstOrDefault(n => n.EndsWith("_backup_restore_throughput", StringComparison.Ordinal));
        return new PreflightCheck("events", PreflightOutcome.Pass, throughput is null
            ? "backup_restore_progress_trace present; no throughput event on this build (throughput comes from the trace messages)"
            : $"backup_restore_progress_trace and {throughput} present");
    }

    private async Task<PreflightCheck> TraceFlags(SqlConnection connection, CancellationToken cancellationToken)
    {
        int[] wanted = [3004, 3014, 3213, 3605];
        var on = new HashSet<int>();
        await using (var command = factory.Command(connection, PreflightQueries.TraceFlags))
        await using (var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false))
        {
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                if (SqlRows.Number(reader, "TraceFlag") is { } flag && SqlRows.Number(reader, "Global") == 1 && flag is >= 0 and <= int.MaxValue)
                {
                    on.Add((int)flag);
                }
            }
        }

        var off = wanted.Where(f => !on.Contains(f)).ToList();
        return off.Count == 0
            ? new PreflightCheck("trace flags", PreflightOutcome.Pass, "3004, 3014, 3213 and 3605 are on globally: the ERRORLOG records backups and restores")
            : new PreflightCheck("trace flags", PreflightOutcome.Warn,
                $"not on globally: {string.Join(", ", off)}; the ERRORLOG will not have what `backupxe analyze` reads",
                $"DBCC TRACEON({string.Join(", ", off)}, -1); before the backup or restore, then DBCC TRACEOFF({string.Join(", ", off)}, -1); afterwards");
    }

    private async Task<PreflightCheck> Compression(SqlConnection connection, CancellationToken cancellationToken)
    {
        var value = await ScalarAsync(connection, PreflightQueries.CompressionDefault, "value_in_use", cancellationToken).ConfigureAwait(false);
        return value switch
        {
            1 => new PreflightCheck("backup compression", PreflightOutcome.Pass, "compression is the default (backup compression default = 1)"),
            0 => new PreflightCheck("backup compression", PreflightOutcome.Pass, "no compression by default (backup compression default = 0); BACKUP compresses only WITH COMPRESSION"),
            _ => new PreflightCheck("backup compression", PreflightOutcome.Warn, "the setting 'backup compression default' was not found"),
        };
    }

    private async Task<PreflightCheck> InstantFileInitialization(SqlConnection connection, CancellationToken cancellationToken)
    {
        await using var command = factory.Command(connection, PreflightQueries.InstantFileInitialization);
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            return new PreflightCheck("instant file init", PreflightOutcome.Warn,
                "this build does not report it (sys.dm_server_services.instant_file_initialization_enabled needs 2016 SP1 or later)",
                "check that the engine's service account holds 'Perform volume maintenance tasks' (SeManageVolumePrivilege)");
        }

        var account = SqlRows.Text(reader, "service_account") ?? "the engine's service account";
        return string.Equals(SqlRows.Text(reader, "instant_file_initialization_enabled"), "Y", StringComparison.OrdinalIgnoreCase)
            ? new PreflightCheck("instant file init", PreflightOutcome.Pass, $"enabled for {account}")
            : new PreflightCheck("instant file init", PreflightOutcome.Warn,
                $"disabled for {account}: restores zero every data file before copying (the file-zeroing bottleneck)",
                $"grant 'Perform volume maintenance tasks' (SeManageVolumePrivilege) to {account} and restart the service");
    }

    private async Task<PreflightCheck> Memory(SqlConnection connection, CancellationToken cancellationToken)
    {
        await using var command = factory.Command(connection, PreflightQueries.Memory);
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false) || SqlRows.Number(reader, "available_physical_memory_kb") is not { } available)
        {
            return new PreflightCheck("memory", PreflightOutcome.Warn, "sys.dm_os_sys_memory returned nothing");
        }

        var total = SqlRows.Number(reader, "total_physical_memory_kb");
        var found = string.Create(CultureInfo.InvariantCulture, $"{available / 1024} MB of {(total is { } t ? (t / 1024).ToString(CultureInfo.InvariantCulture) : "?")} MB physical memory free");
        return available < LowMemoryKb
            ? new PreflightCheck("memory", PreflightOutcome.Warn, $"{found}: backup buffers (BUFFERCOUNT x MAXTRANSFERSIZE) are allocated outside the buffer pool and may not fit",
                "keep recommended buffer plans within free memory (--memory-budget-mb) or lower max server memory")
            : new PreflightCheck("memory", PreflightOutcome.Pass, found);
    }

    private async Task<PreflightCheck> History(SqlConnection connection, CancellationToken cancellationToken)
    {
        await using var command = factory.Command(connection, PreflightQueries.BackupHistory);
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        await reader.ReadAsync(cancellationToken).ConfigureAwait(false);
        var rows = SqlRows.Number(reader, "backup_sets") ?? 0;
        var oldestOrdinal = reader.GetOrdinal("oldest");
        var oldest = reader.IsDBNull(oldestOrdinal) ? (DateTime?)null : reader.GetDateTime(oldestOrdinal);
        var found = string.Create(CultureInfo.InvariantCulture, $"{rows:N0} backup sets in msdb{(oldest is { } o ? $" since {o:yyyy-MM-dd}" : string.Empty)}");
        return rows > LargeHistoryRows
            ? new PreflightCheck("msdb history", PreflightOutcome.Warn, found,
                string.Create(CultureInfo.InvariantCulture, $"EXEC msdb.dbo.sp_delete_backuphistory @oldest_date = N'{DateTime.UtcNow.AddYears(-1):yyyy-MM-dd}'; (keep a year), then schedule it"))
            : new PreflightCheck("msdb history", PreflightOutcome.Pass, found);
    }

    /// <summary>
    /// Each database's latest backup to URL held against what its URLs take (docs/diagnosis.md, "URL targets"): a
    /// warning when the next one of about the same size comes within the margin, before it fails part-way.
    /// </summary>
    private async Task<PreflightCheck> UrlBackups(SqlConnection connection, CancellationToken cancellationToken)
    {
        const string name = "backups to URL";
        var headrooms = new List<UrlHeadroom>();
        await using (var command = factory.Command(connection, PreflightQueries.UrlBackups))
        await using (var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false))
        {
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                var written = SqlRows.Number(reader, "written_bytes");
                var urls = SqlRows.Number(reader, "url_families");
                var device = reader.IsDBNull(reader.GetOrdinal("device")) ? null : reader.GetString(reader.GetOrdinal("device"));
                if (written is { } bytes && urls is { } count and > 0 and <= int.MaxValue && device is not null
                    && UrlHeadroom.Of(reader.GetString(reader.GetOrdinal("database_name")), reader.GetString(reader.GetOrdinal("type")),
                        reader.GetDateTime(reader.GetOrdinal("backup_finish_date")), bytes, (int)count, device) is { } headroom)
                {
                    headrooms.Add(headroom);
                }
            }
        }

        if (headrooms.Count == 0)
        {
            return new PreflightCheck(name, PreflightOutcome.Pass, "no backup to URL in msdb's last 35 days");
        }

        var near = headrooms.Where(h => h.Near).ToList();
        if (near.Count == 0)
        {
            return new PreflightCheck(name, PreflightOutcome.Pass, string.Create(CultureInfo.InvariantCulture,
                $"{headrooms.Count} latest backup{(headrooms.Count == 1 ? "" : "s")} to URL, each under {(int)(UrlCapacity.Margin * 100)}% of what its URLs take; the fullest: {headrooms.MaxBy(h => h.WrittenBytes)!.Sentence}"));
        }

        return new PreflightCheck(name, PreflightOutcome.Warn,
            string.Join("; ", near.Select(h => TerminalText.Line(h.Sentence))),
            "stripe the backup over more URLs or raise MAXTRANSFERSIZE before the next one grows past what the URLs take (docs/diagnosis.md, \"URL targets\")");
    }

    private async Task<long?> ScalarAsync(SqlConnection connection, string query, string column, CancellationToken cancellationToken)
    {
        await using var command = factory.Command(connection, query);
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        return await reader.ReadAsync(cancellationToken).ConfigureAwait(false) ? SqlRows.Number(reader, column) : null;
    }

    /// <summary>
    /// Runs one check; a server error other than a lost connection becomes this check's warning. Measured: a
    /// socket closed mid-result raises Number 0 Class 20 and the connection still claims Open, so the class decides.
    /// </summary>
    private static async Task<PreflightCheck> Guarded(SqlConnection connection, string name, Func<Task<PreflightCheck>> check)
        => (await GuardedOptional(connection, name, async () => (PreflightCheck?)await check().ConfigureAwait(false)).ConfigureAwait(false))!;

    /// <summary>As above, for a check that may not apply (null).</summary>
    private static async Task<PreflightCheck?> GuardedOptional(SqlConnection connection, string name, Func<Task<PreflightCheck?>> check)
    {
        try
        {
            return await check().ConfigureAwait(false);
        }
        catch (SqlException failure) when (connection.State == System.Data.ConnectionState.Open && failure.Errors.Cast<SqlError>().All(e => e.Class < 20))
        {
            var permission = failure.Errors.Cast<SqlError>().Any(e => SqlErrorNumbers.IsPermissionDenied(e.Number));
            return new PreflightCheck(name, PreflightOutcome.Warn, $"could not check: {SqlFailureText.Describe(failure)}",
                permission ? "GRANT VIEW SERVER STATE (2022+: VIEW SERVER PERFORMANCE STATE) to the login; docs/permissions.md" : null);
        }
    }

    /// <summary>The GRANT of a missing-permission message ("... Ask an administrator to run: GRANT ...;").</summary>
    private static string AfterRun(string text)
    {
        const string marker = "to run: ";
        var at = text.IndexOf(marker, StringComparison.Ordinal);
        return at < 0 ? text : text[(at + marker.Length)..];
    }

    private static string FirstSentence(string text)
    {
        var end = text.IndexOf(". ", StringComparison.Ordinal);
        return end < 0 ? text : text[..end];
    }
}
