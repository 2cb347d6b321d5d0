using System.Data;
using System.Globalization;
using BackupXe.Core.Drill;
using BackupXe.Core.History;
using BackupXe.Core.Parsing;
using BackupXe.Core.Restores;
using BackupXe.Core.Tuning;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Msdb;
using BackupXe.SqlServer.Sessions;
using BackupXe.SqlServer.Tuning;
using Microsoft.Data.SqlClient;

namespace BackupXe.SqlServer.Drill;

/// <summary>
/// <c>backupxe restore-drill</c> against live servers (docs/commands/restore-drill.md). The plan reads, read-only: the
/// source's msdb chain (<see cref="MsdbBackupChain"/>, planned by <see cref="RestorePlanner"/>) and its media, the
/// target's identity, default folders, CREATE DATABASE permission, free space and whether the scratch name is taken,
/// and the full backup's file list on the target. The execution runs the plan's statements in order on one connection,
/// each timed on the injected clock, and drops the scratch database at the end, on a failure or on a cancel.
/// </summary>
public sealed class RestoreDrillServer(SqlConnectionFactory target, SqlConnectionFactory source, TimeProvider time)
{
    /// <summary>
    /// The capture session on the target that measures each RESTORE inside the server, with the reader of its events
    /// (the tuner's <see cref="TrialOperationCapture"/>, the same live source <c>watch</c> reads); null: not measured.
    /// </summary>
    public (CaptureSessionSettings Session, TrialOperationCapture Reader)? Capture { get; init; }

    /// <summary>
    /// Who the server is (SERVERPROPERTY MachineName and InstanceName; @@SERVERNAME as shown), its default data and log
    /// folders (InstanceDefaultDataPath and InstanceDefaultLogPath, SQL Server 2012 and later) and major version.
    /// </summary>
    public const string IdentityQuery = """
        SELECT CAST(@@SERVERNAME AS nvarchar(128)) AS server_name,
               CAST(SERVERPROPERTY('MachineName') AS nvarchar(128)) AS machine_name,
               CAST(SERVERPROPERTY('InstanceName') AS nvarchar(128)) AS instance_name,
               CAST(SERVERPROPERTY('InstanceDefaultDataPath') AS nvarchar(260)) AS default_data_path,
               CAST(SERVERPROPERTY('InstanceDefaultLogPath') AS nvarchar(260)) AS default_log_path,
               CAST(SERVERPROPERTY('ProductMajorVersion') AS int) AS product_major_version;
        """;

    /// <summary>
    /// The media of the database's backup sets since <c>@since</c>: type and LSNs (to find the sets the plan chose), the
    /// set's position on its media set (RESTORE's FILE = n) and each family's device, mirrors left out, in family order.
    /// </summary>
    public const string MediaQuery = """
        SELECT CAST(bs.type AS nvarchar(1)) AS backup_type,
               CONVERT(nvarchar(25), bs.first_lsn) AS first_lsn,
               CONVERT(nvarchar(25), bs.last_lsn) AS last_lsn,
               bs.position AS backup_position,
               mf.physical_device_name,
               CAST(mf.device_type AS int) AS device_type
        FROM msdb.dbo.backupset AS bs
        JOIN msdb.dbo.backupmediafamily AS mf ON mf.media_set_id = bs.media_set_id
        WHERE bs.database_name = @database AND bs.backup_start_date >= @since AND ISNULL(mf.mirror, 0) = 0
        ORDER BY bs.backup_set_id, mf.family_sequence_number;
        """;

    /// <summary>Whether a database of that name exists (DB_ID is NULL otherwise).</summary>
    public const string DatabaseExistsQuery = LiveTrialHost.DatabaseExistsQuery;

    /// <summary>Plans the drill; reads only. <paramref name="history"/>: operations whose rates feed the estimate (empty for none).</summary>
    public async Task<RestoreDrillPlan> PlanAsync(
        DrillRequest request, DateTime since, IReadOnlyList<HistoryOperation> history, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);
        var sameConnection = ReferenceEquals(target, source);
        var (targetIdentity, dataPath, logPath, major) = await IdentityAsync(target, cancellationToken).ConfigureAwait(false);
        var sourceIdentity = sameConnection ? targetIdentity : (await IdentityAsync(source, cancellationToken).ConfigureAwait(false)).Identity;

        RestorePlan? chain;
        IReadOnlyList<BackupSetRow> sets;
        IReadOnlyList<DrillMedia> media;
        await using (var connection = await source.OpenAsync(cancellationToken).ConfigureAwait(false))
        {
            var msdb = new MsdbBackupChain(source);
            sets = await msdb.ReadAsync(connection, since, [request.Database], cancellationToken).ConfigureAwait(false);
            var (restores, _) = await msdb.ReadRestoresAsync(connection, since, [request.Database], cancellationToken).ConfigureAwait(false);
            chain = RestorePlanner.Plan(sets, restores).FirstOrDefault(p => string.Equals(p.Database, request.Database, StringComparison.OrdinalIgnoreCase));
            media = await MediaAsync(connection, request.Database, since, cancellationToken).ConfigureAwait(false);
        }

        var scratch = request.Scratch ?? RestoreDrillStatements.ScratchName(request.Database, time.GetUtcNow().UtcDateTime);
        var volumes = await VolumesAsync(cancellationToken).ConfigureAwait(false);
        var facts = new DrillTargetFacts(
            targetIdentity, dataPath, logPath,
            await CanCreateDatabaseAsync(cancellationToken).ConfigureAwait(false),
            await ExistsAsync(scratch, cancellationToken).ConfigureAwait(false),
            await ExistsAsync(request.Database, cancellationToken).ConfigureAwait(false))
        {
            FreeSpaceOf = folder => volumes.Unknown is { } why ? FreeSpace.CannotTell(why) : LiveTrialHost.VolumeOf(folder, volumes.Rows),
        };

        var full = chain?.Full is { } set ? media.FirstOrDefault(m => m.Type == 'D' && m.FirstLsn == set.FirstLsn && m.LastLsn == set.LastLsn) : null;
        var fileList = full is null || full.Devices.Count == 0
            ? ((IReadOnlyList<BackupFileEntry>?)null, (string?)null)
            : await FileListAsync(new DrillBackup(chain!.Full!, full.Devices, full.Position), cancellationToken).ConfigureAwait(false);
        RestoreEstimateReport? estimate = null;
        if (chain is not null)
        {
            var files = fileList.Item1 ?? [];
            var restoreTarget = new RestoreTarget(
                fileList.Item1 is null ? null : files.Where(f => f.Type != "L").Sum(f => f.SizeBytes),
                fileList.Item1 is null ? null : files.Where(f => f.Type == "L").Sum(f => f.SizeBytes),
                await InstantFileInitializationAsync(cancellationToken).ConfigureAwait(false),
                major);
            var known = history.Where(o => o.Kind == Core.Events.OperationKind.Backup).Select(o => (o.Database?.ToUpperInvariant(), o.Scope, o.Start)).ToHashSet();
            var measured = history.Concat(sets.Select(ServerRestoreEstimate.AsOperation).Where(o => !known.Contains((o.Database?.ToUpperInvariant(), o.Scope, o.Start)))).ToList();
            estimate = RestoreEstimator.Report(chain, restoreTarget, measured, ["the files' sizes are the full backup's (RESTORE FILELISTONLY on the target), the Instant File Initialization state the target's"]);
        }

        var plan = RestoreDrillPlanner.Build(
            request with { Scratch = scratch }, target.Settings.Server, source.Settings.Server, sourceIdentity, chain, media, fileList, facts, estimate, time.GetUtcNow().UtcDateTime);
        var captureProblem = await CaptureProblemAsync(cancellationToken).ConfigureAwait(false);
        return plan with
        {
            Captured = captureProblem is null,
            Notes = [.. plan.Notes, captureProblem is null
                ? $"each RESTORE is measured inside the server by the capture session [{Capture!.Value.Session.SessionName}] on {target.Settings.Server}: its phases, rates and diagnosis"
                : "the phases inside each RESTORE (zeroing, copy, redo, recovery) are not measured: " + captureProblem],
        };
    }

    /// <summary>Null when the capture session runs on the target; else why the restores go unmeasured inside.</summary>
    private async Task<string?> CaptureProblemAsync(CancellationToken cancellationToken)
    {
        if (Capture is not { } capture)
        {
            return "no capture session was given";
        }

        var (_, problem) = await CaptureSessionReadiness.CheckAsync(new SessionClient(target, capture.Session), ensureSession: false, new TransientRetry(attempts: 1), cancellationToken).ConfigureAwait(false);
        return problem;
    }

    /// <summary>
    /// Runs <paramref name="plan"/> (which must have no refusal): the planning reads, the restores, the recovery, CHECKDB
    /// when asked, then the drop unless kept. A failed step or a cancel stops it there, and the scratch database, if it
    /// exists by then, is dropped; what could not be dropped is named in <see cref="RestoreDrillResult.LeftBehind"/>.
    /// </summary>
    public async Task<RestoreDrillResult> ExecuteAsync(RestoreDrillPlan plan, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(plan);
        if (plan.Refusals.Count > 0)
        {
            throw new InvalidOperationException("A drill with a refusal does not run: " + plan.Refusals[0]);
        }

        var started = time.GetUtcNow().UtcDateTime;
        var phases = new List<DrillPhase>();
        string? failure = null;
        var status = DrillStatus.Completed;
        await using var connection = await target.OpenAsync(cancellationToken).ConfigureAwait(false);
        var created = false;
        try
        {
            // The name was free when planned; checked again just before, so a drill never restores over anything.
            if (await ExistsAsync(plan.Scratch, cancellationToken).ConfigureAwait(false))
            {
                return new RestoreDrillResult(plan, started, phases, DrillStatus.Failed, $"a database [{plan.Scratch}] appeared on {plan.TargetServer} since the plan: nothing was restored", null);
            }

            var captured = plan.Captured && Capture is not null;
            if (captured)
            {
                // Read from the session's files' start in the background, as the tuner's trials are; earlier operations are dropped.
                Capture!.Value.Reader.Start();
            }

            foreach (var step in plan.Preflight.Concat(plan.Steps))
            {
                cancellationToken.ThrowIfCancellationRequested();
                created |= step.Phase == DrillPhases.RestoreFull;
                // The RESTORE's own session and the server's clock before it: what the capture's operation is found by.
                var (sessionId, since) = captured && RestoreDrillResult.IsRestore(step.Phase)
                    ? await SessionAsync(connection, cancellationToken).ConfigureAwait(false)
                    : (0, default);
                var (phase, error) = await RunAsync(connection, step, plan, cancellationToken).ConfigureAwait(false);
                if (error is null && sessionId > 0)
                {
                    try
                    {
                        var (after, ended) = await SessionAsync(connection, cancellationToken).ConfigureAwait(false);
                        var (operation, problem) = await Capture!.Value.Reader.TakeAsync(
                            sessionId, plan.Scratch, since, finished: true, Core.Events.OperationKind.Restore, cancellationToken, after > 0 ? ended : null).ConfigureAwait(false);
                        phase = operation is null ? phase with { CaptureProblem = problem } : phase with { Capture = CapturedRestore.Of(operation) };
                    }
                    catch (OperationCanceledException)
                    {
                        // The RESTORE itself completed: it is kept as measured before the drill stops.
                        phases.Add(phase);
                        throw;
                    }
                }

                phases.Add(phase);
                if (error is not null)
                {
                    (status, failure) = (phase.Outcome, error);
                    break;
                }
            }
        }
        catch (OperationCanceledException)
        {
            (status, failure) = (DrillStatus.Cancelled, "cancelled before the next step");
        }

        if (!created)
        {
            return new RestoreDrillResult(plan, started, phases, status, failure, null);
        }

        if (plan.Keep && status == DrillStatus.Completed)
        {
            return new RestoreDrillResult(plan, started, phases, status, failure,
                $"[{plan.Scratch}] on {plan.TargetServer}, kept by --keep with its files ({string.Join(", ", plan.Moves.Select(m => m.Path))}); remove it with {plan.DropSql}");
        }

        var (drop, left) = await DropAsync(plan).ConfigureAwait(false);
        if (drop is not null)
        {
            phases.Add(drop);
        }

        return new RestoreDrillResult(plan, started, phases, status, failure, left);
    }

    /// <summary>One statement, timed; a server error or a cancel ends it with the phase marked so and the reason.</summary>
    private async Task<(DrillPhase Phase, string? Error)> RunAsync(SqlConnection connection, DrillStep step, RestoreDrillPlan plan, CancellationToken cancellationToken)
    {
        var start = time.GetTimestamp();
        await using var command = target.Command(connection, step.Sql);
        // A restore of a large chain takes hours: no command timeout, Ctrl-C stops it through SqlCommand.Cancel (ATTENTION).
        command.CommandTimeout = 0;
        using var cancel = cancellationToken.Register(() => _ = Task.Run(command.Cancel, CancellationToken.None));
        try
        {
            if (step.Sql.StartsWith("RESTORE HEADERONLY", StringComparison.Ordinal))
            {
                await HeaderAsync(command, step, plan).ConfigureAwait(false);
            }
            else
            {
                await command.ExecuteNonQueryAsync(CancellationToken.None).ConfigureAwait(false);
            }

            cancellationToken.ThrowIfCancellationRequested();
            return (new DrillPhase(step.Phase, step.Sql, Seconds(start), DrillStatus.Completed), null);
        }
        catch (Exception exception) when (exception is OperationCanceledException || (exception is SqlException && cancellationToken.IsCancellationRequested))
        {
            return (new DrillPhase(step.Phase, step.Sql, Seconds(start), DrillStatus.Cancelled, "cancelled"), $"cancelled during {step.Phase}");
        }
        catch (SqlException exception)
        {
            var error = string.Create(CultureInfo.InvariantCulture, $"{ConnectionStringRedactor.RedactMessage(exception.Message)} (error {exception.Number})");
            return (new DrillPhase(step.Phase, step.Sql, Seconds(start), DrillStatus.Failed, error), $"{step.Phase} failed: {error}");
        }
        catch (DrillStepException exception)
        {
            return (new DrillPhase(step.Phase, step.Sql, Seconds(start), DrillStatus.Failed, exception.Message), $"{step.Phase} failed: {exception.Message}");
        }
    }

    /// <summary>HEADERONLY lists every backup set on the media: the one the plan restores must be there, at its position.</summary>
    private static async Task HeaderAsync(SqlCommand command, DrillStep step, RestoreDrillPlan plan)
    {
        var backup = plan.Backups.First(b => step.Sql == RestoreDrillStatements.HeaderOnly(b));
        var positions = new List<long>();
        await using (var reader = await command.ExecuteReaderAsync(CancellationToken.None).ConfigureAwait(false))
        {
            while (await reader.ReadAsync(CancellationToken.None).ConfigureAwait(false))
            {
                if (SqlRows.Number(reader, "Position") is { } position)
                {
                    positions.Add(position);
                }
            }
        }

        if (!positions.Contains(backup.Position))
        {
            throw new DrillStepException(string.Create(CultureInfo.InvariantCulture,
                $"RESTORE HEADERONLY lists no backup set at position {backup.Position} of {string.Join(", ", backup.Devices)} (it lists {(positions.Count == 0 ? "none" : string.Join(", ", positions))}): the media no longer hold the {backup.Kind} backup msdb names"));
        }
    }

    /// <summary>Drops the scratch database if it exists (restoring or online); a refused drop is named, never hidden.</summary>
    private async Task<(DrillPhase? Phase, string? LeftBehind)> DropAsync(RestoreDrillPlan plan)
    {
        var start = time.GetTimestamp();
        try
        {
            if (!await ExistsAsync(plan.Scratch, CancellationToken.None).ConfigureAwait(false))
            {
                return (null, null);
            }

            await using var connection = await target.OpenAsync(CancellationToken.None).ConfigureAwait(false);
            await using var command = target.Command(connection, plan.DropSql);
            command.CommandTimeout = 0;
            await command.ExecuteNonQueryAsync(CancellationToken.None).ConfigureAwait(false);
            return (new DrillPhase(DrillPhases.Drop, plan.DropSql, Seconds(start), DrillStatus.Completed), null);
        }
        catch (SqlException exception)
        {
            var error = string.Create(CultureInfo.InvariantCulture, $"{ConnectionStringRedactor.RedactMessage(exception.Message)} (error {exception.Number})");
            return (new DrillPhase(DrillPhases.Drop, plan.DropSql, Seconds(start), DrillStatus.Failed, error),
                $"[{plan.Scratch}] on {plan.TargetServer} with its files ({string.Join(", ", plan.Moves.Select(m => m.Path))}): the DROP was refused ({error}); remove it with {plan.DropSql}");
        }
    }

    private double Seconds(long start) => time.GetElapsedTime(start).TotalSeconds;

    /// <summary>The drill connection's session id and the server's clock; (0, default) when the server does not answer, so the step goes unmeasured inside rather than failing the drill.</summary>
    private async Task<(int SessionId, DateTime Now)> SessionAsync(SqlConnection connection, CancellationToken cancellationToken)
    {
        try
        {
            await using var command = target.Command(connection, LiveTrialHost.TrialSessionQuery);
            await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
            if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                return (0, default);
            }

            return ((int)(SqlRows.Number(reader, "session_id") ?? 0), DateTime.SpecifyKind(reader.GetDateTime(reader.GetOrdinal("server_utc")), DateTimeKind.Utc));
        }
        catch (Exception failure) when (failure is SqlException or InvalidCastException)
        {
            return (0, default);
        }
    }

    private static async Task<(ServerIdentity Identity, string? DataPath, string? LogPath, int? Major)> IdentityAsync(SqlConnectionFactory factory, CancellationToken cancellationToken)
    {
        await using var connection = await factory.OpenAsync(cancellationToken).ConfigureAwait(false);
        await using var command = factory.Command(connection, IdentityQuery);
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            return (new ServerIdentity(null, null, null), null, null, null);
        }

        return (
            new ServerIdentity(SqlRows.Text(reader, "server_name"), SqlRows.Text(reader, "machine_name"), SqlRows.Text(reader, "instance_name")),
            SqlRows.Text(reader, "default_data_path"),
            SqlRows.Text(reader, "default_log_path"),
            SqlRows.Number(reader, "product_major_version") is { } m and > 0 and < 100 ? (int)m : null);
    }

    private async Task<IReadOnlyList<DrillMedia>> MediaAsync(SqlConnection connection, string database, DateTime since, CancellationToken cancellationToken)
    {
        await using var command = source.Command(connection, MediaQuery);
        command.Parameters.Add(new SqlParameter("@database", SqlDbType.NVarChar, 128) { Value = database });
        command.Parameters.Add("@since", SqlDbType.DateTime).Value = since;
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        var media = new List<DrillMedia>();
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            if (SqlRows.Text(reader, "backup_type") is not { Length: 1 } type || Lsn(SqlRows.Text(reader, "first_lsn")) is not { } first
                || Lsn(SqlRows.Text(reader, "last_lsn")) is not { } last || SqlRows.Number(reader, "backup_position") is not { } position
                || position is <= 0 or > int.MaxValue || SqlRows.Text(reader, "physical_device_name") is not { } device)
            {
                continue;
            }

            var kind = SqlRows.Number(reader, "device_type") is { } deviceType and >= 0 and <= 255 ? MsdbBackupHistory.DeviceKindOf((int)deviceType) : (DeviceKind?)null;
            var previous = media.Count > 0 ? media[^1] : null;
            if (previous is not null && previous.Type == char.ToUpperInvariant(type[0]) && previous.FirstLsn == first && previous.LastLsn == last && previous.Position == position)
            {
                // The next family of the same set: one more device (a striped backup).
                media[^1] = previous with { Devices = [.. previous.Devices, device], Kinds = [.. previous.Kinds, kind] };
            }
            else
            {
                media.Add(new DrillMedia(char.ToUpperInvariant(type[0]), first, last, (int)position, [device], [kind]));
            }
        }

        return media;
    }

    private async Task<(IReadOnlyList<BackupFileEntry>? Files, string? Unread)> FileListAsync(DrillBackup full, CancellationToken cancellationToken)
    {
        try
        {
            var files = new List<BackupFileEntry>();
            await using var connection = await target.OpenAsync(cancellationToken).ConfigureAwait(false);
            await using var command = target.Command(connection, RestoreDrillStatements.FileListOnly(full));
            await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                if (SqlRows.Text(reader, "LogicalName") is { } name)
                {
                    files.Add(new BackupFileEntry(name, SqlRows.Text(reader, "Type")?.Trim().ToUpperInvariant() ?? "D", SqlRows.Number(reader, "Size") is { } size and >= 0 ? size : 0));
                }
            }

            return files.Count > 0 ? (files, null) : (null, "it listed no file");
        }
        catch (SqlException exception)
        {
            return (null, string.Create(CultureInfo.InvariantCulture, $"{ConnectionStringRedactor.RedactMessage(exception.Message)} (error {exception.Number})"));
        }
    }

    private async Task<bool> CanCreateDatabaseAsync(CancellationToken cancellationToken)
    {
        await using var connection = await target.OpenAsync(cancellationToken).ConfigureAwait(false);
        await using var command = target.Command(connection, LiveTrialHost.RestoreReadyQuery);
        return Convert.ToInt64(await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false) ?? 0L, CultureInfo.InvariantCulture) == 1;
    }

    private async Task<bool> ExistsAsync(string name, CancellationToken cancellationToken)
    {
        await using var connection = await target.OpenAsync(cancellationToken).ConfigureAwait(false);
        await using var command = target.Command(connection, DatabaseExistsQuery);
        command.Parameters.Add(new SqlParameter("@name", SqlDbType.NVarChar, 128) { Value = name });
        return Convert.ToInt64(await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false) ?? 1L, CultureInfo.InvariantCulture) != 0;
    }

    /// <summary>The volumes holding a database file and their free bytes; why not when the server refuses (VIEW SERVER STATE).</summary>
    private async Task<(IReadOnlyList<(string? MountPoint, long Available)> Rows, string? Unknown)> VolumesAsync(CancellationToken cancellationToken)
    {
        try
        {
            var rows = new List<(string?, long)>();
            await using var connection = await target.OpenAsync(cancellationToken).ConfigureAwait(false);
            await using var command = target.Command(connection, LiveTrialHost.VolumesQuery);
            await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                rows.Add((SqlRows.Text(reader, "volume_mount_point"), SqlRows.Number(reader, "available_bytes") ?? 0));
            }

            return (rows, null);
        }
        catch (SqlException exception)
        {
            return ([], $"sys.dm_os_volume_stats could not be read ({ConnectionStringRedactor.RedactMessage(exception.Message)}); it needs VIEW SERVER STATE (VIEW SERVER PERFORMANCE STATE from SQL Server 2022)");
        }
    }

    private Task<bool?> InstantFileInitializationAsync(CancellationToken cancellationToken)
        => Preflight.InstantFileInitializationState.ReadAsync(target, cancellationToken);

    // numeric(25,0) as text, as MsdbBackupChain reads it.
    private static decimal? Lsn(string? text) =>
        text is { Length: > 0 and <= 25 } && decimal.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var value) ? value : null;

    /// <summary>A step the server answered, but not as the plan needs (HEADERONLY without the set).</summary>
    private sealed class DrillStepException(string message) : Exception(message);
}
