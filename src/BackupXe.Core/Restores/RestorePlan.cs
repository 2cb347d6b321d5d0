using System.Globalization;

namespace BackupXe.Core.Restores;

/// <summary>One backup set a restore would read: its type (D, I, L), times (server local) and sizes from msdb.</summary>
/// <param name="BackupSize">backup_size: the database's bytes in the backup; null when msdb has none.</param>
/// <param name="MediaSize">compressed_backup_size, or backup_size when that is NULL (not compressed): the bytes read from the media.</param>
public sealed record PlannedBackup(char Type, DateTime Start, DateTime Finish, long? BackupSize, long? MediaSize)
{
    /// <summary>Encrypted with backup encryption (backupset key_algorithm names an algorithm).</summary>
    public bool Encrypted { get; init; }

    /// <summary>backupset first_lsn: with <see cref="LastLsn"/>, how a restore drill finds the set's media in msdb; 0 when not read.</summary>
    public decimal FirstLsn { get; init; }

    /// <summary>backupset last_lsn; 0 when not read.</summary>
    public decimal LastLsn { get; init; }
}

/// <summary>
/// The backup sets a restore of <see cref="Database"/> would use now: the last regular full, the last differential
/// resting on it, and the log backups after the later of the two, in LSN order up to the first break.
/// <see cref="Full"/> is null when msdb holds no regular full backup in the span read.
/// </summary>
public sealed record RestorePlan(string Database, PlannedBackup? Full, PlannedBackup? Differential, IReadOnlyList<PlannedBackup> Logs, IReadOnlyList<string> Notes)
{
    /// <summary>The chain's bytes for <see cref="RestoreEstimator"/>; null without a full or when a set chosen has no size.</summary>
    public RestoreChainBytes? Bytes()
    {
        if (Full?.BackupSize is not { } full || Differential is { BackupSize: null } || Logs.Any(l => l.BackupSize is null))
        {
            return null;
        }

        return new RestoreChainBytes(full, Differential?.BackupSize, Logs.Select(l => l.BackupSize!.Value).ToList())
        {
            EncryptedBackups = new[] { Full, Differential }.OfType<PlannedBackup>().Concat(Logs).Count(s => s.Encrypted),
        };
    }

    /// <summary>The bytes read from the media (compressed where the backups are); null when a size is missing.</summary>
    public long? MediaBytes()
    {
        var sets = new[] { Full, Differential }.OfType<PlannedBackup>().Concat(Logs).ToList();
        return sets.Count == 0 || sets.Any(s => s.MediaSize is null) ? null : sets.Sum(s => s.MediaSize!.Value);
    }

    /// <summary>The latest moment the plan reaches: the finish of its last backup set.</summary>
    public DateTime? ReachesTo => Logs.Count > 0 ? Logs[^1].Finish : Differential?.Finish ?? Full?.Finish;
}

/// <summary>
/// Picks each database's <see cref="RestorePlan"/> from its backup sets by LSN (docs/restore-chain.md, "Restore time"):
/// the rules of <see cref="RestoreChain"/> (COPY_ONLY log backups left out, a differential's base named by its
/// database_backup_lsn, a log backup following the previous one when its first_lsn is that one's last_lsn).
/// </summary>
public static class RestorePlanner
{
    /// <param name="restores">Full database restores (msdb restorehistory): a plan uses only the chain its database is on now (<see cref="RestoreChain.Current"/>).</param>
    public static IReadOnlyList<RestorePlan> Plan(IEnumerable<BackupSetRow> rows, IEnumerable<DatabaseRestore>? restores = null)
    {
        var byDatabase = RestoreChain.RestoresByDatabase(restores);
        return rows.GroupBy(row => row.Database, StringComparer.OrdinalIgnoreCase)
            .OrderBy(group => group.Key, StringComparer.OrdinalIgnoreCase)
            .Select(group => PlanOne(group.Key, RestoreChain.Current(group.Key, group.ToList(), byDatabase.GetValueOrDefault(group.Key) ?? [])))
            .ToList();
    }

    private static RestorePlan PlanOne(string database, List<BackupSetRow> sets)
    {
        var notes = new List<string>();
        // A COPY_ONLY full is no differential base; the plan starts from the base the regular backups rest on.
        var full = sets.Where(s => s.Type == 'D' && !s.IsCopyOnly).MaxBy(s => s.Finish);
        if (full is null)
        {
            notes.Add("no full backup (not COPY_ONLY) in msdb in the span read: nothing to start a restore from");
            return new RestorePlan(database, null, null, [], notes);
        }

        var differential = sets
            .Where(s => s.Type == 'I' && s.Start > full.Start
                && (s.DatabaseBackupLsn is null || full.CheckpointLsn is null || s.DatabaseBackupLsn == full.CheckpointLsn))
            .MaxBy(s => s.Finish);
        var basis = differential ?? full;
        var logs = new List<BackupSetRow>();
        var later = sets.Where(s => s.Type == 'L' && !s.IsCopyOnly && s.LastLsn > basis.LastLsn).OrderBy(s => s.FirstLsn).ToList();
        var reached = basis.LastLsn;
        foreach (var log in later)
        {
            if (log.LastLsn <= reached)
            {
                continue;
            }

            if (log.FirstLsn > reached)
            {
                var left = later.Count(l => l.FirstLsn >= log.FirstLsn);
                notes.Add(string.Create(CultureInfo.InvariantCulture,
                    $"the log chain breaks before the log backup of {Time(log.Start)} (LSN {reached} to {log.FirstLsn}): the restore stops at {Time(logs.Count > 0 ? logs[^1].Finish : basis.Finish)} and {left} later log backup(s) cannot be applied"));
                break;
            }

            logs.Add(log);
            reached = log.LastLsn;
        }

        if (sets.All(s => s.Type != 'L'))
        {
            notes.Add("no log backup in the span read: the restore ends at the last full or differential backup");
        }

        var used = new List<BackupSetRow> { full };
        if (differential is not null)
        {
            used.Add(differential);
        }

        used.AddRange(logs);
        notes.AddRange(BackupSetNotes.For(used, "the chain"));
        return new RestorePlan(database, Planned(full), differential is null ? null : Planned(differential), logs.Select(Planned).ToList(), notes);
    }

    private static PlannedBackup Planned(BackupSetRow row)
        => new(row.Type, row.Start, row.Finish, row.BackupSize, row.CompressedSize ?? row.BackupSize) { Encrypted = row.Encrypted, FirstLsn = row.FirstLsn, LastLsn = row.LastLsn };

    private static string Time(DateTime at) => at.ToString("yyyy-MM-dd HH:mm", CultureInfo.InvariantCulture);
}
