using BackupXe.Core.Events;

namespace BackupXe.Core.Diagnosis;

/// <summary>
/// The read-only checks two remedies print, in the form the input's server can run: the catalog columns they rest on
/// arrived in service packs (docs/diagnosis.md, "Remedies for the input's server"). Each gives a sentence for the
/// remedy's text (empty when the usual form fits) and the T-SQL.
/// </summary>
internal static class ServerChecks
{
    // sys.dm_server_services.instant_file_initialization_enabled: SQL Server 2012 SP4 (11.0.7001) and 2016 SP1 (13.0.4001) on.
    private static bool? HasIfiColumn(ServerVersion server) => server.Major switch
    {
        >= 14 => true,
        13 => server.IsAtLeast(13, 0, 4001),
        11 => server.IsAtLeast(11, 0, 7001),
        _ => false,
    };

    // The "Database Instant File Initialization: enabled/disabled" startup message: 2012 SP4, 2014 SP2 (12.0.5000) and 2016 on.
    private static bool? HasIfiStartupMessage(ServerVersion server) => server.Major switch
    {
        >= 13 => true,
        12 => server.IsAtLeast(12, 0, 5000),
        11 => server.IsAtLeast(11, 0, 7001),
        _ => false,
    };

    // sys.dm_os_volume_stats: SQL Server 2008 R2 SP1 (10.50.2500) and later.
    private static bool? HasVolumeStats(ServerVersion server) => server.Major switch
    {
        >= 11 => true,
        10 => server.IsAtLeast(10, 50, 2500),
        _ => false,
    };

    private const string IfiColumnQuery = "SELECT servicename, service_account, instant_file_initialization_enabled\n"
        + "FROM sys.dm_server_services;";

    private const string IfiStartupMessageQuery = "EXEC sys.xp_readerrorlog 0, 1, N'Database Instant File Initialization';";

    private const string IfiColumnVersions = "SQL Server 2012 SP4, 2016 SP1 and later";

    private const string IfiMessageVersions = "2012 SP4, 2014 SP2, 2016 and later";

    /// <summary>
    /// How to see whether the service runs with Instant File Initialization, on <paramref name="server"/>;
    /// <paramref name="dataZeroedSeen"/>: the input itself shows a data file zeroed.
    /// </summary>
    public static (string Sentence, string Tsql) InstantFileInitialization(ServerVersion? server, bool dataZeroedSeen)
    {
        if (server is null)
        {
            return ($" The check reads sys.dm_server_services.instant_file_initialization_enabled ({IfiColumnVersions}); "
                    + $"the input does not say its server, so the T-SQL also gives the errorlog's startup message ({IfiMessageVersions}) for an older one.",
                $"-- {IfiColumnVersions}:\n{IfiColumnQuery}\n"
                + $"-- older builds: the startup message in the current errorlog ({IfiMessageVersions})\n-- {IfiStartupMessageQuery}");
        }

        var column = HasIfiColumn(server);
        if (column == true)
        {
            return ("", IfiColumnQuery);
        }

        var message = HasIfiStartupMessage(server);
        var described = server.Described;
        if (column is null)
        {
            return ($" This server is {described}, which does not say its service pack: instant_file_initialization_enabled needs {IfiColumnVersions}; "
                    + (message == true ? "without it, the errorlog's startup message says the same." : $"without it, the errorlog's startup message ({IfiMessageVersions}) says the same."),
                $"-- {IfiColumnVersions}:\n{IfiColumnQuery}\n-- before that service pack: the startup message in the current errorlog\n-- {IfiStartupMessageQuery}");
        }

        if (message is true or null)
        {
            return ($" This server is {described}: it has no instant_file_initialization_enabled column ({IfiColumnVersions}), "
                    + "but it writes \"Database Instant File Initialization: enabled\" (or \"disabled\") to the errorlog when it starts"
                    + (message is null ? $" from SQL Server 2014 SP2 on, which this input does not tell apart" : "")
                    + ": the T-SQL reads the current errorlog; if it was cycled since the last start, read the older ones (first argument 1, 2 ...).",
                $"-- the startup message ({IfiMessageVersions}): 'enabled' or 'disabled'\n{IfiStartupMessageQuery}");
        }

        // Nothing reports it: what trace flag 3004 writes for a file being created tells (a data file zeroed: off).
        var scratch = Tsql.Name("BackupXe_ifi_check");
        return ($" This server is {described}: it reports Instant File Initialization nowhere (the column needs {IfiColumnVersions}, "
                + $"the startup message {IfiMessageVersions}). Trace flag 3004 writes each file zeroing to the errorlog (3605): "
                + "create a scratch database and read what was zeroed; a data file (.mdf) zeroed means it is off, only the log means it is on."
                + (dataZeroedSeen ? " This restore's own messages already show a data file zeroed: it was off for it (or prevented by TDE); the check tells after the change." : ""),
            "-- trace flags 3004 (file zeroing) and 3605 (to the errorlog), around a scratch database; needs sysadmin\n"
            + "DBCC TRACEON (3004, 3605, -1);\n"
            + $"CREATE DATABASE {scratch};\n"
            + "DBCC TRACEOFF (3004, 3605, -1);\n"
            + (server.Major >= ServerVersion.FirstWithCatalogViews
                ? "EXEC sys.xp_readerrorlog 0, 1, N'Zeroing', N'BackupXe_ifi_check';    -- its .mdf zeroed: IFI off; only its _log.ldf: IFI on\n"
                : "EXEC master.dbo.xp_readerrorlog;    -- its 'Zeroing' lines: the .mdf zeroed means IFI is off\n")
            + $"DROP DATABASE {scratch};");
    }

    /// <summary>Which volume each data file of <paramref name="database"/> is on, on <paramref name="server"/>.</summary>
    public static (string Sentence, string Tsql) DataFileVolumes(ServerVersion? server, string? database)
    {
        var literal = Tsql.Literal(database ?? Tsql.UnknownDatabase);
        var withVolumes = "SELECT f.name, f.physical_name, v.volume_mount_point, f.size / 128 AS size_mb\n"
            + "FROM sys.master_files AS f\n"
            + "CROSS APPLY sys.dm_os_volume_stats(f.database_id, f.file_id) AS v\n"
            + $"WHERE f.database_id = DB_ID({literal}) AND f.type = 0;";
        var byPath = server is { Major: < ServerVersion.FirstWithCatalogViews }
            ? $"SELECT name, filename, size / 128 AS size_mb\nFROM master.dbo.sysaltfiles\nWHERE dbid = DB_ID({literal}) AND groupid <> 0;"
            : $"SELECT name, physical_name, size / 128 AS size_mb\nFROM sys.master_files\nWHERE database_id = DB_ID({literal}) AND type = 0;";
        const string drives = "EXEC master.dbo.xp_fixeddrives;    -- free MB per drive letter (mount points are not listed)";
        if (server is null)
        {
            return (" The T-SQL uses sys.dm_os_volume_stats (SQL Server 2008 R2 SP1 and later); the input does not say its server, "
                    + "so it also gives the form for an older one, where the volume is the start of each file's path.",
                $"-- the data files and the volume each one is on (SQL Server 2008 R2 SP1 and later)\n{withVolumes}\n"
                + $"-- older builds: the volume is the start of physical_name\n-- {byPath.Replace("\n", "\n-- ", StringComparison.Ordinal)}");
        }

        var volumes = HasVolumeStats(server);
        if (volumes == true)
        {
            return ("", $"-- the data files and the volume each one is on\n{withVolumes}");
        }

        if (volumes is null)
        {
            return ($" This server is {server.Described}, which does not say its service pack: sys.dm_os_volume_stats needs SQL Server 2008 R2 SP1; before it, the volume is the start of each file's path.",
                $"-- the data files and the volume each one is on (SQL Server 2008 R2 SP1 and later)\n{withVolumes}\n"
                + $"-- before SP1: the volume is the start of physical_name, and free space per drive\n-- {byPath.Replace("\n", "\n-- ", StringComparison.Ordinal)}\n-- {drives}");
        }

        return ($" This server is {server.Described}: it has no sys.dm_os_volume_stats (SQL Server 2008 R2 SP1 and later), "
                + "so the T-SQL lists each data file's path, whose start is its volume, and the free space per drive letter.",
            $"-- the data files; each one's volume is the start of its path\n{byPath}\n{drives}");
    }
}
