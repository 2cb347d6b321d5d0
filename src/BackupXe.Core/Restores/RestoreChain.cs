using System.Globalization;
using BackupXe.Core.Parsing;

namespace BackupXe.Core.Restores;

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

/// <summary>
/// A full database restore into <paramref name="Database"/> (msdb.dbo.restorehistory, restore_type D): when it was
/// restored (restore_date, server local time), whether REPLACE was given, and the backup set it read (backupset by
/// backup_set_id). Whatever the database was before, its log chain starts anew there, from that backup.
/// </summary>
public sealed record DatabaseRestore(string Database, DateTime RestoredAt, bool? Replace, BackupSetRow Source)
{
    /// <summary>Restored from a backup of a database of the same name: over itself, from its own earlier chain.</summary>
    public bool OverItself => string.Equals(Database, Source.Database, StringComparison.OrdinalIgnoreCase);
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

    /// <param name="restores">
    /// Full database restores read from msdb.dbo.restorehistory: each starts its database's chain anew, so log backups
    /// on either side of it are never linked (docs/restore-chain.md, "A database restored over itself").
    /// </param>
    /// <param name="restoresUnread">Why restorehistory could not be read, said on every database; null when it was.</param>
    /// <param name="skipped">Rows of the history left out as impossible (an LSN that is no number, a finish before the start), each said on its database.</param>
    public static IReadOnlyList<RestoreChainReport> Check(
        IEnumerable<BackupSetRow> rows, IEnumerable<DatabaseRestore>? restores = null, string? restoresUnread = null,
        IReadOnlyList<(string Database, string Reason)>? skipped = null)
    {
        var byDatabase = RestoresByDatabase(restores);
        return rows.GroupBy(row => row.Database, StringComparer.OrdinalIgnoreCase)
            .OrderBy(group => group.Key, StringComparer.OrdinalIgnoreCase)
            .Select(group => CheckOne(group.Key, group.ToList(), byDatabase.GetValueOrDefault(group.Key) ?? [], restoresUnread))
            .Select(report => skipped?.Where(s => string.Equals(s.Database, report.Database, StringComparison.OrdinalIgnoreCase)).ToList() is { Count: > 0 } left
                ? report with { Notes = [.. report.Notes, .. left.Select(s => s.Reason)] }
                : report)
            .ToList();
    }

    /// <summary>
    /// The backup sets of the chain the database is on now: after its latest full restore (<paramref name="restores"/>),
    /// the backup that restore read and the sets taken since; without one, all of them.
    /// </summary>
    public static List<BackupSetRow> Current(string database, IReadOnlyList<BackupSetRow> sets, IReadOnlyList<DatabaseRestore> restores)
        => Segments(database, sets, restores)[^1].Sets;

    /// <summary>The restores per destination database, oldest first.</summary>
    public static Dictionary<string, IReadOnlyList<DatabaseRestore>> RestoresByDatabase(IEnumerable<DatabaseRestore>? restores)
        => (restores ?? [])
            .GroupBy(r => r.Database, StringComparer.OrdinalIgnoreCase)
            .ToDictionary(g => g.Key, g => (IReadOnlyList<DatabaseRestore>)g.OrderBy(r => r.RestoredAt).ToList(), StringComparer.OrdinalIgnoreCase);

    /// <summary>
    /// The database's chains, oldest first: the sets before its first full restore, then for each restore the backup
    /// it read (a full of this or another database, named as this one) and the sets that started after it. A backup
    /// cannot start while its database is being restored, so a set's start places it on one side of the restore.
    /// </summary>
    private static List<(DatabaseRestore? StartedBy, List<BackupSetRow> Sets)> Segments(string database, IReadOnlyList<BackupSetRow> sets, IReadOnlyList<DatabaseRestore> restores)
    {
        var segments = new List<(DatabaseRestore?, List<BackupSetRow>)> { (null, sets.Where(s => restores.Count == 0 || s.Start <= restores[0].RestoredAt).ToList()) };
        for (var i = 0; i < restores.Count; i++)
        {
            var restore = restores[i];
            var until = i + 1 < restores.Count ? restores[i + 1].RestoredAt : DateTime.MaxValue;
            List<BackupSetRow> chain = restore.Source.Type == 'D' ? [restore.Source with { Database = database, IsCopyOnly = false }] : [];
            chain.AddRange(sets.Where(s => s.Start > restore.RestoredAt && s.Start <= until));
            segments.Add((restore, chain));
        }

        return segments;
    }

    private static RestoreChainReport CheckOne(string database, List<BackupSetRow> sets, IReadOnlyList<DatabaseRestore> restores, string? restoresUnread)
    {
        sets.Sort((a, b) => a.Start != b.Start ? a.Start.CompareTo(b.Start) : a.FirstLsn.CompareTo(b.FirstLsn));
        var notes = new List<string>();
        var gaps = new List<ChainGap>();
        var recovery = sets[^1].RecoveryModel;
        var segments = Segments(database, sets, restores);
        for (var i = 0; i < segments.Count - 1; i++)
        {
            // An earlier chain's breaks are still breaks of the backups it holds, said as such.
            var next = segments[i + 1].StartedBy!;
            gaps.AddRange(Gaps(segments[i].Sets, Logs(segments[i].Sets))
                .Select(g => g with { Reason = $"in the chain before the restore of {Time(next.RestoredAt)}: {g.Reason}" }));
        }

        var current = segments[^1].Sets;
        var logs = Logs(current);
        var currentGaps = Gaps(current, logs);
        gaps.AddRange(currentGaps);
        var fulls = current.Where(s => s.Type == 'D').ToList();

        // The span a restore can reach any moment of: from the latest full the logs after the last break continue.
        var chainStart = currentGaps.Count == 0 ? 0 : logs.FindIndex(l => l.FirstLsn == currentGaps[^1].ToLsn);
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

        foreach (var restore in restores)
        {
            var before = sets.Count(s => s.Start <= restore.RestoredAt);
            var from = restore.OverItself ? "its own" : $"a [{restore.Source.Database}]";
            notes.Add(string.Create(CultureInfo.InvariantCulture,
                $"restored at {Time(restore.RestoredAt)}{(restore.Replace is true ? " WITH REPLACE" : string.Empty)} from {from} {Kind(restore.Source.Type)} backup of {Time(restore.Source.Start)} (msdb restorehistory): its chain starts anew there, from that backup; the {before} backup set(s) before it are an earlier chain, which no log backup after the restore continues"));
        }

        if (restoresUnread is not null)
        {
            notes.Add($"msdb.dbo.restorehistory could not be read ({restoresUnread}): a restore of this database would not be seen, and log backups on either side of one would be taken for one chain");
        }

        var copyOnlyLogs = sets.Count(s => s.Type == 'L' && s.IsCopyOnly);
        if (copyOnlyLogs > 0)
        {
            notes.Add(string.Create(CultureInfo.InvariantCulture, $"{copyOnlyLogs} COPY_ONLY log backup(s) left out: they neither break nor extend the log chain"));
        }

        NoteForeignBases(sets, sets.Where(s => s.Type == 'D').Concat(restores.Where(r => r.Source.Type == 'D').Select(r => r.Source with { IsCopyOnly = false })).ToList(), notes);
        notes.AddRange(BackupSetNotes.For(sets, "the history read"));
        var allFulls = sets.Where(s => s.Type == 'D').ToList();
        var oldest = allFulls.Count > 0 ? allFulls.Min(f => f.Finish) : (DateTime?)null;
        return new RestoreChainReport(database, recovery, currentGaps.Count == 0 && (logs.Count == 0 || basis is not null), gaps, oldest, pitFrom, pitTo, notes, sets.Count);
    }

    /// <summary>The regular log backups of a chain in LSN order: COPY_ONLY ones neither break nor extend it.</summary>
    private static List<BackupSetRow> Logs(List<BackupSetRow> sets) => sets.Where(s => s.Type == 'L' && !s.IsCopyOnly).OrderBy(s => s.FirstLsn).ToList();

    private static List<ChainGap> Gaps(List<BackupSetRow> sets, List<BackupSetRow> logs)
    {
        var gaps = new List<ChainGap>();
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

        return gaps;
    }

    /// <summary>A backup set's type in words: full, differential, log.</summary>
    internal static string Kind(char type) => type switch
    {
        'D' => "full",
        'I' => "differential",
        'L' => "log",
        _ => "database",
    };

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
