namespace BackupXe.SqlServer.Requirements;

/// <summary>
/// The rules a server and login must meet before BackupXe creates or streams its session (docs/permissions.md,
/// docs/server-conformance.md). Pure: a client gathers <see cref="ServerFacts"/> with <see cref="Sessions.SessionScripts.ServerFacts"/>.
/// </summary>
internal static class ServerRequirements
{
    /// <summary>SQL Server 2016, where backup_restore_progress_trace appeared.</summary>
    public const int MinimumMajorVersion = 13;

    /// <summary>SQL Server 2022, which split the event-session and server-state permissions.</summary>
    public const int GranularPermissionsMajorVersion = 16;

    public const string AlterAnyEventSession = "ALTER ANY EVENT SESSION";
    public const string CreateAnyEventSession = "CREATE ANY EVENT SESSION";

    /// <summary>SQL Server 2022+: DROP EVENT SESSION also accepts it instead of ALTER ANY EVENT SESSION.</summary>
    public const string DropAnyEventSession = "DROP ANY EVENT SESSION";

    /// <summary>SQL Server 2022+: ALTER EVENT SESSION ... STATE = START also accepts it.</summary>
    public const string AlterAnyEventSessionEnable = "ALTER ANY EVENT SESSION ENABLE";

    /// <summary>SQL Server 2022+: ALTER EVENT SESSION ... STATE = STOP also accepts it.</summary>
    public const string AlterAnyEventSessionDisable = "ALTER ANY EVENT SESSION DISABLE";
    public const string ViewServerState = "VIEW SERVER STATE";
    public const string ViewServerPerformanceState = "VIEW SERVER PERFORMANCE STATE";

    /// <summary>SERVERPROPERTY('EngineEdition') of Azure SQL Database.</summary>
    public const int AzureSqlDatabaseEngineEdition = 5;

    /// <summary>SERVERPROPERTY('EngineEdition') of Azure SQL Managed Instance.</summary>
    public const int ManagedInstanceEngineEdition = 8;

    /// <summary>
    /// Whether the 2022 permission split applies: SQL Server 2022+, and Managed Instance, whose event-session pages
    /// list the same permissions.
    /// </summary>
    public static bool HasGranularPermissions(ServerFacts facts)
    {
        ArgumentNullException.ThrowIfNull(facts);
        return facts.ProductMajorVersion >= GranularPermissionsMajorVersion || facts.EngineEdition == ManagedInstanceEngineEdition;
    }

    /// <summary>
    /// Every unmet requirement for installing and reading the session; empty when BackupXe can capture. With
    /// <paramref name="replacesSession"/> the install drops an existing session first, which needs its own
    /// permission on SQL Server 2022+ (DROP EVENT SESSION). Checked before any DDL, so a login that would fail
    /// half-way is refused with the GRANT instead.
    /// </summary>
    /// <param name="eventFilePath">The event_file target's file; on Managed Instance it must be an https:// blob URL.</param>
    public static IReadOnlyList<RequirementProblem> Check(ServerFacts facts, bool replacesSession = false, string? eventFilePath = null)
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

        var managedInstance = facts.EngineEdition == ManagedInstanceEngineEdition;
        if (managedInstance && eventFilePath is not null && !eventFilePath.StartsWith("https://", StringComparison.OrdinalIgnoreCase))
        {
            return
            [
                new RequirementProblem(
                    RequirementKind.UnsupportedPlatform,
                    $"Azure SQL Managed Instance writes event files only to Azure Blob Storage: '{eventFilePath}' is not an https:// URL. "
                    + "Give --file-path https://<account>.blob.core.windows.net/<container>/BackupXe.xel, with a credential for the container on the instance."),
            ];
        }

        // Managed Instance reports Azure's version numbers, which say nothing about its features.
        if (!managedInstance && facts.ProductMajorVersion < MinimumMajorVersion)
        {
            // Permission advice for a session that cannot exist would only mislead: the version is the whole answer.
            return [new RequirementProblem(RequirementKind.VersionTooOld, TooOld(facts))];
        }

        var held = new HashSet<string>(facts.Permissions, StringComparer.OrdinalIgnoreCase);
        var granular = HasGranularPermissions(facts);
        var problems = new List<RequirementProblem>();

        if (!held.Contains(AlterAnyEventSession) && !(granular && held.Contains(CreateAnyEventSession)))
        {
            problems.Add(Missing(
                AlterAnyEventSession,
                granular ? CreateAnyEventSession : null,
                "to create and start the capture session",
                facts.LoginName));
        }
        else if (granular && !held.Contains(AlterAnyEventSession))
        {
            // CREATE ANY EVENT SESSION alone: the 2022 permissions split CREATE, DROP and START (ENABLE) apart.
            if (replacesSession && !held.Contains(DropAnyEventSession))
            {
                problems.Add(Missing(DropAnyEventSession, AlterAnyEventSession, "to drop the existing session before re-creating it", facts.LoginName));
            }

            if (!held.Contains(AlterAnyEventSessionEnable))
            {
                problems.Add(Missing(AlterAnyEventSessionEnable, AlterAnyEventSession, "to start the capture session", facts.LoginName));
            }
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

    /// <summary>
    /// What stopping (when <paramref name="running"/>) and dropping the session need: ALTER ANY EVENT SESSION, or on
    /// SQL Server 2022+ DROP ANY EVENT SESSION plus ALTER ANY EVENT SESSION DISABLE to stop it first.
    /// </summary>
    public static IReadOnlyList<RequirementProblem> CheckUninstall(ServerFacts facts, bool running)
    {
        ArgumentNullException.ThrowIfNull(facts);
        var held = new HashSet<string>(facts.Permissions, StringComparer.OrdinalIgnoreCase);
        if (held.Contains(AlterAnyEventSession))
        {
            return [];
        }

        if (!HasGranularPermissions(facts))
        {
            return [Missing(AlterAnyEventSession, null, "to stop and drop the capture session", facts.LoginName)];
        }

        var problems = new List<RequirementProblem>();
        if (running && !held.Contains(AlterAnyEventSessionDisable))
        {
            problems.Add(Missing(AlterAnyEventSessionDisable, AlterAnyEventSession, "to stop the capture session", facts.LoginName));
        }

        if (!held.Contains(DropAnyEventSession))
        {
            problems.Add(Missing(DropAnyEventSession, AlterAnyEventSession, "to drop the capture session", facts.LoginName));
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
