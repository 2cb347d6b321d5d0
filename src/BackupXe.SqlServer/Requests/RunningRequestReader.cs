using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.SqlServer.Client;
using BackupXe.SqlServer.Requirements;
using Microsoft.Data.SqlClient;

namespace BackupXe.SqlServer.Requests;

/// <summary>
/// Reads the backups and restores already running on a server from <c>sys.dm_exec_requests</c>, read only.
/// Without <c>VIEW SERVER STATE</c> (SQL Server 2022+: <c>VIEW SERVER PERFORMANCE STATE</c>) the view shows only the
/// login's own session and raises no error (Microsoft's documentation of the view), so the permission is checked
/// first from the server facts, and a login without it gets one line instead of an empty list that would look
/// like "no backup running".
/// </summary>
public sealed class RunningRequestReader(SqlConnectionFactory connections)
{
    /// <summary>
    /// start_time is server local time (datetime); it is moved to UTC by the server's offset from UTC read once, from
    /// one SYSDATETIMEOFFSET() (two clock reads could straddle a minute or a daylight-saving change), so it lines up
    /// with XE timestamps (UTC). RESTORE HEADERONLY, VERIFYONLY, FILELISTONLY, LABELONLY and REWINDONLY also start
    /// with RESTORE but read media only; the prefixes are matched because the command column is short on older builds.
    /// database_id is the database the request executes in (a job step's BACKUP of SalesDB run from master is in master),
    /// so the database backed up is read from the statement itself: the text of the request's batch
    /// (sys.dm_exec_sql_text(sql_handle)) cut to the running statement by its byte offsets (statement_end_offset -1:
    /// to the end of the batch), its first 4,000 characters, which hold the database name of any BACKUP or RESTORE.
    /// </summary>
    public const string Query = """
        SELECT r.session_id, r.command, DB_NAME(r.database_id) AS database_name, r.percent_complete,
               r.estimated_completion_time,
               DATEADD(MINUTE, -DATEPART(TZOFFSET, SYSDATETIMEOFFSET()), r.start_time) AS start_time_utc,
               GETUTCDATE() AS server_utc,
               r.wait_type, r.wait_time, r.last_wait_type,
               CONVERT(nvarchar(4000), SUBSTRING(t.text, r.statement_start_offset / 2 + 1,
                   CASE WHEN r.statement_end_offset = -1 THEN 2147483647
                        ELSE (r.statement_end_offset - r.statement_start_offset) / 2 + 1 END)) AS statement_text
        FROM sys.dm_exec_requests AS r
        OUTER APPLY sys.dm_exec_sql_text(r.sql_handle) AS t
        WHERE (r.command LIKE N'BACKUP%' OR r.command LIKE N'RESTORE%')
          AND r.command NOT LIKE N'RESTORE HEADERON%' AND r.command NOT LIKE N'RESTORE VERIFYON%'
          AND r.command NOT LIKE N'RESTORE FILELIST%' AND r.command NOT LIKE N'RESTORE LABELON%'
          AND r.command NOT LIKE N'RESTORE REWINDON%'
        ORDER BY r.session_id;
        """;

    private static readonly IReadOnlyList<string> MediaReadPrefixes =
        ["RESTORE HEADERON", "RESTORE VERIFYON", "RESTORE FILELIST", "RESTORE LABELON", "RESTORE REWINDON"];

    /// <summary>True for a backup or a restore; false for a RESTORE that only reads the media, or any other command.</summary>
    public static bool IsBackupOrRestore(string command)
    {
        ArgumentNullException.ThrowIfNull(command);
        var text = command.Trim();
        return (text.StartsWith("BACKUP", StringComparison.OrdinalIgnoreCase) || text.StartsWith("RESTORE", StringComparison.OrdinalIgnoreCase))
            && !MediaReadPrefixes.Any(prefix => text.StartsWith(prefix, StringComparison.OrdinalIgnoreCase));
    }

    /// <summary>Whether <paramref name="facts"/> let the login see every session's requests.</summary>
    public static bool SeesAllSessions(ServerFacts facts)
    {
        ArgumentNullException.ThrowIfNull(facts);
        return facts.Permissions.Contains(ServerRequirements.ViewServerState)
            || (ServerRequirements.HasGranularPermissions(facts) && facts.Permissions.Contains(ServerRequirements.ViewServerPerformanceState));
    }

    /// <summary>The permission to grant for <paramref name="facts"/>' version, for the one-line message.</summary>
    public static string MissingPermissionLine(ServerFacts facts)
    {
        ArgumentNullException.ThrowIfNull(facts);
        var permission = ServerRequirements.HasGranularPermissions(facts)
            ? ServerRequirements.ViewServerPerformanceState
            : ServerRequirements.ViewServerState;
        var login = facts.LoginName is null ? "[<login>]" : "[" + facts.LoginName.Replace("]", "]]", StringComparison.Ordinal) + "]";
        return $"backups already running are not shown: sys.dm_exec_requests lists other sessions only with {permission} "
            + $"(GRANT {permission} TO {login};); their progress shows once their events arrive.";
    }

    /// <summary>
    /// The running backups and restores, or a <see cref="RunningRequestSnapshot.Limitation"/> when the login may not
    /// see them or the read failed (never thrown: a watch goes on without them).
    /// </summary>
    public async Task<RunningRequestSnapshot> ReadAsync(ServerFacts facts, CancellationToken cancellationToken)
    {
        if (!SeesAllSessions(facts))
        {
            return RunningRequestSnapshot.Unavailable(MissingPermissionLine(facts));
        }

        return await ReadVisibleAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// The running backups and restores the login can see, without checking the permission first: for a caller that
    /// looks for one session and says "not visible" when it is missing (never thrown).
    /// </summary>
    public async Task<RunningRequestSnapshot> ReadVisibleAsync(CancellationToken cancellationToken)
    {
        try
        {
            await using var connection = await connections.OpenAsync(cancellationToken).ConfigureAwait(false);
            await using var command = connections.Command(connection, Query);
            await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
            var requests = new List<RunningRequest>();
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                if (Row(reader) is var request && IsBackupOrRestore(request.Command))
                {
                    requests.Add(request);
                }
            }

            return new RunningRequestSnapshot(requests, null);
        }
        // Whatever the driver throws (SqlException, a socket or SSPI failure), the watch goes on without the requests.
        catch (Exception failure) when (!cancellationToken.IsCancellationRequested)
        {
            return RunningRequestSnapshot.Unavailable(
                "backups already running could not be read from sys.dm_exec_requests: " + ConnectionStringRedactor.RedactMessage(failure.Message));
        }
    }

    /// <summary>
    /// The database a BACKUP or RESTORE statement names, read with the T-SQL parser of the history import; null when the
    /// text is not visible, is not such a statement, or names the database through a variable: not yet known.
    /// </summary>
    public static string? DatabaseNamedBy(string? statement)
        => string.IsNullOrWhiteSpace(statement) ? null : BackupCommandParser.Parse(statement)?.Database;

    /// <summary>One row, by the documented column types: smallint, nvarchar, real, bigint, datetime, int.</summary>
    private static RunningRequest Row(SqlDataReader reader)
    {
        var percent = reader.IsDBNull(3) ? 0d : reader.GetFloat(3);
        long? remainingMs = reader.IsDBNull(4) ? null : reader.GetInt64(4);
        var waitMs = reader.IsDBNull(8) ? 0 : reader.GetInt32(8);
        return new RunningRequest(
            reader.GetInt16(0),
            reader.GetString(1).Trim(),
            DatabaseNamedBy(reader.IsDBNull(10) ? null : reader.GetString(10)),
            // Range-checked: a percentage outside 0-100 (or NaN) is not shown as one.
            double.IsFinite(percent) ? Math.Clamp(percent, 0, 100) : 0,
            // 0 is what the view shows for commands that give no estimate; a negative or absurd value is not an ETA.
            remainingMs is > 0 and < (long)(ServerRanges.MaxSeconds * 1000) ? TimeSpan.FromMilliseconds(remainingMs.Value) : null,
            DateTime.SpecifyKind(reader.GetDateTime(5), DateTimeKind.Utc),
            DateTime.SpecifyKind(reader.GetDateTime(6), DateTimeKind.Utc),
            reader.IsDBNull(7) ? null : reader.GetString(7),
            TimeSpan.FromMilliseconds(Math.Max(0, waitMs)),
            reader.IsDBNull(9) ? null : reader.GetString(9))
        {
            RunsIn = reader.IsDBNull(2) ? null : reader.GetString(2),
        };
    }
}
