using System.Text.Json.Serialization;
using BackupXe.Core.Events;
using BackupXe.Core.Formatting;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.History;

/// <summary>Where a history record came from (docs/history.md lists what each one knows and its precision).</summary>
public enum HistorySource
{
    /// <summary>msdb.dbo.backupset / backupmediafamily: whole-second times, sizes, no BUFFERCOUNT/MAXTRANSFERSIZE.</summary>
    Msdb,

    /// <summary>Ola Hallengren's dbo.CommandLog: the command text and its datetime2 start/end, no sizes.</summary>
    CommandLog,

    /// <summary>An Ola Hallengren SQL Agent job output file: the command, whole-second times, the engine's messages.</summary>
    OlaOutput,

    /// <summary>An operation BackupXe captured itself (XE session or ERRORLOG trace flags).</summary>
    Capture,

    /// <summary>
    /// A RESTORE HEADERONLY result saved as text: the backup set's own header, the same facts as msdb (whole-second
    /// times, sizes, device type) read from the media, without the device's path.
    /// </summary>
    BackupHeader,
}

/// <summary>
/// One backup or restore as the history knows it, possibly merged from several sources. Times are those of
/// the server (local time for msdb, CommandLog and job output; UTC for XE captures: the Kind says which).
/// </summary>
public sealed record HistoryOperation
{
    public required OperationKind Kind { get; init; }
    public required OperationScope Scope { get; init; }
    public string? Database { get; init; }
    public required DateTime Start { get; init; }
    public DateTime? End { get; init; }

    /// <summary>The precision of <see cref="Start"/> and <see cref="End"/>, in seconds (1 for msdb and job output).</summary>
    public required double TimeResolutionSeconds { get; init; }

    /// <summary>The engine's own elapsed time ("processed N pages in 12.345 seconds"), to the millisecond, when a source had it.</summary>
    public double? EngineSeconds { get; init; }

    public required OperationStatus Status { get; init; }

    /// <summary>Bytes read from the database (msdb backup_size, or pages x 8 KB from the engine's message).</summary>
    public long? BytesRead { get; init; }

    /// <summary>Bytes written to the backup (msdb compressed_backup_size; equal to backup_size when uncompressed).</summary>
    public long? BytesWritten { get; init; }

    /// <summary>Log bytes within a full backup (the engine's "log size = N bytes" estimate), when a capture had it.</summary>
    public long? LogBytes { get; init; }

    public IReadOnlyList<BackupDevice> Devices { get; init; } = [];

    /// <summary>Options from the command text when a source had it; msdb's own facts are merged in (compression, checksum, copy-only, algorithm).</summary>
    public HistoryOptions Options { get; init; } = new();

    public string? ErrorMessage { get; init; }

    /// <summary>
    /// A snapshot backup: the storage copied the data while the database's writes were frozen, so its size over its time
    /// (a whole database in 0 s, or 0 pages) is no transfer speed. Set when a capture saw the snapshot.
    /// </summary>
    public bool Snapshot { get; init; }

    /// <summary>
    /// A restore's redo (rolling the log it holds forward), in seconds, from a capture's phases; null when no source
    /// measured it (msdb, CommandLog and job output do not). Left out of the stored JSON when null.
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public double? RedoSeconds { get; init; }

    /// <summary>A restore's recovery (undo of the open transactions, bringing the database online), in seconds, from a capture's phases; null when not measured.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public double? RecoverySeconds { get; init; }

    /// <summary>
    /// The version of SQL Server that ran it, as major.minor.build ("16.0.4135"): msdb's software_*_version, RESTORE
    /// HEADERONLY's SoftwareVersion*, a capture's version banner; null when no source said. A "what changed" factor.
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? ServerBuild { get; init; }

    /// <summary>The server's local time minus UTC when the source says (msdb backupset.time_zone), so local times can meet UTC captures.</summary>
    public TimeSpan? UtcOffset { get; init; }

    /// <summary>
    /// The backup's log sequence numbers (msdb backupset's first_lsn, last_lsn, database_backup_lsn, checkpoint_lsn; RESTORE
    /// HEADERONLY's FirstLSN...), which link it into its restore chain; null when no source had them (docs/restore-chain.md).
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public BackupLsns? Lsns { get; init; }

    /// <summary>The database's recovery model when the backup was taken (FULL, BULK_LOGGED, SIMPLE), as msdb or the media said; null: not said.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? RecoveryModel { get; init; }

    /// <summary>
    /// Which database the backup is of, beyond its name (docs/fleet.md, "Availability groups"): msdb's family_guid and
    /// database_guid, and the availability group's group_database_id read from sys.databases; null when no source had them.
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public DatabaseIdentity? Identity { get; init; }

    /// <summary>Every source that contributed, in <see cref="HistorySource"/> order.</summary>
    public IReadOnlyList<HistorySource> Sources { get; init; } = [];

    /// <summary>The best elapsed time: the engine's own figure when known, else end - start.</summary>
    public double? DurationSeconds => EngineSeconds ?? (End is { } end ? Math.Max(0, (end - Start).TotalSeconds) : null);

    /// <summary>How uncertain <see cref="DurationSeconds"/> is: 1 ms for the engine's figure, else the time resolution.</summary>
    public double DurationResolutionSeconds => EngineSeconds is not null ? 0.001 : TimeResolutionSeconds;

    /// <summary>MB/s of data read (SQL Server's MB: 1,048,576 bytes); null without a size or with zero duration.</summary>
    public double? ThroughputMBps
        => BytesRead is { } bytes && DurationSeconds is { } seconds && seconds > 0 ? bytes / 1048576.0 / seconds : null;

    /// <summary>Bytes read / bytes written: 1 for an uncompressed backup.</summary>
    public double? CompressionRatio
        => BytesRead is { } read && BytesWritten is { } written && written > 0 ? (double)read / written : null;

    /// <summary>The operation as an <see cref="OperationReport"/>, for the history table's report column and the regression rule.</summary>
    public OperationReport ToReport() => new()
    {
        Kind = Kind,
        Scope = Scope,
        Database = Database,
        Start = Start,
        End = End,
        Status = Status,
        DurationSeconds = DurationSeconds,
        BytesProcessed = BytesRead,
        EstimatedLogBytes = LogBytes,
        ThroughputMBps = ThroughputMBps,
        Devices = Devices.Where(d => d.Path is not null).Select(d => new DeviceReport(d.Path!)).ToList(),
        BufferConfig = Options.BufferCount is not null || Options.MaxTransferSizeBytes is not null
            ? new BufferConfigReport { BufferCount = Options.BufferCount, MaxTransferSizeBytes = Options.MaxTransferSizeBytes }
            : null,
        Options = new OptionsReport(Options.Checksum, Options.Compression, Options.Encryption),
        FailureReason = ErrorMessage,
    };

    /// <summary>
    /// An operation BackupXe analysed itself (source <see cref="HistorySource.Capture"/>); null without a start time, and
    /// for an operation whose kind the input did not say (a history series is one kind).
    /// </summary>
    public static HistoryOperation? FromReport(OperationReport report)
    {
        if (report.Kind == OperationKind.Unknown)
        {
            return null;
        }

        // Client output has no server clock; a job's own "Date and time:" lines (its client span) place it in time instead.
        DateTime start;
        DateTime? end;
        double resolution;
        if (report.Start is { } serverStart)
        {
            (start, end, resolution) = (serverStart, report.End, 0.001);
        }
        else if (report.ClientCommand is { } span)
        {
            (start, end, resolution) = (span.Start, span.End, span.ResolutionSeconds);
        }
        else
        {
            return null;
        }

        // The server's own figures first; the command's requested devices and options when the server named none.
        var devices = report.DevicePaths();
        return new HistoryOperation
        {
            Kind = report.Kind,
            Scope = report.Scope ?? OperationScope.Database,
            Database = report.Database,
            Start = start,
            End = end,
            // XE timestamps are sub-millisecond, ERRORLOG lines carry milliseconds; a job's lines whole seconds.
            TimeResolutionSeconds = resolution,
            EngineSeconds = report.DurationSeconds,
            Status = report.Status,
            BytesRead = report.BytesProcessed,
            LogBytes = report.EstimatedLogBytes,
            Devices = devices.Select(d => new BackupDevice(DeviceKinds.FromPath(d), d)).ToList(),
            Options = new HistoryOptions
            {
                BufferCount = report.BufferConfig?.BufferCount ?? report.Requested?.BufferCount,
                MaxTransferSizeBytes = report.BufferConfig?.MaxTransferSizeBytes ?? report.Requested?.MaxTransferSizeBytes,
                Compression = report.Options?.Compression ?? report.Requested?.Compression,
                Checksum = report.Options?.Checksum ?? report.Requested?.Checksum,
                Encryption = report.Options?.Encryption,
            },
            ErrorMessage = report.FailureReason,
            Snapshot = report.Snapshot is not null,
            ServerBuild = report.Server is { Build: { } build } ? Build(build) : null,
            RedoSeconds = PhaseSeconds(report, OperationPhase.Redo),
            RecoverySeconds = PhaseSeconds(report, OperationPhase.Recovery),
            Sources = [HistorySource.Capture],
        };
    }

    /// <summary>"16.0.4135" from a product version's first three numbers ("16.0.4135.4"); null when it has fewer.</summary>
    public static string? Build(string version)
    {
        var parts = version.Split('.');
        return parts.Length >= 3 ? string.Join('.', parts.Take(3)) : null;
    }

    /// <summary>A restore's time in <paramref name="phase"/> as its report timed it; null for a backup or a phase not timed.</summary>
    private static double? PhaseSeconds(OperationReport report, OperationPhase phase)
    {
        if (report.Kind != OperationKind.Restore)
        {
            return null;
        }

        var name = Kebab.Of(phase);
        return report.Phases.FirstOrDefault(p => p.Name == name)?.Seconds is { } seconds and >= 0 ? seconds : null;
    }
}

/// <summary>
/// A backup's log sequence numbers, numeric(25,0) on the server (at most 25 digits), written as strings of digits in JSON
/// so no reader rounds them. <see cref="FirstLsn"/> is at most <see cref="LastLsn"/>.
/// </summary>
public sealed record BackupLsns(
    [property: JsonNumberHandling(JsonNumberHandling.WriteAsString | JsonNumberHandling.AllowReadingFromString)] decimal FirstLsn,
    [property: JsonNumberHandling(JsonNumberHandling.WriteAsString | JsonNumberHandling.AllowReadingFromString)] decimal LastLsn,
    [property: JsonNumberHandling(JsonNumberHandling.WriteAsString | JsonNumberHandling.AllowReadingFromString)] decimal? DatabaseBackupLsn,
    [property: JsonNumberHandling(JsonNumberHandling.WriteAsString | JsonNumberHandling.AllowReadingFromString)] decimal? CheckpointLsn)
{
    /// <summary>The largest LSN numeric(25,0) holds.</summary>
    public const decimal Max = 9_999_999_999_999_999_999_999_999m;

    /// <summary>An LSN as the server writes it: 1 to 25 digits, nothing else; null for anything else.</summary>
    public static decimal? Parse(string? text)
        => text is { Length: > 0 and <= 25 } && decimal.TryParse(text.Trim(), System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out var value)
            ? value
            : null;

    /// <summary>
    /// The LSNs of one backup from their text, or null and why when a value that is there is no LSN or first is past
    /// last; null and no problem when first or last is missing (the source lacks them: unknown, never invented).
    /// </summary>
    public static (BackupLsns? Lsns, string? Problem) From(string? first, string? last, string? databaseBackup, string? checkpoint)
    {
        foreach (var (name, text) in new[] { ("first", first), ("last", last), ("database backup", databaseBackup), ("checkpoint", checkpoint) })
        {
            if (!string.IsNullOrWhiteSpace(text) && Parse(text) is null)
            {
                return (null, $"{name} LSN '{(text.Length > 32 ? text[..32] + "..." : text)}' is not an LSN (1 to 25 digits): the backup is kept without its LSNs");
            }
        }

        if (Parse(first) is not { } from || Parse(last) is not { } to)
        {
            return (null, null);
        }

        return from > to
            ? (null, $"first LSN {from} is past last LSN {to}: the backup is kept without its LSNs")
            : (new BackupLsns(from, to, Parse(databaseBackup), Parse(checkpoint)), null);
    }
}

/// <summary>
/// Which database a backup is of beyond its name. <see cref="FamilyGuid"/> (backupset.family_guid, RESTORE HEADERONLY
/// FamilyGUID) is the original database's id, kept through a restore under another name; <see cref="DatabaseGuid"/>
/// (backupset.database_guid, HEADERONLY BindingID) is new after each restore; <see cref="GroupDatabaseId"/>
/// (sys.databases.group_database_id) is the same on every replica of an availability group database and null outside one.
/// Only <see cref="GroupDatabaseId"/> says two instances' rows are one database (docs/fleet.md, "Availability groups").
/// </summary>
public sealed record DatabaseIdentity(Guid? FamilyGuid, Guid? DatabaseGuid, Guid? GroupDatabaseId)
{
    /// <summary>Each id from this identity when known, else from <paramref name="other"/>.</summary>
    public DatabaseIdentity Or(DatabaseIdentity? other)
        => other is null ? this : new(FamilyGuid ?? other.FamilyGuid, DatabaseGuid ?? other.DatabaseGuid, GroupDatabaseId ?? other.GroupDatabaseId);

    /// <summary>A GUID as the sources write it (with or without braces); null for empty text, NULL or no GUID.</summary>
    public static Guid? Parse(string? text) => Guid.TryParse(text?.Trim(), out var value) && value != Guid.Empty ? value : null;

    /// <summary>An identity from what the source had, or null when it had none of the three.</summary>
    public static DatabaseIdentity? Of(Guid? family, Guid? database, Guid? group)
        => family is null && database is null && group is null ? null : new(family, database, group);
}

/// <summary>The settings that bear on speed, as far as any source told them. Null: not known.</summary>
public sealed record HistoryOptions
{
    public int? BufferCount { get; init; }
    public long? MaxTransferSizeBytes { get; init; }
    public int? BlockSizeBytes { get; init; }
    public bool? Compression { get; init; }
    public string? CompressionAlgorithm { get; init; }
    public bool? CopyOnly { get; init; }
    public bool? Checksum { get; init; }
    public bool? Encryption { get; init; }

    /// <summary>An encrypted backup's algorithm (msdb key_algorithm, RESTORE HEADERONLY KeyAlgorithm: AES_256...); null when not encrypted or not known.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? EncryptionAlgorithm { get; init; }

    /// <summary>
    /// What protects an encrypted backup's key (msdb encryptor_type, RESTORE HEADERONLY EncryptorType: a certificate or an
    /// asymmetric key), which a restore needs on its server; null when not encrypted or not known.
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? Encryptor { get; init; }

    /// <summary>The options a command text states (what it leaves out stays null: the server default applied).</summary>
    public static HistoryOptions From(BackupCommand command) => new()
    {
        BufferCount = command.BufferCount,
        MaxTransferSizeBytes = command.MaxTransferSizeBytes,
        BlockSizeBytes = command.BlockSizeBytes,
        Compression = command.Compression,
        CompressionAlgorithm = command.CompressionAlgorithm,
        CopyOnly = command.CopyOnly,
        Checksum = command.Checksum,
        Encryption = command.Encryption,
    };

    /// <summary>Each option from this record when known, else from <paramref name="other"/>.</summary>
    public HistoryOptions Or(HistoryOptions other) => new()
    {
        BufferCount = BufferCount ?? other.BufferCount,
        MaxTransferSizeBytes = MaxTransferSizeBytes ?? other.MaxTransferSizeBytes,
        BlockSizeBytes = BlockSizeBytes ?? other.BlockSizeBytes,
        Compression = Compression ?? other.Compression,
        CompressionAlgorithm = CompressionAlgorithm ?? other.CompressionAlgorithm,
        CopyOnly = CopyOnly ?? other.CopyOnly,
        Checksum = Checksum ?? other.Checksum,
        Encryption = Encryption ?? other.Encryption,
        EncryptionAlgorithm = EncryptionAlgorithm ?? other.EncryptionAlgorithm,
        Encryptor = Encryptor ?? other.Encryptor,
    };
}

/// <summary>What a device path says about its kind when nothing else does.</summary>
internal static class DeviceKinds
{
    public static DeviceKind FromPath(string path)
        => path.StartsWith("https://", StringComparison.OrdinalIgnoreCase) || path.StartsWith("s3://", StringComparison.OrdinalIgnoreCase)
            ? DeviceKind.Url
            : DeviceKind.Disk;
}
