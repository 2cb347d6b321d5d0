using System.Globalization;

namespace BackupXe.Core.History;

/// <summary>
/// One row of msdb.dbo.backupset as the chain check needs it. LSNs are numeric(25,0) on the server; times are the
/// server's local time, as msdb keeps them. <paramref name="Type"/> is backupset.type: D full, I differential, L log,
/// F file or filegroup, G differential file, P partial, Q differential partial. <paramref name="BackupSize"/> is
/// backup_size (the bytes of the database in the backup); <paramref name="CompressedSize"/> compressed_backup_size (the
/// bytes on the media), null when msdb has none, which means not compressed.
/// </summary>
public sealed record BackupSetRow(
    string Database,
    char Type,
    bool IsCopyOnly,
    decimal FirstLsn,
    decimal LastLsn,
    decimal? DatabaseBackupLsn,
    decimal? CheckpointLsn,
    string? RecoveryModel,
    DateTime Start,
    DateTime Finish,
    long? BackupSize = null,
    long? CompressedSize = null)
{
    /// <summary>key_algorithm: the algorithm of an encrypted backup, NO_Encryption for none; null before backup encryption (2014) or when not read.</summary>
    public string? KeyAlgorithm { get; init; }

    /// <summary>encryptor_type: what protects an encrypted backup's key (a certificate or an asymmetric key); null when not encrypted or not read.</summary>
    public string? EncryptorType { get; init; }

    /// <summary>The medium of its media families (backupmediafamily.device_type); null when not read.</summary>
    public DeviceKind? Device { get; init; }

    /// <summary>Whether key_algorithm names an algorithm (NO_Encryption: not encrypted, as the backupset page defines it).</summary>
    public bool Encrypted => KeyAlgorithm is { } value && !string.IsNullOrWhiteSpace(value)
        && !string.Equals(value.Trim(), "NO_Encryption", StringComparison.OrdinalIgnoreCase);
}

/// <summary>What the backup sets a restore reads say beyond their LSNs: their encryption and the media they are on.</summary>
public static class BackupSetNotes
{
    /// <summary>
    /// A note per fact a restore of <paramref name="sets"/> depends on: encrypted backups need their certificate or
    /// asymmetric key on the restoring server (Microsoft's backup encryption page), and backups not on disk are read
    /// from that medium. None when every set is an unencrypted disk backup or nothing was read.
    /// </summary>
    public static IEnumerable<string> For(IReadOnlyCollection<BackupSetRow> sets, string what)
    {
        var encrypted = sets.Where(s => s.Encrypted).ToList();
        if (encrypted.Count > 0)
        {
            var how = string.Join(", ", encrypted
                .GroupBy(s => (Algorithm: s.KeyAlgorithm!.Trim(), Encryptor: s.EncryptorType?.Trim()))
                .Select(g => g.Key.Encryptor is { } by ? $"{g.Key.Algorithm} by a {by.ToLowerInvariant()}" : g.Key.Algorithm));
            yield return string.Create(CultureInfo.InvariantCulture,
                $"{encrypted.Count} of {sets.Count} backup(s) of {what} are encrypted ({how}): the server that restores them needs that certificate or asymmetric key, with its private key, and VIEW DEFINITION on it");
        }

        var media = sets.Where(s => s.Device is { } kind && kind != DeviceKind.Disk)
            .GroupBy(s => s.Device!.Value)
            .Select(g => string.Create(CultureInfo.InvariantCulture, $"{g.Count()} on {Kebab(g.Key)}"))
            .ToList();
        if (media.Count > 0)
        {
            yield return $"backups of {what} not on disk: {string.Join(", ", media)}; a restore reads them from there";
        }
    }

    private static string Kebab(DeviceKind kind) => kind switch
    {
        DeviceKind.Url => "URL",
        DeviceKind.Tape => "tape",
        DeviceKind.Virtual => "a virtual device (a backup tool's VDI)",
        DeviceKind.Logical => "a permanent backup device",
        _ => "disk",
    };
}

/// <summary>A break in a database's log chain: no log backup covers the LSNs between two that exist.</summary>
/// <param name="After">The finish of the last log backup before the break.</param>
/// <param name="Before">The start of the first log backup after it.</param>
/// <param name="Reason">Why, in words: a missing log backup, or a switch to the SIMPLE recovery model.</param>
public sealed record ChainGap(DateTime After, DateTime Before, decimal FromLsn, decimal ToLsn, string Reason);

/// <summary>
/// A database's restore chain as msdb shows it. <see cref="Whole"/>: no break in the log chain since its oldest full
/// backup in the history read. <see cref="OldestRestorePoint"/>: the earliest moment a restore can reach (the finish of
/// the oldest full backup); <see cref="PointInTimeFrom"/> to <see cref="PointInTimeTo"/>: the span any moment of which
/// a restore can reach (full, then every log backup after the last break); null without log backups.
/// </summary>
public sealed record RestoreChainReport(
    string Database,
    string? RecoveryModel,
    bool Whole,
    IReadOnlyList<ChainGap> Gaps,
    DateTime? OldestRestorePoint,
    DateTime? PointInTimeFrom,
    DateTime? PointInTimeTo,
    IReadOnlyList<string> Notes,
    int BackupSets);

/// <summary>
/// Checks each database's chain from its backup sets (docs/restore-chain.md). Log backups follow each other when one's
/// first_lsn is the previous one's last_lsn; a COPY_ONLY log backup neither breaks nor extends that sequence, so it is
/// left out. A full backup does not break the log chain; a differential rests on the full whose checkpoint_lsn is its
/// database_backup_lsn. Linear in the rows after one sort per database.
/// </summary>
public static class RestoreChain
{
    public const string Simple = "SIMPLE";

    public static IReadOnlyList<RestoreChainReport> Check(IEnumerable<BackupSetRow> rows)
        => rows.GroupBy(row => row.Database, StringComparer.OrdinalIgnoreCase)
            .OrderBy(group => group.Key, StringComparer.OrdinalIgnoreCase)
            .Select(group => CheckOne(group.Key, group.ToList()))
            .ToList();

    private static RestoreChainReport CheckOne(string database, List<BackupSetRow> sets)
    {
        sets.Sort((a, b) => a.Start != b.Start ? a.Start.CompareTo(b.Start) : a.FirstLsn.CompareTo(b.FirstLsn));
        var fulls = sets.Where(s => s.Type == 'D').ToList();
        var logs = sets.Where(s => s.Type == 'L' && !s.IsCopyOnly).OrderBy(s => s.FirstLsn).ToList();
        var notes = new List<string>();
        var gaps = new List<ChainGap>();
        var recovery = sets[^1].RecoveryModel;

        for (var i = 1; i < logs.Count; i++)
        {
            var (previous, next) = (logs[i - 1], logs[i]);
            if (next.FirstLsn > previous.LastLsn)
            {
                var simple = sets.FirstOrDefault(s => string.Equals(s.RecoveryModel, Simple, StringComparison.OrdinalIgnoreCase)
                    && s.Start >= previous.Start && s.Start <= next.Start);
                var reason = simple is null
                    ? "a log backup is missing (LSN break: the next log backup does not start where the previous one ended)"
                    : $"the recovery model was SIMPLE (backup of {Time(simple.Start)}), which ends the log chain";
                gaps.Add(new ChainGap(previous.Finish, next.Start, previous.LastLsn, next.FirstLsn, reason));
            }
        }

        // The span a restore can reach any moment of: from the latest full the logs after the last break continue.
        var chainStart = gaps.Count == 0 ? 0 : logs.FindIndex(l => l.FirstLsn == gaps[^1].ToLsn);
        var tail = logs.Skip(chainStart).ToList();
        // The oldest full whose end a log backup after the break covers: the earliest moment of the span.
        var basis = tail.Count == 0 ? null : fulls.FirstOrDefault(f => f.LastLsn >= tail[0].FirstLsn && f.LastLsn <= tail[^1].LastLsn);
        DateTime? pitFrom = basis?.Finish;
        DateTime? pitTo = basis is null ? null : tail[^1].Finish;
        if (tail.Count > 0 && basis is null)
        {
            notes.Add($"no full backup in the history read is covered by the log backups from {Time(tail[0].Start)}: the chain starts before the history read, or its full is missing");
        }

        if (logs.Count == 0)
        {
            notes.Add(string.Equals(recovery, Simple, StringComparison.OrdinalIgnoreCase)
                ? "SIMPLE recovery model: no log backups, so only the moments of the full and differential backups can be restored"
                : "no log backups in the history read: only the moments of the full and differential backups can be restored");
        }

        var copyOnlyLogs = sets.Count(s => s.Type == 'L' && s.IsCopyOnly);
        if (copyOnlyLogs > 0)
        {
            notes.Add(string.Create(CultureInfo.InvariantCulture, $"{copyOnlyLogs} COPY_ONLY log backup(s) left out: they neither break nor extend the log chain"));
        }

        NoteForeignBases(sets, fulls, notes);
        notes.AddRange(BackupSetNotes.For(sets, "the history read"));
        var oldest = fulls.Count > 0 ? fulls.Min(f => f.Finish) : (DateTime?)null;
        return new RestoreChainReport(database, recovery, gaps.Count == 0 && (logs.Count == 0 || basis is not null), gaps, oldest, pitFrom, pitTo, notes, sets.Count);
    }

    // A full taken elsewhere (another tool, another server's job) does not break the log chain, but differentials after
    // it rest on it, and restoring them needs that full.
    private static void NoteForeignBases(List<BackupSetRow> sets, List<BackupSetRow> fulls, List<string> notes)
    {
        var known = fulls.Where(f => !f.IsCopyOnly && f.CheckpointLsn is not null).Select(f => f.CheckpointLsn!.Value).ToHashSet();
        var oldestFull = fulls.Count > 0 ? fulls.Min(f => f.Start) : DateTime.MaxValue;
        foreach (var differential in sets.Where(s => s.Type is 'I' && s.DatabaseBackupLsn is not null && s.Start > oldestFull))
        {
            if (!known.Contains(differential.DatabaseBackupLsn!.Value))
            {
                notes.Add(string.Create(CultureInfo.InvariantCulture,
                    $"the differential of {Time(differential.Start)} rests on a full backup that is not in this history (database_backup_lsn {differential.DatabaseBackupLsn}): restoring it needs that full"));
            }
        }

        decimal? reported = null;
        foreach (var log in sets.Where(s => s.Type == 'L' && s.DatabaseBackupLsn is not null && s.Start > oldestFull))
        {
            var basis = log.DatabaseBackupLsn!.Value;
            if (!known.Contains(basis) && basis != reported)
            {
                reported = basis;
                notes.Add(string.Create(CultureInfo.InvariantCulture,
                    $"a full backup not in this history (checkpoint LSN {basis}) was taken before the log backup of {Time(log.Start)}: the log chain goes on through it, but differentials after it rest on it"));
            }
        }
    }

    private static string Time(DateTime at) => at.ToString("yyyy-MM-dd HH:mm", CultureInfo.InvariantCulture);
}
