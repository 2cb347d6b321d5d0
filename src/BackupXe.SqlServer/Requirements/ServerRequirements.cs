namespace BackupXe.SqlServer;

/// <summary>
/// The rules a server and login must meet before BackupXe creates or streams its session (domain.md
/// section 2). Pure: a client gathers <see cref="ServerFacts"/> with <see cref="SessionScripts.ServerFacts"/>.
/// </summary>
public static class ServerRequirements
{
    /// <summary>SQL Server 2016, where backup_restore_progress_trace appeared.</summary>
    public const int MinimumMajorVersion = 13;

    /// <summary>SQL Server 2022, which split the event-session and server-state permissions.</summary>
    public const int GranularPermissionsMajorVersion = 16;

    public const string AlterAnyEventSession = "ALTER ANY EVENT SESSION";
    public const string CreateAnyEventSession = "CREATE ANY EVENT SESSION";
    public const string ViewServerState = "VIEW SERVER STATE";
    public const string ViewServerPerformanceState = "VIEW SERVER PERFORMANCE STATE";

    private const int AzureSqlDatabaseEngineEdition = 5;

    /// <summary>Every unmet requirement; empty when BackupXe can capture.</summary>
    public static IReadOnlyList<RequirementProblem> Check(ServerFacts facts)
    {
        ArgumentNullException.ThrowIfNull(facts);
        // First: Azure SQL Database reports major version 12, where the errorlog advice would be wrong too.
        if (facts.EngineEdition == AzureSqlDatabaseEngineEdition)
        {
            return
            [
                new RequirementProblem(
                    RequirementKind.UnsupportedPlatform,
                    "Azure SQL Database only has database-scoped event sessions, and BACKUP/RESTORE are not run by users there; BackupXe needs SQL Server 2016+ or Azure SQL Managed Instance."),
            ];
        }

        if (facts.ProductMajorVersion < MinimumMajorVersion)
        {
            // Permission advice for a session that cannot exist would only mislead: the version is the whole answer.
            return [new RequirementProblem(RequirementKind.VersionTooOld, TooOld(facts))];
        }

        var held = new HashSet<string>(facts.Permissions, StringComparer.OrdinalIgnoreCase);
        var granular = facts.ProductMajorVersion >= GranularPermissionsMajorVersion;
        var problems = new List<RequirementProblem>();

        if (!held.Contains(AlterAnyEventSession) && !(granular && held.Contains(CreateAnyEventSession)))
        {
            problems.Add(Missing(
                AlterAnyEventSession,
                granular ? CreateAnyEventSession : null,
                "to create and start the capture session",
                facts.LoginName));
        }

        if (!held.Contains(ViewServerState) && !(granular && held.Contains(ViewServerPerformanceState)))
        {
            problems.Add(Missing(
                granular ? ViewServerPerformanceState : ViewServerState,
                granular ? ViewServerState : null,
                "to read the session DMVs and stream its events",
                facts.LoginName));
        }

        return problems;
    }

    private static string TooOld(ServerFacts facts)
    {
        var product = ProductNames.For(facts.ProductMajorVersion);
        return $"{product} (major version {facts.ProductMajorVersion}) has no backup_restore_progress_trace event; it arrived in SQL Server 2016. "
            + "Use the errorlog route: run DBCC TRACEON(3004, 3014, 3213, 3605, -1); before the backup or restore "
            + "(3605 sends the output of 3004/3014/3213 to the ERRORLOG), then DBCC TRACEOFF(3004, 3014, 3213, 3605, -1); "
            + "and run `backupxe analyze ERRORLOG` on the instance's ERRORLOG file.";
    }

    private static RequirementProblem Missing(string permission, string? alternative, string purpose, string? login)
    {
        var grantee = login is null ? "[<login>]" : "[" + login.Replace("]", "]]", StringComparison.Ordinal) + "]";
        var either = alternative is null ? string.Empty : $" (or {alternative})";
        return new RequirementProblem(
            RequirementKind.MissingPermission,
            $"Missing permission {permission}{either}, needed {purpose}. Ask an administrator to run: GRANT {permission} TO {grantee};");
    }
}
