using System.Globalization;
using BackupXe.Core.Events;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Diagnosis;

/// <summary>What in an operation shows a documented defect's symptom.</summary>
public enum DefectSymptom
{
    /// <summary>A restore failed with one of the defect's error numbers.</summary>
    RestoreFailedWithError,

    /// <summary>A restore failed, whatever the error (the page names no number).</summary>
    RestoreFailed,

    /// <summary>A backup or restore of a compressed backup failed.</summary>
    CompressedOperationFailed,

    /// <summary>A restore that took long for its size: any verdict other than fine.</summary>
    SlowRestore,

    /// <summary>A message BackupXe does not read yet: only <c>check</c> lists the defect, for the server's build.</summary>
    NotReadYet,
}

/// <summary>
/// One backup or restore defect Microsoft documents, with the builds it affects: <see cref="Major"/>.<see cref="Minor"/>
/// from build <see cref="FirstBuild"/> up to, not including, <see cref="FixedBuild"/> (null: the page names no fixed build
/// of that release, so every build from the first is affected). docs/known-issues.md holds the same rows in words.
/// </summary>
public sealed record KnownDefect(
    string Id,
    int Major,
    int Minor,
    int FirstBuild,
    int? FixedBuild,
    string FixedIn,
    string Page,
    string Symptom,
    DefectSymptom Evidence,
    IReadOnlyList<int> ErrorNumbers,
    string? Workaround = null)
{
    /// <summary>"fixed in SQL Server 2019 CU16 (15.0.4223.1)", or the page's workaround where no update fixes it.</summary>
    public string Remedy => Workaround is { } workaround ? $"no update fixes it; the page's workaround: {workaround}" : $"fixed in {FixedIn}";

    /// <summary>"SQL Server 2019 builds 15.0.2000 to before 15.0.4223".</summary>
    public string Affected => string.Create(CultureInfo.InvariantCulture,
        $"{ServerVersion.ProductName(Major, Minor)} builds {Major}.{Minor}.{FirstBuild}{(FixedBuild is { } fixedBuild ? $" to before {Major}.{Minor}.{fixedBuild}" : " and later")}");

    /// <summary>True when <paramref name="server"/>'s build is in the affected range; null when its build is not known.</summary>
    public bool? Affects(ServerVersion? server)
    {
        if (server is null || server.Major != Major || server.Minor != Minor)
        {
            return server is null ? null : false;
        }

        var from = server.IsAtLeast(Major, Minor, FirstBuild);
        var fixedAlready = FixedBuild is { } fixedBuild ? server.IsAtLeast(Major, Minor, fixedBuild) : false;
        return from is null || fixedAlready is null ? null : from.Value && !fixedAlready.Value;
    }

    /// <summary>Whether <paramref name="operation"/> shows this defect's symptom (the build aside).</summary>
    public bool ShownBy(OperationReport operation, Verdict verdict)
    {
        ArgumentNullException.ThrowIfNull(operation);
        var restore = operation.Kind == OperationKind.Restore;
        var failed = operation.Status == OperationStatus.Failed;
        return Evidence switch
        {
            DefectSymptom.RestoreFailedWithError => restore && failed && operation.FailureError is { } error && ErrorNumbers.Contains(error.Number),
            DefectSymptom.RestoreFailed => restore && failed,
            DefectSymptom.CompressedOperationFailed => failed && (operation.Options?.Compression ?? operation.Requested?.Compression) == true,
            DefectSymptom.SlowRestore => restore && !failed && verdict.Bottleneck is not (Bottleneck.None or Bottleneck.NotAThroughputProblem or Bottleneck.CannotTell),
            _ => false,
        };
    }
}

/// <summary>
/// The catalog of docs/known-issues.md: backup and restore defects from Microsoft's knowledge-base and cumulative-update
/// pages. <c>analyze</c> (and so <c>watch</c> and the daemon) names one only when the input's server build is known to be
/// affected and the operation shows the symptom; <c>check</c> lists those that apply to the connected server's build.
/// </summary>
public static class KnownDefects
{
    /// <summary>Every row, in the order of docs/known-issues.md.</summary>
    public static IReadOnlyList<KnownDefect> All { get; } =
    [
        new("tde-compressed-restore-3241", 15, 0, 0, 4223, "SQL Server 2019 CU16 (15.0.4223.1)",
            "KB5014298, \"FIX: Error 3241 occurs during executing RESTORE DATABASE or RESTORE LOG\"",
            "restoring a compressed backup of a TDE database fails with error 3241 (media family incorrectly formed); the backup must be taken again on the fixed build",
            DefectSymptom.RestoreFailedWithError, [3241]),
        new("tde-compressed-new-format", 15, 0, 0, 4223, "SQL Server 2019 CU16 (15.0.4223.1)",
            "KB5014298, \"FIX: Error 3241 occurs during executing RESTORE DATABASE or RESTORE LOG\" (More information)",
            "a compressed TDE backup taken on CU16 or later uses a new format: restoring it on CU15 or earlier fails with error 9004 (RESTORE DATABASE) or an assertion, error 3624 (RESTORE LOG)",
            DefectSymptom.RestoreFailedWithError, [9004, 3624]),
        new("tde-compressed-2017-cu16", 14, 0, 3223, 3224, "a later SQL Server 2017 CU (the page names none); or restore on CU15",
            "KB4508218, \"Cumulative Update 16 for SQL Server 2017\" (the note at its top)",
            "single-stripe compressed backups of TDE databases taken on SQL Server 2017 CU7 to CU12 cannot be restored on CU16",
            DefectSymptom.RestoreFailed, []),
        new("tde-compressed-2016-sp1", 13, 0, 4001, 4446, "SQL Server 2016 SP1 CU4 (13.0.4446.0)",
            "Microsoft SQL Server blog, \"Backup Compression for TDE-enabled Databases: Important fixes in SQL 2016 SP1 CU4 and SQL 2016 RTM CU7\" (no KB number)",
            "compressed backups of TDE databases with MAXTRANSFERSIZE over 64 KB can fail to back up or restore when striped, with CHECKSUM, WITH INIT or with VLFs over 4 GB",
            DefectSymptom.CompressedOperationFailed, []),
        new("vlf-slow-restore-2012", 11, 0, 2100, 2316, "SQL Server 2012 CU1 (11.0.2316.0)",
            "KB2653893, \"FIX: It takes a long time to restore a database in SQL Server 2008 R2 or in SQL Server 2008 or in SQL 2012\"",
            "a restore is slow because building the list of the log's virtual log files (VLFs) takes long when there are many",
            DefectSymptom.SlowRestore, []),
        new("vlf-slow-recovery-2008r2", 10, 50, 1600, 1765, "SQL Server 2008 R2 CU6 (10.50.1765.0)",
            "KB2455009, \"FIX: Slow performance when you recover a database if there are many VLFs inside the transaction log in SQL Server 2005, in SQL Server 2008 or in SQL Server 2008 R2\"",
            "recovery, and a restore of a full backup followed by log backups, is slow when the log grew in many small increments (many VLFs)",
            DefectSymptom.SlowRestore, []),
        new("buffer-pool-scan-2016", 13, 0, 0, null, "SQL Server 2022 (16.x), which scans the buffer pool in parallel",
            "KB4566579, \"Operations that trigger a buffer pool scan may run slowly on large-memory computers\"",
            "on a server with 1 TB of memory or more, a full or differential backup and every restore first scan the whole buffer pool; SQL Server 2016 SP3, 2017 CU23 and 2019 CU9 log \"Buffer Pool scan took N seconds\" when it takes 10 s or more",
            DefectSymptom.NotReadYet, []),
        new("buffer-pool-scan-2017", 14, 0, 0, null, "SQL Server 2022 (16.x), which scans the buffer pool in parallel",
            "KB4566579, \"Operations that trigger a buffer pool scan may run slowly on large-memory computers\"",
            "on a server with 1 TB of memory or more, a full or differential backup and every restore first scan the whole buffer pool",
            DefectSymptom.NotReadYet, []),
        new("buffer-pool-scan-2019", 15, 0, 0, null, "SQL Server 2022 (16.x), which scans the buffer pool in parallel",
            "KB4566579, \"Operations that trigger a buffer pool scan may run slowly on large-memory computers\"",
            "on a server with 1 TB of memory or more, a full or differential backup and every restore first scan the whole buffer pool",
            DefectSymptom.NotReadYet, []),
        new("tde-compressed-log-misaligned-io-2019", 15, 0, 0, 4223, "SQL Server 2019 CU16 (15.0.4223.1)",
            "KB5011644, \"Cumulative Update 16 for SQL Server 2019\" (fix 14235719)",
            "restoring log backups from a compressed backup of a TDE database can fall back to synchronous I/O, and the ERRORLOG says \"There have been N misaligned log IOs which required falling back to synchronous IO\"",
            DefectSymptom.NotReadYet, []),
        new("vdi-compressed-filestream-3241-2019", 15, 0, 0, 4223, "SQL Server 2019 CU16 (15.0.4223.1)",
            "KB5011644, \"Cumulative Update 16 for SQL Server 2019\" (fix 14573042)",
            "restoring a compressed backup that holds FILESTREAM data through a VDI client (a third-party backup tool) fails at random with error 3241 (media family incorrectly formed)",
            DefectSymptom.NotReadYet, []),
        new("vss-freeze-never-thawed-2019", 15, 0, 0, 4223, "SQL Server 2019 CU16 (15.0.4223.1)",
            "KB5011644, \"Cumulative Update 16 for SQL Server 2019\" (fix 14332258)",
            "a VSS (snapshot) backup freezes a database's I/O and never thaws it, so latch timeouts follow",
            DefectSymptom.NotReadYet, []),
        new("backup-pfs-nonyielding-2019", 15, 0, 0, 4223, "SQL Server 2019 CU16 (15.0.4223.1)",
            "KB5011644, \"Cumulative Update 16 for SQL Server 2019\" (fix 14618099)",
            "a backup meets concurrent Page Free Space (PFS) updates and the scheduler stops yielding: a \"Non-yielding Scheduler\" dump during the backup",
            DefectSymptom.NotReadYet, []),
        new("vdi-striped-delayed-log-pinning-2019", 15, 0, 0, null, "no update",
            "Microsoft support article \"Backing up a SQL Server database using a VDI application with multi-striping may fail with error 3456\"",
            "restoring a full or differential backup written by a VDI client over several stripes fails with error 3456 (could not redo log record): from SQL Server 2019 a full backup can hold a page twice (delayed log pinning), which some VDI clients return out of order",
            DefectSymptom.RestoreFailedWithError, [3456],
            "trace flag 3471 (full backups) or 3475 (differential backups) as a startup parameter, then a restart, then a new backup"),
        new("vdi-striped-delayed-log-pinning-2022", 16, 0, 0, null, "no update",
            "Microsoft support article \"Backing up a SQL Server database using a VDI application with multi-striping may fail with error 3456\"",
            "restoring a full or differential backup written by a VDI client over several stripes fails with error 3456 (could not redo log record): from SQL Server 2019 a full backup can hold a page twice (delayed log pinning), which some VDI clients return out of order",
            DefectSymptom.RestoreFailedWithError, [3456],
            "trace flag 3471 (full backups) or 3475 (differential backups) as a startup parameter, then a restart, then a new backup"),
        new("url-tls12-2016-sp1", 13, 0, 4001, 4446, "SQL Server 2016 SP1 CU4 (13.0.4446.0)",
            "KB4017023, \"FIX: SQL Server 2014 or 2016 Backup to Microsoft Azure Blob storage service URL isn't compatible for TLS 1.2\"",
            "a backup to an Azure Blob Storage URL fails where the storage account requires TLS 1.2",
            DefectSymptom.NotReadYet, []),
        new("ag-secondary-log-backup-2016-sp1", 13, 0, 4001, 4446, "SQL Server 2016 SP1 CU4 (13.0.4446.0)",
            "KB4017080, \"FIX: Transaction log backup failure on the secondary replica in SQL Server Always-On Availability Groups\"",
            "a transaction log backup taken on a secondary replica of an availability group fails",
            DefectSymptom.NotReadYet, []),
        new("tde-large-backup-assertion-2016-sp1", 13, 0, 4001, 4446, "SQL Server 2016 SP1 CU4 (13.0.4446.0)",
            "KB4024868, \"FIX: Assertion failure when backing up large TDE encrypted database in SQL Server\"",
            "backing up a large TDE-encrypted database fails with an assertion",
            DefectSymptom.NotReadYet, []),
    ];

    /// <summary>The defects whose affected builds include <paramref name="server"/>'s (none when its build is unknown).</summary>
    public static IReadOnlyList<KnownDefect> For(ServerVersion? server) => [.. All.Where(d => d.Affects(server) == true)];

    /// <summary>The defects this operation shows on an affected build: both must hold.</summary>
    public static IReadOnlyList<KnownDefect> ShownBy(OperationReport operation, Verdict verdict)
    {
        ArgumentNullException.ThrowIfNull(operation);
        return [.. For(operation.Server).Where(d => d.ShownBy(operation, verdict))];
    }

    /// <summary>"known defect, fixed in SQL Server 2019 CU16 (15.0.4223.1) (KB5014298, ...)": the sentence analyze and check print.</summary>
    public static string Sentence(KnownDefect defect)
    {
        ArgumentNullException.ThrowIfNull(defect);
        return $"Known defect, {defect.Remedy} ({defect.Page}): {defect.Symptom}. Affected: {defect.Affected} (docs/known-issues.md).";
    }
}
