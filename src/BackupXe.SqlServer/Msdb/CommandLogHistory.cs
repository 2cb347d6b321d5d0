using System.Data.Common;
using System.Globalization;
using System.Text;
using BackupXe.Core.History;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.SqlServer.Msdb;

/// <summary>
/// Backups from Ola Hallengren's dbo.CommandLog (MaintenanceSolution.sql): ID int, DatabaseName sysname,
/// CommandType nvarchar(60) (BACKUP_DATABASE, BACKUP_LOG; RESTORE_VERIFYONLY is a verification, not a
/// restore), Command nvarchar(max), StartTime and EndTime datetime2(7) (datetime in versions before about
/// 2016), ErrorNumber int, ErrorMessage nvarchar(max). CommandExecute inserts the row with StartTime before it
/// runs the command and sets EndTime, ErrorNumber (0 on success; NULL when not executed) when it is done.
/// Read-only.
/// </summary>
internal static class CommandLogHistory
{
    /// <summary>
    /// Every online database, master and msdb first, with whether it has AUTO_CLOSE on and, only when it has not,
    /// whether the login may use it. CASE evaluates its WHEN in order, so HAS_DBACCESS never touches an AUTO_CLOSE
    /// database; whether each remaining one has a dbo.CommandLog is asked one database at a time
    /// (<see cref="ExistsQuery"/>), so that one the replica cannot read (a non-readable availability-group
    /// secondary) fails alone.
    /// </summary>
    public const string FindQuery = """
        SELECT d.name, CAST(d.is_auto_close_on AS int) AS is_auto_close_on,
               CASE WHEN d.is_auto_close_on = 0 THEN HAS_DBACCESS(d.name) END AS has_access
        FROM sys.databases AS d
        WHERE d.state = 0
        ORDER BY CASE d.name WHEN N'master' THEN 0 WHEN N'msdb' THEN 1 ELSE 2 END, d.name;
        """;

    /// <summary>Whether the database named in <c>@database</c> has a dbo.CommandLog table (1) or not (NULL).</summary>
    public const string ExistsQuery = """
        SELECT CASE WHEN OBJECT_ID(QUOTENAME(@database) + N'.dbo.CommandLog', N'U') IS NOT NULL THEN 1 END AS has_command_log;
        """;

    /// <summary>
    /// The backup rows of <paramref name="logDatabase"/>'s CommandLog since <c>@since</c>, optionally of the
    /// databases <c>@d0</c>...; the database name is quoted as QUOTENAME does.
    /// </summary>
    public static string Query(string logDatabase, int databaseCount)
    {
        var sql = new StringBuilder();
        sql.Append("SELECT ID, DatabaseName, CommandType, Command, StartTime, EndTime, ErrorNumber, ErrorMessage\nFROM ")
            .Append(QuoteName(logDatabase))
            .Append(".dbo.CommandLog\nWHERE CommandType IN (N'BACKUP_DATABASE', N'BACKUP_LOG', ")
            .AppendJoin(", ", ThirdPartyCommandTypes.Select(t => $"N'{t}'"))
            .Append(") AND StartTime >= @since");
        if (databaseCount > 0)
        {
            sql.Append("\n  AND DatabaseName IN (")
                .AppendJoin(", ", Enumerable.Range(0, databaseCount).Select(i => string.Create(CultureInfo.InvariantCulture, $"@d{i}")))
                .Append(')');
        }

        return sql.Append("\nORDER BY ID;\n").ToString();
    }

    /// <summary>
    /// The CommandType DatabaseBackup logs when <c>@BackupSoftware</c> hands the backup to third-party software
    /// (LiteSpeed, Red Gate SQL Backup, Idera SQL Safe, Data Domain Boost): their commands are the software's own
    /// procedure calls, not BACKUP statements, so their options cannot be read; they are counted, not imported.
    /// </summary>
    public static readonly IReadOnlyList<string> ThirdPartyCommandTypes =
        ["xp_backup_database", "xp_backup_log", "sqlbackup", "xp_ss_backup", "emc_run_backup"];

    /// <summary>The note for the rows of third-party software in one database's CommandLog; null when there were none.</summary>
    public static string? ThirdPartyNote(string logDatabase, IReadOnlyDictionary<string, int> counted)
    {
        ArgumentNullException.ThrowIfNull(counted);
        var total = counted.Values.Sum();
        return total == 0 ? null
            : $"{QuoteName(logDatabase)}.dbo.CommandLog: {total} backup row{(total == 1 ? "" : "s")} of third-party backup software (@BackupSoftware: "
                + string.Join(", ", counted.OrderBy(c => c.Key, StringComparer.Ordinal).Select(c => $"{c.Key} {c.Value}"))
                + ") counted, not imported: their commands are that software's own, whose options BackupXe does not read";
    }

    /// <summary>[name] with ] doubled: the quoting of QUOTENAME, for a name that goes into the text of a query.</summary>
    public static string QuoteName(string name) => "[" + name.Replace("]", "]]", StringComparison.Ordinal) + "]";

    /// <summary>The backups in the rows of <see cref="Query"/>; rows whose command is not a BACKUP or was not executed are skipped.</summary>
    /// <param name="thirdParty">Counts the rows of third-party backup software per CommandType; they are not yielded.</param>
    public static async IAsyncEnumerable<HistoryOperation> ReadAsync(
        DbDataReader reader, Dictionary<string, int> thirdParty, [System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(thirdParty);
        var type = reader.GetOrdinal("CommandType");
        var start = reader.GetOrdinal("StartTime");
        // datetime2 (SYSDATETIME) ticks in about a millisecond; datetime rounds to 1/300 s.
        var resolution = string.Equals(reader.GetDataTypeName(start), "datetime", StringComparison.OrdinalIgnoreCase) ? 1 / 300.0 : 0.001;
        while (await reader.ReadAsync(cancellationToken))
        {
            var commandType = reader.IsDBNull(type) ? string.Empty : reader.GetString(type);
            if (ThirdPartyCommandTypes.Contains(commandType, StringComparer.OrdinalIgnoreCase))
            {
                thirdParty[commandType] = thirdParty.GetValueOrDefault(commandType) + 1;
                continue;
            }

            if (Operation(reader, resolution) is { } operation)
            {
                yield return operation;
            }
        }
    }

    private static HistoryOperation? Operation(DbDataReader reader, double resolution)
    {
        var command = BackupCommandParser.Parse(reader.GetString(reader.GetOrdinal("Command")));
        var endOrdinal = reader.GetOrdinal("EndTime");
        var errorOrdinal = reader.GetOrdinal("ErrorNumber");
        var ended = !reader.IsDBNull(endOrdinal);
        int? error = reader.IsDBNull(errorOrdinal) ? null : reader.GetInt32(errorOrdinal);
        if (command is null || command.IsVerifyOnly || (ended && error is null))
        {
            return null;
        }

        var messageOrdinal = reader.GetOrdinal("ErrorMessage");
        var databaseOrdinal = reader.GetOrdinal("DatabaseName");
        return new HistoryOperation
        {
            Kind = command.Kind,
            Scope = command.Scope,
            Database = reader.IsDBNull(databaseOrdinal) ? command.Database : reader.GetString(databaseOrdinal),
            Start = DateTime.SpecifyKind(reader.GetDateTime(reader.GetOrdinal("StartTime")), DateTimeKind.Unspecified),
            End = ended ? DateTime.SpecifyKind(reader.GetDateTime(endOrdinal), DateTimeKind.Unspecified) : null,
            TimeResolutionSeconds = resolution,
            // No end time: still running, or the job was stopped before CommandExecute could log the end.
            Status = !ended ? OperationStatus.Incomplete : error == 0 ? OperationStatus.Completed : OperationStatus.Failed,
            Devices = command.Devices,
            Options = HistoryOptions.From(command),
            ErrorMessage = reader.IsDBNull(messageOrdinal) ? null : reader.GetString(messageOrdinal),
            Sources = [HistorySource.CommandLog],
        };
    }
}
