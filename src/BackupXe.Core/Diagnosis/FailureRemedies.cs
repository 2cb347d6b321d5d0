using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Diagnosis;

/// <summary>
/// What to do about a failed backup or restore, from its root error and the operating system error inside it, each with
/// the public page it rests on (docs/diagnosis.md, "Failures", lists them). The OS error decides first: it is the
/// cause the engine's own error only reports.
/// </summary>
internal static class FailureRemedies
{
    private const string Troubleshoot = "Microsoft Learn, 'Troubleshoot SQL Server backup and restore operations'";
    private const string SystemErrors = "Microsoft Learn, 'System Error Codes'";
    private const string RecoveryModels = "Microsoft Learn, 'Recovery models (SQL Server)'";
    private const string RestoreStatement = "Microsoft Learn, 'RESTORE Statements - Arguments (Transact-SQL)'";
    private const string UrlPractices = "Microsoft Learn, 'SQL Server back up to URL for Microsoft Azure Blob Storage best practices and troubleshooting'";
    private const string ErrorPages = "Microsoft Learn, 'Database engine events and errors'";
    private const string BackupToUrl = "Microsoft Learn, 'SQL Server backup to URL for Microsoft Azure Blob Storage'";
    private const string S3Url = "Microsoft Learn, 'SQL Server backup to URL for S3-compatible object storage'";
    private const string TheMessage = "the message's own words";
    private const string SingleUser = "Microsoft Learn, 'Set a database to single-user mode'";
    private const string NotUser = "Microsoft Learn, 'MSSQLSERVER_916'";
    private const string BackupStatement = "Microsoft Learn, 'BACKUP (Transact-SQL)'";
    private const string RestoreStatements = "Microsoft Learn, 'RESTORE Statements (Transact-SQL)'";

    /// <summary>Every root error number a remedy is chosen for; the catalog has a row for each (a test holds it).</summary>
    public static IReadOnlyList<int> ErrorNumbers { get; } = [3101, 3117, 3153, 3154, 3159, 3183, 3203, 3241, 3266, 4208, 4214, 4305, 4326, 833, 823, 845, 5159, 3043,
        3035, 3078, 3168, 3271, 924, 916, 911, EngineMessageCatalog.PermissionDenied, 229, EngineMessageCatalog.ClientTimedOut];

    /// <summary>Every OS error code a remedy is chosen for.</summary>
    public static IReadOnlyList<int> OsErrorCodes { get; } = [2, 3, 5, 32, 53, 64, 112, 665, 995, 1117, 1450];

    /// <summary>
    /// The remedy for a failure whose root error is <paramref name="number"/> with <paramref name="os"/> inside it and
    /// <paramref name="text"/> as printed; null when none is known.
    /// </summary>
    public static FailureRemedyReport? For(int number, OsError? os, bool restore, string? text = null)
    {
        if (number == 3271 && EngineMessageCatalog.RefusesExistingBlob(text))
        {
            return new("blob-exists", "The backup to URL found its blob already there and does not overwrite it unless told to: add WITH FORMAT to overwrite it, "
                + "or back up to a new blob name.", BackupToUrl);
        }

        if (number == EngineMessageCatalog.ClientTimedOut)
        {
            return new("client-timeout", "The client's command time-out elapsed before the operation completed (the time-out's own message says so): "
                + "give the client a command time-out longer than the operation takes, or none, and run it again.", TheMessage);
        }

        if (os is { Code: null })
        {
            return new("url-endpoint", "The backup to URL got an exception from the storage endpoint"
                + (os.Text is { } said ? $" ('{said}')" : string.Empty)
                + ": check the credential's secret (a SAS token that has expired or lacks write and list rights, a wrong access key) and the network path to the "
                + "storage account; a time-out on a large backup is eased by striping it over several URLs and MAXTRANSFERSIZE = 4194304 with block blobs.", UrlPractices);
        }

        if (os is { Code: { } code } && ForOsError(code, number) is { } byOs)
        {
            return byOs;
        }

        return number switch
        {
            4208 => new("recovery-model", "The database uses the SIMPLE recovery model, which keeps no log to back up: take BACKUP DATABASE (full or differential) "
                + "instead, or switch it to FULL (ALTER DATABASE ... SET RECOVERY FULL) and take a full backup, which starts the log chain.", RecoveryModels),
            4214 => new("no-full-backup", "A log backup needs a full backup of the database first: take BACKUP DATABASE, which starts the log chain.", RecoveryModels),
            3035 => new("no-full-backup", "A differential backup needs a full backup of the database as its base: take BACKUP DATABASE without WITH DIFFERENTIAL "
                + "first, as the message itself says.", ErrorPages),
            3078 => new("invalid-device-name", "The backup device's name is not valid for its device type: reissue the command with a valid name "
                + "(as the message itself says); a URL is written with its scheme and two slashes, https:// for Azure Blob Storage and s3:// for S3-compatible storage.", S3Url),
            924 => new("single-user-held", "The database is in single-user mode and another connection holds its one connection (a background statistics "
                + "update takes one when AUTO_UPDATE_STATISTICS_ASYNC is ON): find that session (sys.dm_exec_sessions by the database's database_id, or sp_who), "
                + "let it finish or end it, and set the database back to MULTI_USER (ALTER DATABASE ... SET MULTI_USER) unless single-user mode is meant to last; "
                + "else leave that database out of the job while it is in single-user mode.", SingleUser),
            EngineMessageCatalog.PermissionDenied => PermissionDenied(text),
            229 => new("object-permission", "The login that ran the work was denied the permission the message names on the object it names (for "
                + "Ola Hallengren's DatabaseBackup, EXECUTE on the procedure, in the database that holds it): grant it there, or run the work under a "
                + "login that has it. No backup or restore ran.", TheMessage),
            916 => new("no-database-access", "The login that ran the work cannot use the database: give it access there (a user for the login with CONNECT, "
                + "GRANT CONNECT), or run the work under a login that has it.", NotUser),
            911 => new("database-not-found", "No database of that name exists on the server: check the name the work was given (as the message itself says), "
                + "and whether the database was dropped, renamed or is on another instance.", TheMessage),
            3168 => new("other-server-version", "A system database's backup is restored only on a server of the version that wrote it, and the message names "
                + "both versions: restore it on an instance at the backup's version, then update that instance.", TheMessage),
            3117 => new("nothing-to-roll-forward", "No restore had left the database waiting for this log or differential backup (its message: no files are "
                + "ready to roll forward): either an earlier RESTORE in the sequence ran WITH RECOVERY (the default), or no full backup was restored WITH "
                + "NORECOVERY before it (a log or differential backup given first, as if it were a full one). Restart the sequence from the full backup, "
                + "with NORECOVERY on every step but the last.", RestoreStatement),
            3153 => new("already-recovered", "The database was already recovered: an earlier RESTORE in the sequence ran WITH RECOVERY (the default), so no "
                + "later backup can be applied. Restart the sequence from the full backup, with NORECOVERY on every step but the last.", RestoreStatement),
            3101 => new("exclusive-access", "A restore needs the database to itself: close its other connections "
                + "(ALTER DATABASE ... SET SINGLE_USER WITH ROLLBACK IMMEDIATE) and run the restore again.", RestoreStatement),
            3154 => new("other-database", "The backup is of another database than the one restored over: restore it under a new name (with MOVE for its files), "
                + "or WITH REPLACE if overwriting this database is intended.", RestoreStatement),
            3159 => new("tail-log", "The log's tail has not been backed up: take BACKUP LOG ... WITH NORECOVERY first, or restore WITH REPLACE if that work may be lost.", RestoreStatement),
            4305 or 4326 => new("log-chain", "The log backups are not applied in their chain's order: list the sequence (RESTORE HEADERONLY gives each backup's first and last LSN) "
                + "and apply the log backup that follows the last one restored.", RestoreStatement),
            // A failed read with an operating system error this table has no remedy for: that error is the cause, so
            // a damaged file is not assumed (realworld4 V05a: a device error).
            3203 when os is { Code: not null } => null,
            3203 or 3241 or 3266 or 3183 => new("damaged-backup", "The backup file is damaged, incomplete or of a newer version: check it with RESTORE HEADERONLY and RESTORE VERIFYONLY, "
                + "and restore another copy or a newer backup.", ErrorPages),
            845 or 833 or 823 or 5159 => new("storage-stall", restore
                ? "The storage under the database's files stalled or was driven to its limit while the restore wrote them: check its latency, and restore to storage that keeps up (or fewer files at once)."
                : "The storage under the database's files stalled or failed while the backup read them: check its latency and the system event log.", ErrorPages),
            3043 => new("damaged-page", "The backup read a damaged page of the database: run DBCC CHECKDB and repair or restore the page before backing up again.", ErrorPages),
            _ => null,
        };
    }

    // 262 names the permission the statement lacked first: a BACKUP's own, or CREATE DATABASE for a RESTORE of a database
    // that does not exist yet.
    private static FailureRemedyReport PermissionDenied(string? text)
    {
        var said = EngineMessageCatalog.DeniedPermission(text) ?? string.Empty;
        if (said.StartsWith("BACKUP ", StringComparison.OrdinalIgnoreCase))
        {
            return new("backup-permission", "The login that ran the backup lacks the permission the message names in that database. BACKUP DATABASE and "
                + "BACKUP LOG belong to the sysadmin server role and the db_owner and db_backupoperator database roles: add the login's user there to "
                + "db_backupoperator (or GRANT the permission named), or run the backup under a login that has it.", BackupStatement);
        }

        if (said.Equals("CREATE DATABASE", StringComparison.OrdinalIgnoreCase))
        {
            return new("restore-permission", "A restore of a database that does not exist yet creates it, which needs CREATE DATABASE permission "
                + "(the dbcreator server role, or GRANT CREATE ANY DATABASE); restoring over an existing database belongs to sysadmin, dbcreator and the "
                + "database's owner. Grant it, or run the restore under a login that has it.", RestoreStatements);
        }

        return new("missing-permission", "The login that ran the work lacks the permission the message names, in the database it names: grant it "
            + "there, or run the work under a login that has it.", TheMessage);
    }

    private static FailureRemedyReport? ForOsError(int code, int number) => code switch
    {
        2 or 3 => new("path-not-found", "The path does not exist as the server sees it: a backup path is resolved on the server, by the SQL Server service, "
            + "not on the client that sent the command; a drive letter mapped for a user is not seen by the service (use a UNC path).", Troubleshoot),
        5 => new("service-account-permissions", "Access is denied to the SQL Server service account (not to the login that ran the command): grant that account "
            + "read and write on the backup folder or share.", Troubleshoot),
        32 => new("file-in-use", "Another process holds the file open (another backup to the same file, a copy, an antivirus scan): write to a new file name or stop that process.", SystemErrors),
        53 or 64 => new("network-share", "The network path to the share was lost while the backup ran: check the share and the network, or back up to a local disk and copy the file after.", Troubleshoot),
        112 => new("disk-space", number is 3257
            ? "The volume has not enough free space for the restored files: free space, or restore with MOVE to a larger volume."
            : "The target ran out of space: free space on it, compress the backup, or stripe it over several volumes.", Troubleshoot),
        665 => new("file-system-limitation", "The file system could not grow the file (a heavily fragmented or compressed NTFS file): write to a new file on an uncompressed volume.", SystemErrors),
        995 => new("aborted-by-application", "The I/O was aborted at the application's request: for a backup through VDI (a third-party backup tool or snapshot requestor) "
            + "the tool ended it, and its own log says why.", Troubleshoot),
        1117 => new("io-device-error", "The storage reported an I/O device error: check the volume's hardware and the system event log.", SystemErrors),
        1450 => new("system-resources", "The operating system lacked a kernel resource for the I/O (non-paged memory for large transfers): use fewer or smaller buffers "
            + "(BUFFERCOUNT, MAXTRANSFERSIZE) and check the server's memory.", Troubleshoot),
        _ => null,
    };
}
