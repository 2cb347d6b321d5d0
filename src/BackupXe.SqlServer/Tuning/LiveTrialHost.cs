using System.Data;
using System.Globalization;
using BackupXe.Core.Events;
using BackupXe.Core.Tuning;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Live;
using BackupXe.SqlServer.Sessions;
using Microsoft.Data.SqlClient;

namespace BackupXe.SqlServer.Tuning;

/// <summary>
/// <c>backupxe tune --execute</c> against a live server. Before any trial: the login's BACKUP DATABASE permission on the
/// database and the capture session running (the facts query has checked VIEW SERVER STATE, or VIEW SERVER PERFORMANCE
/// STATE from SQL Server 2022, and VIEW ANY DEFINITION).
/// Each trial: the COPY_ONLY BACKUP on a connection of its own, whose session id and server clock are read first;
/// stopped at its window by cancelling the command (SqlClient sends ATTENTION), then confirmed gone from
/// sys.dm_exec_requests; its operation taken from the capture session (<see cref="TrialOperationCapture"/>) and, when it
/// finished, its block size from msdb by the trial's media name. Free space comes from sys.dm_os_volume_stats for the
/// volume holding the directory, when a database file lives there. Files are never deleted: no documented,
/// least-privilege T-SQL deletes a file, so the tuner keeps and lists them (docs/tuning.md). For a tune to URLs the
/// credential of each URL is read from sys.credentials before any trial; blobs are never deleted either.
/// </summary>
public sealed class LiveTrialHost(SqlConnectionFactory factory, CaptureSessionSettings session, TrialOperationCapture capture, TimeProvider? time = null) : IRestoreTrialHost
{
    /// <summary>
    /// RESTORE of a database that does not exist needs CREATE DATABASE (the RESTORE page, Permissions): granted in master,
    /// or through CREATE ANY DATABASE (dbcreator has it), as the CREATE DATABASE page lists.
    /// </summary>
    public const string RestoreReadyQuery = """
        SELECT CASE WHEN HAS_PERMS_BY_NAME(NULL, NULL, N'CREATE ANY DATABASE') = 1
                      OR HAS_PERMS_BY_NAME(N'master', N'DATABASE', N'CREATE DATABASE') = 1
                    THEN 1 ELSE 0 END AS create_database;
        """;

    /// <summary>Whether the scratch name is taken: a restore trial never restores over a database.</summary>
    public const string DatabaseExistsQuery = "SELECT CASE WHEN DB_ID(@name) IS NULL THEN 0 ELSE 1 END AS present;";

    /// <summary>The login's permission to back up the database (BACKUP DATABASE, granted alone or through db_backupoperator or db_owner).</summary>
    public const string ReadyQuery = """
        SELECT HAS_PERMS_BY_NAME(@database, N'DATABASE', N'BACKUP DATABASE') AS backup_database;
        """;

    /// <summary>
    /// For a tune to URLs: the credentials BACKUP TO URL could use (their names are the URLs they serve; the identity is
    /// the kind of secret, never the secret), and whether the login sees them: sys.credentials needs VIEW ANY DEFINITION
    /// or ALTER ANY CREDENTIAL. One row at least, with a NULL name when there is none.
    /// </summary>
    public const string CredentialsQuery = """
        SELECT CONVERT(int, CASE WHEN HAS_PERMS_BY_NAME(NULL, NULL, N'VIEW ANY DEFINITION') = 1
                                   OR HAS_PERMS_BY_NAME(NULL, NULL, N'ALTER ANY CREDENTIAL') = 1 THEN 1 ELSE 0 END) AS can_see_credentials,
               c.name AS credential_name,
               c.credential_identity
        FROM (SELECT 1 AS one) AS x
        LEFT JOIN sys.credentials AS c ON c.name LIKE N'https://%' OR c.name LIKE N's3://%';
        """;

    /// <summary>The trial connection's own session id and the server's clock, read before the BACKUP on the same connection.</summary>
    public const string TrialSessionQuery = "SELECT @@SPID AS session_id, SYSUTCDATETIME() AS server_utc;";

    /// <summary>Whether the trial's BACKUP (or RESTORE) still runs on its session after the cancel.</summary>
    public const string StillRunningQuery = """
        SELECT COUNT(*) AS running
        FROM sys.dm_exec_requests AS r
        WHERE r.session_id = @session_id AND (r.command LIKE N'BACKUP%' OR r.command LIKE N'RESTORE%');
        """;

    /// <summary>Each volume holding a database file, and its free bytes: the only volumes the server reports on.</summary>
    public const string VolumesQuery = """
        SELECT DISTINCT v.volume_mount_point, v.available_bytes
        FROM sys.master_files AS f
        CROSS APPLY sys.dm_os_volume_stats(f.database_id, f.file_id) AS v;
        """;

    /// <summary>
    /// What msdb recorded for the finished trial, found by its own backup set NAME (unique per run) among the database's
    /// COPY_ONLY rows: the block size of its media, its size (bytes read) and its duration in whole seconds.
    /// </summary>
    public const string BackupSetQuery = """
        SELECT TOP (1) f.physical_block_size,
               s.backup_size,
               DATEDIFF(SECOND, s.backup_start_date, s.backup_finish_date) AS duration_seconds
        FROM msdb.dbo.backupset AS s
        JOIN msdb.dbo.backupmediafamily AS f ON f.media_set_id = s.media_set_id
        WHERE s.name = @set_name AND s.database_name = @database AND s.is_copy_only = 1
        ORDER BY s.backup_set_id DESC;
        """;

    /// <summary>
    /// The trial's request as it runs: percent_complete (0 to 100, for BACKUP among others) and the server's clock,
    /// sampled every second, a rate where the capture's progress lines are too far apart.
    /// </summary>
    public const string PercentCompleteQuery = """
        SELECT r.percent_complete, SYSUTCDATETIME() AS server_utc
        FROM sys.dm_exec_requests AS r
        WHERE r.session_id = @session_id AND r.command LIKE N'BACKUP%';
        """;

    /// <summary>How often the trial's percent_complete is read while it runs.</summary>
    public static readonly TimeSpan PercentInterval = TimeSpan.FromSeconds(1);

    /// <summary>
    /// How much longer than its window a trial's command may run before the driver's own timeout stops it. The window's
    /// cancel takes effect only while no packet of the BACKUP's answer has arrived: after its first STATS message the
    /// driver reads the rest under a lock that SqlCommand.Cancel waits for, so then the timeout ends it (docs/development.md).
    /// </summary>
    public static readonly TimeSpan WindowBackstop = TimeSpan.FromSeconds(2);

    /// <summary>How long a cancelled trial may take to leave sys.dm_exec_requests before the tune stops and says so.</summary>
    public static readonly TimeSpan StopTimeout = TimeSpan.FromSeconds(60);

    private readonly LiveTuningServer _facts = new(factory);
    private readonly TimeProvider _time = time ?? TimeProvider.System;

    public bool DeletesFiles => false;

    public Task<TuningFacts> DescribeAsync(string database, CancellationToken cancellationToken) => _facts.DescribeAsync(database, cancellationToken);

    public Task<bool> BackupOrRestoreRunningAsync(string database, CancellationToken cancellationToken) => _facts.BackupOrRestoreRunningAsync(database, cancellationToken);

    public async Task<IReadOnlyList<string>> CheckReadyAsync(TuneRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);
        var problems = new List<string>();
        await using (var connection = await factory.OpenAsync(cancellationToken).ConfigureAwait(false))
        {
            await using var command = factory.Command(connection, ReadyQuery);
            command.Parameters.Add(new SqlParameter("@database", SqlDbType.NVarChar, 128) { Value = request.Database });
            if (Convert.ToInt64(await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false) ?? 0L, CultureInfo.InvariantCulture) != 1)
            {
                problems.Add($"The login lacks BACKUP DATABASE on [{request.Database}]: in that database, GRANT BACKUP DATABASE TO <user>; (or add the user to db_backupoperator).");
            }
        }

        if (request.Urls.Count > 0)
        {
            problems.AddRange(await CredentialProblemsAsync(request.Urls, cancellationToken).ConfigureAwait(false));
        }

        var (_, problem) = await CaptureSessionReadiness.CheckAsync(new SessionClient(factory, session), ensureSession: false, new TransientRetry(attempts: 1), cancellationToken).ConfigureAwait(false);
        if (problem is not null)
        {
            problems.Add($"Each trial is measured by the capture session: {problem}");
        }

        if (problems.Count == 0)
        {
            capture.Start();
        }

        return problems;
    }

    /// <summary>
    /// A URL whose credential sys.credentials does not hold (or, for a block blob, holds without a Shared Access
    /// Signature, which striping over several blobs needs) is one line naming the CREATE CREDENTIAL to run.
    /// </summary>
    private async Task<IReadOnlyList<string>> CredentialProblemsAsync(IReadOnlyList<UrlTarget> urls, CancellationToken cancellationToken)
    {
        var credentials = new Dictionary<string, string?>(StringComparer.OrdinalIgnoreCase);
        var canSee = false;
        await using (var connection = await factory.OpenAsync(cancellationToken).ConfigureAwait(false))
        {
            await using var command = factory.Command(connection, CredentialsQuery);
            await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                canSee = SqlRows.Number(reader, "can_see_credentials") == 1;
                if (SqlRows.Text(reader, "credential_name") is { } name)
                {
                    credentials[name] = SqlRows.Text(reader, "credential_identity");
                }
            }
        }

        if (!canSee)
        {
            return ["The login cannot see sys.credentials, where BACKUP TO URL finds its credential (it needs VIEW ANY DEFINITION or ALTER ANY CREDENTIAL): GRANT VIEW ANY DEFINITION TO <login>;"];
        }

        var problems = new List<string>();
        foreach (var url in urls)
        {
            if (url.CredentialIn(credentials.Keys) is not { } name)
            {
                problems.Add($"No credential for {url.Prefix} in sys.credentials: BACKUP TO URL uses one named after the {(url.Storage == UrlStorage.AzureBlockBlob ? "container" : "bucket")}. Create it, then run the tune again: {url.CreateCredential}");
            }
            else if (url.Storage == UrlStorage.AzureBlockBlob && !string.Equals(credentials[name], "SHARED ACCESS SIGNATURE", StringComparison.OrdinalIgnoreCase))
            {
                problems.Add($"The credential [{name}] holds no Shared Access Signature, which a backup striped over several blobs needs: {url.CreateCredential}");
            }
        }

        return problems;
    }

    public async Task<FreeSpace> FreeSpaceAsync(string directory, CancellationToken cancellationToken)
    {
        var volumes = new List<(string? MountPoint, long Available)>();
        await using (var connection = await factory.OpenAsync(cancellationToken).ConfigureAwait(false))
        {
            await using var command = factory.Command(connection, VolumesQuery);
            await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                volumes.Add((SqlRows.Text(reader, "volume_mount_point"), SqlRows.Number(reader, "available_bytes") ?? 0));
            }
        }

        return VolumeOf(directory, volumes);
    }

    /// <summary>The volume whose mount point is the longest prefix of <paramref name="directory"/>.</summary>
    internal static FreeSpace VolumeOf(string directory, IReadOnlyList<(string? MountPoint, long Available)> volumes)
    {
        if (volumes.Count > 0 && volumes.All(v => string.IsNullOrEmpty(v.MountPoint)))
        {
            return FreeSpace.CannotTell("sys.dm_os_volume_stats names no mount point here (on Linux it returns none)");
        }

        var match = volumes.Where(v => !string.IsNullOrEmpty(v.MountPoint) && directory.StartsWith(v.MountPoint!, StringComparison.OrdinalIgnoreCase))
            .OrderByDescending(v => v.MountPoint!.Length)
            .Select(v => (long?)v.Available)
            .FirstOrDefault();
        return match is { } bytes
            ? FreeSpace.Of(bytes)
            : FreeSpace.CannotTell("no database file of this instance is on its volume, and sys.dm_os_volume_stats reports only volumes that hold one");
    }

    /// <summary>Not knowable without more than BACKUP DATABASE: the trial's MEDIANAME makes the server refuse an existing file.</summary>
    public Task<bool?> FileExistsAsync(string path, CancellationToken cancellationToken) => Task.FromResult<bool?>(null);

    public Task DeleteFileAsync(string path, CancellationToken cancellationToken) =>
        throw new NotSupportedException("A live server's trial files are kept and listed, never deleted by BackupXe.");

    public Task<TrialCapture> RunTrialAsync(TrialStatement statement, TimeSpan window, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(statement);
        return RunCapturedAsync(statement.Sql, statement.Database, OperationKind.Backup, statement.BackupSetName, window, cancellationToken);
    }

    public async Task<IReadOnlyList<string>> CheckRestoreReadyAsync(CancellationToken cancellationToken)
    {
        await using var connection = await factory.OpenAsync(cancellationToken).ConfigureAwait(false);
        await using var command = factory.Command(connection, RestoreReadyQuery);
        return Convert.ToInt64(await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false) ?? 0L, CultureInfo.InvariantCulture) == 1
            ? []
            : ["The login lacks CREATE DATABASE, which RESTORE needs to create the scratch database: GRANT CREATE ANY DATABASE TO <login>; (or add it to dbcreator)."];
    }

    public async Task<IReadOnlyList<BackupFileEntry>> FileListAsync(IReadOnlyList<string> from, CancellationToken cancellationToken)
    {
        var files = new List<BackupFileEntry>();
        try
        {
            await using var connection = await factory.OpenAsync(cancellationToken).ConfigureAwait(false);
            await using var command = factory.Command(connection, RestoreTrialStatement.FileListSql(from));
            await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                files.Add(new BackupFileEntry(
                    SqlRows.Text(reader, "LogicalName") ?? throw new TrialFailedException("RESTORE FILELISTONLY returned a file without a logical name."),
                    SqlRows.Text(reader, "Type")?.Trim() ?? "D",
                    SqlRows.Number(reader, "Size") ?? 0));
            }
        }
        catch (SqlException failure)
        {
            throw new TrialFailedException($"{ConnectionStringRedactor.RedactMessage(failure.Message)} (error {failure.Number})", failure);
        }

        return files.Count > 0 ? files : throw new TrialFailedException("RESTORE FILELISTONLY listed no file.");
    }

    public async Task<bool> DatabaseExistsAsync(string name, CancellationToken cancellationToken)
    {
        await using var connection = await factory.OpenAsync(cancellationToken).ConfigureAwait(false);
        await using var command = factory.Command(connection, DatabaseExistsQuery);
        command.Parameters.Add(new SqlParameter("@name", SqlDbType.NVarChar, 128) { Value = name });
        return Convert.ToInt64(await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false) ?? 1L, CultureInfo.InvariantCulture) != 0;
    }

    public Task<bool?> InstantFileInitializationAsync(CancellationToken cancellationToken)
        => Preflight.InstantFileInitializationState.ReadAsync(factory, cancellationToken);

    public Task<TrialCapture> RunRestoreAsync(RestoreTrialStatement statement, TimeSpan window, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(statement);
        return RunCapturedAsync(statement.Sql, statement.Database, OperationKind.Restore, null, window, cancellationToken);
    }

    public async Task<string?> DropAsync(RestoreTrialStatement statement, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(statement);
        try
        {
            await using var connection = await factory.OpenAsync(cancellationToken).ConfigureAwait(false);
            // Only the trial's own scratch database, checked by name first: a trial that failed before creating it leaves nothing to drop.
            if (!await DatabaseExistsAsync(statement.Database, cancellationToken).ConfigureAwait(false))
            {
                return null;
            }

            await using var command = factory.Command(connection, statement.DropSql);
            await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
            return null;
        }
        catch (SqlException failure)
        {
            return $"the server refused the DROP: {ConnectionStringRedactor.RedactMessage(failure.Message)} (error {failure.Number})";
        }
    }

    private async Task<TrialCapture> RunCapturedAsync(string sql, string database, OperationKind kind, string? setName, TimeSpan window, CancellationToken cancellationToken)
    {
        var started = _time.GetTimestamp();
        await using var connection = await factory.OpenAsync(cancellationToken).ConfigureAwait(false);
        var (sessionId, since) = await TrialSessionAsync(connection, cancellationToken).ConfigureAwait(false);
        await using var command = factory.Command(connection, sql);
        // The window ends on the tune's clock, and Ctrl-C ends it sooner: either cancels the command, so the driver sends
        // ATTENTION, which stops the BACKUP or RESTORE. The command timeout backs that up where the cancel waits (WindowBackstop).
        command.CommandTimeout = Math.Max(1, (int)Math.Ceiling((window + WindowBackstop).TotalSeconds));
        using var windowEnd = new CancellationTokenSource(window, _time);
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(windowEnd.Token, cancellationToken);
        var running = command.ExecuteNonQueryAsync(stop.Token);
        using var stopSampling = new CancellationTokenSource();
        var sampling = kind == OperationKind.Backup ? SamplePercentAsync(sessionId, stopSampling.Token) : Task.FromResult<IReadOnlyList<PercentSample>>([]);
        bool finished;
        try
        {
            finished = await EndedAsync(running, kind, stop.Token).ConfigureAwait(false);
        }
        finally
        {
            await stopSampling.CancelAsync().ConfigureAwait(false);
        }

        var percent = await sampling.ConfigureAwait(false);
        if (!finished)
        {
            await ConfirmStoppedAsync(sessionId).ConfigureAwait(false);
        }

        cancellationToken.ThrowIfCancellationRequested();
        var (operation, problem) = await capture.TakeAsync(sessionId, database, since, finished, kind, cancellationToken).ConfigureAwait(false);
        if (operation is null)
        {
            throw new TrialFailedException(problem!);
        }

        var (block, history) = finished && setName is { } name ? await BackupSetAsync(name, database, cancellationToken).ConfigureAwait(false) : (null, null);
        return new TrialCapture(operation, block, _time.GetElapsedTime(started).TotalSeconds, finished) { PercentSamples = percent, History = history };
    }

    /// <summary>
    /// percent_complete of the trial's BACKUP every <see cref="PercentInterval"/> until <paramref name="stop"/>; what was
    /// read so far when the server refuses or fails the query (the rate then comes from the capture alone).
    /// </summary>
    private async Task<IReadOnlyList<PercentSample>> SamplePercentAsync(int sessionId, CancellationToken stop)
    {
        var samples = new List<PercentSample>();
        try
        {
            await using var connection = await factory.OpenAsync(stop).ConfigureAwait(false);
            while (!stop.IsCancellationRequested)
            {
                await using (var command = factory.Command(connection, PercentCompleteQuery))
                {
                    command.Parameters.Add(new SqlParameter("@session_id", SqlDbType.Int) { Value = sessionId });
                    await using var reader = await command.ExecuteReaderAsync(stop).ConfigureAwait(false);
                    if (await reader.ReadAsync(stop).ConfigureAwait(false) && !reader.IsDBNull(0))
                    {
                        var percent = Convert.ToDouble(reader.GetValue(0), CultureInfo.InvariantCulture);
                        var at = DateTime.SpecifyKind(reader.GetDateTime(1), DateTimeKind.Utc);
                        if (percent is >= 0 and <= 100)
                        {
                            samples.Add(new PercentSample(at, percent));
                        }
                    }
                }

                await Task.Delay(PercentInterval, _time, stop).ConfigureAwait(false);
            }
        }
        catch (Exception failure) when (failure is OperationCanceledException or SqlException or InvalidOperationException)
        {
            // Stopped with the trial, or the server would not answer: the samples so far stand.
        }

        return samples;
    }

    private static async Task<(int SessionId, DateTime Since)> TrialSessionAsync(SqlConnection connection, CancellationToken cancellationToken)
    {
        await using var command = new SqlCommand(TrialSessionQuery, connection);
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            throw new TrialFailedException("the server returned no session id for the trial's connection.");
        }

        var since = DateTime.SpecifyKind(reader.GetDateTime(reader.GetOrdinal("server_utc")), DateTimeKind.Utc);
        return ((int)(SqlRows.Number(reader, "session_id") ?? 0), since);
    }

    /// <summary>True when the BACKUP or RESTORE completed; false when it was stopped. A server error of its own fails the trial.</summary>
    private static async Task<bool> EndedAsync(Task backup, OperationKind kind, CancellationToken stop)
    {
        try
        {
            await backup.ConfigureAwait(false);
            return true;
        }
        catch (OperationCanceledException) when (stop.IsCancellationRequested)
        {
            return false;
        }
        catch (SqlException failure) when (IsStop(failure))
        {
            return false;
        }
        catch (SqlException failure)
        {
            throw new TrialFailedException($"the server refused or failed the {(kind == OperationKind.Backup ? "BACKUP" : "RESTORE")}: {ConnectionStringRedactor.RedactMessage(failure.Message)} (error {failure.Number})", failure);
        }
    }

    // A cancel is error 0 "Operation cancelled by user" (or the task's own cancellation); the backstop's end is the
    // driver's timeout (-2); either may come as the batch's own 3013/3204 when the server had already reported the abort.
    private static bool IsStop(SqlException failure) => failure.Number is SqlErrorNumbers.Timeout or 0 or 3013 or 3204;

    /// <summary>The cancel is confirmed only when the server no longer runs the BACKUP on that session.</summary>
    private async Task ConfirmStoppedAsync(int sessionId)
    {
        var started = _time.GetTimestamp();
        await using var connection = await factory.OpenAsync(CancellationToken.None).ConfigureAwait(false);
        while (true)
        {
            await using (var command = factory.Command(connection, StillRunningQuery))
            {
                command.Parameters.Add(new SqlParameter("@session_id", SqlDbType.Int) { Value = sessionId });
                if (Convert.ToInt64(await command.ExecuteScalarAsync(CancellationToken.None).ConfigureAwait(false) ?? 0L, CultureInfo.InvariantCulture) == 0)
                {
                    return;
                }
            }

            if (_time.GetElapsedTime(started) >= StopTimeout)
            {
                throw new TrialFailedException(string.Create(CultureInfo.InvariantCulture,
                    $"the trial's BACKUP still runs on session {sessionId} {StopTimeout.TotalSeconds:0} s after it was cancelled; a DBA can end it with KILL {sessionId};"));
            }

            await Task.Delay(TimeSpan.FromMilliseconds(500), _time, CancellationToken.None).ConfigureAwait(false);
        }
    }

    /// <summary>Nulls when msdb cannot be read (SELECT on its backup tables is not granted): the block size stays unconfirmed.</summary>
    private async Task<(int? BlockSize, BackupSetFigures? History)> BackupSetAsync(string setName, string database, CancellationToken cancellationToken)
    {
        try
        {
            await using var connection = await factory.OpenAsync(cancellationToken).ConfigureAwait(false);
            await using var command = factory.Command(connection, BackupSetQuery);
            command.Parameters.Add(new SqlParameter("@set_name", SqlDbType.NVarChar, 128) { Value = setName });
            command.Parameters.Add(new SqlParameter("@database", SqlDbType.NVarChar, 128) { Value = database });
            await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
            if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                return (null, null);
            }

            var block = SqlRows.Number(reader, "physical_block_size") is { } b and > 0 and <= 65536 ? (int?)b : null;
            var history = SqlRows.Number(reader, "backup_size") is { } bytes and > 0 && SqlRows.Number(reader, "duration_seconds") is { } seconds and > 0
                ? new BackupSetFigures(bytes, seconds)
                : null;
            return (block, history);
        }
        catch (SqlException)
        {
            return (null, null);
        }
    }
}
