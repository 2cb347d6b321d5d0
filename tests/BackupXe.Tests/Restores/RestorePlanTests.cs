using BackupXe.Core.Restores;
using BackupXe.Tests.History;
using Xunit;

namespace BackupXe.Tests.Restores;

/// <summary>
/// The chain a restore would use now, picked from backup sets shaped as msdb records them (LSNs of backupset's
/// magnitude, a differential's database_backup_lsn naming its base's checkpoint_lsn, sizes as backup_size and
/// compressed_backup_size).
/// </summary>
public sealed class RestorePlanTests
{
    private const long GiB = HistoryOperations.GiB;
    private static readonly DateTime Night = new(2026, 11, 20, 1, 0, 0);

    private static BackupSetRow Set(char type, decimal first, decimal last, decimal basis, double hour, long size = GiB, long? compressed = null, bool copyOnly = false) =>
        new("SalesDB", type, copyOnly, first, last, basis, first, "FULL", Night.AddHours(hour), Night.AddHours(hour).AddMinutes(5), size, compressed);

    private static readonly BackupSetRow OldFull = Set('D', 41000000010000037m, 41000000010800001m, 41000000000000001m, -24, 90 * GiB);
    private static readonly BackupSetRow Full = Set('D', 41000000016000037m, 41000000017600001m, 41000000000000001m, 0, 100 * GiB, 40 * GiB);
    private static readonly BackupSetRow OldLog = Set('L', 41000000008800001m, 41000000016800001m, 41000000010000037m, -1);
    private static readonly BackupSetRow Differential = Set('I', 41000000020000037m, 41000000020800001m, 41000000016000037m, 6, 10 * GiB);
    private static readonly BackupSetRow Log1 = Set('L', 41000000016800001m, 41000000021600001m, 41000000016000037m, 7);
    private static readonly BackupSetRow Log2 = Set('L', 41000000021600001m, 41000000022400001m, 41000000016000037m, 8);
    private static readonly BackupSetRow Log3 = Set('L', 41000000022400001m, 41000000023200001m, 41000000016000037m, 9);

    [Fact]
    public void The_plan_is_the_last_full_its_differential_and_the_log_backups_after_it()
    {
        // Given: an older full and log, a COPY_ONLY full and a COPY_ONLY log backup the plan must not use.
        var copyOnlyFull = Set('D', 41000000022000037m, 41000000022200001m, 41000000016000037m, 8.5, copyOnly: true);
        var copyOnlyLog = Set('L', 41000000021600001m, 41000000021900001m, 41000000016000037m, 7.5, copyOnly: true);

        // When
        var plan = Assert.Single(RestorePlanner.Plan([Log3, OldFull, OldLog, Full, Differential, copyOnlyFull, Log1, copyOnlyLog, Log2]));

        // Then
        Assert.Equal(Full.Start, plan.Full!.Start);
        Assert.Equal(Differential.Start, plan.Differential!.Start);
        Assert.Equal([Log1.Start, Log2.Start, Log3.Start], plan.Logs.Select(l => l.Start));
        Assert.Empty(plan.Notes);
        var bytes = plan.Bytes()!;
        Assert.Equal(100 * GiB, bytes.FullBytes);
        Assert.Equal(10 * GiB, bytes.DifferentialBytes);
        Assert.Equal(3 * GiB, bytes.LogBackupBytes.Sum());
        Assert.Equal(40 * GiB + 10 * GiB + 3 * GiB, plan.MediaBytes());
        Assert.Equal(Log3.Finish, plan.ReachesTo);
    }

    [Fact]
    public void A_differential_resting_on_another_full_is_not_used()
    {
        // Given: a differential whose base is a full not in msdb.
        var foreign = Set('I', 41000000020000037m, 41000000020800001m, 41000000019000037m, 6, 10 * GiB);

        // When
        var plan = Assert.Single(RestorePlanner.Plan([Full, foreign]));

        // Then
        Assert.Null(plan.Differential);
        Assert.Equal(Full.Finish, plan.ReachesTo);
    }

    [Fact]
    public void A_missing_log_backup_stops_the_plan_with_a_note_naming_where()
    {
        // When: Log2 is missing.
        var plan = Assert.Single(RestorePlanner.Plan([Full, Log1, Log3]));

        // Then
        Assert.Equal([Log1.Start], plan.Logs.Select(l => l.Start));
        var note = Assert.Single(plan.Notes);
        Assert.Contains("the log chain breaks before the log backup of 2026-11-20 10:00 (LSN 41000000021600001 to 41000000022400001)", note, StringComparison.Ordinal);
        Assert.Contains("1 later log backup(s) cannot be applied", note, StringComparison.Ordinal);
    }

    [Fact]
    public void Without_a_regular_full_there_is_no_plan_and_no_bytes()
    {
        // When
        var plan = Assert.Single(RestorePlanner.Plan([Set('D', 41000000016000037m, 41000000017600001m, 41000000000000001m, 0, copyOnly: true), Log1]));

        // Then
        Assert.Null(plan.Full);
        Assert.Null(plan.Bytes());
        Assert.Contains("no full backup (not COPY_ONLY)", Assert.Single(plan.Notes), StringComparison.Ordinal);
    }
}
