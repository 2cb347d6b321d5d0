using BackupXe.Core.Restores;
using Xunit;

namespace BackupXe.Tests.Restores;

/// <summary>
/// Restore chains built as msdb records them: LSNs of the magnitude backupset shows (numeric(25,0)), a log backup's
/// first_lsn equal to the previous one's last_lsn, a full backup's last_lsn inside the next log backup's range.
/// </summary>
public sealed class RestoreChainTests
{
    private static readonly DateTime Night = new(2026, 11, 20, 1, 0, 0);

    private static BackupSetRow Full(decimal first, decimal last, int hour, string model = "FULL", bool copyOnly = false) =>
        new("SalesDB", 'D', copyOnly, first, last, 41000000000000001m, first, model, Night.AddHours(hour), Night.AddHours(hour).AddMinutes(10));

    private static BackupSetRow Log(decimal first, decimal last, int hour, bool copyOnly = false, decimal? basis = null) =>
        new("SalesDB", 'L', copyOnly, first, last, basis ?? 41000000016000037m, first, "FULL", Night.AddHours(hour), Night.AddHours(hour).AddMinutes(1));

    private static readonly BackupSetRow TheFull = Full(41000000016000037m, 41000000017600001m, 0);
    private static readonly BackupSetRow Log1 = Log(41000000008800001m, 41000000018400001m, 1);
    private static readonly BackupSetRow Log2 = Log(41000000018400001m, 41000000020000001m, 2);
    private static readonly BackupSetRow Log3 = Log(41000000020000001m, 41000000021600001m, 3);

    [Fact]
    public void A_whole_chain_says_whole_with_its_oldest_point_and_its_span()
    {
        // When
        var chain = Assert.Single(RestoreChain.Check([TheFull, Log1, Log2, Log3]));

        // Then
        Assert.True(chain.Whole);
        Assert.Empty(chain.Gaps);
        Assert.Equal(TheFull.Finish, chain.OldestRestorePoint);
        Assert.Equal(TheFull.Finish, chain.PointInTimeFrom);
        Assert.Equal(Log3.Finish, chain.PointInTimeTo);
    }

    // SalesDB restored over itself at 04:00 WITH REPLACE from TheFull (msdb restorehistory, restore_type D, its
    // backup_set_id TheFull's); its log backups after it continue from TheFull's end, over LSNs Log1 to Log3 already used.
    private static readonly DatabaseRestore OverItself = new("SalesDB", Night.AddHours(4), Replace: true, TheFull);
    private static readonly BackupSetRow NewLog1 = Log(41000000017600001m, 41000000019000001m, 5);
    private static readonly BackupSetRow NewLog2 = Log(41000000019000001m, 41000000019500001m, 6);

    [Fact]
    public void A_database_restored_over_itself_starts_its_chain_anew_at_the_restore()
    {
        // Given
        BackupSetRow[] sets = [TheFull, Log1, Log2, Log3, NewLog1, NewLog2];

        // When
        var chain = Assert.Single(RestoreChain.Check(sets, [OverItself]));
        var unaware = Assert.Single(RestoreChain.Check(sets));

        // Then: the chain it is on now is TheFull and the two log backups after the restore, whole to the last of them
        Assert.True(chain.Whole);
        Assert.Empty(chain.Gaps);
        Assert.Equal(TheFull.Finish, chain.PointInTimeFrom);
        Assert.Equal(NewLog2.Finish, chain.PointInTimeTo);
        Assert.Equal(TheFull.Finish, chain.OldestRestorePoint);
        Assert.Contains($"restored at {Night.AddHours(4):yyyy-MM-dd HH:mm} WITH REPLACE from its own full backup of {Night:yyyy-MM-dd HH:mm} (msdb restorehistory): its chain starts anew there, from that backup; the 4 backup set(s) before it are an earlier chain", chain.Notes[0], StringComparison.Ordinal);

        // while matched by LSN alone the two paths interleave: a false gap, after which no full is covered, so no span
        Assert.Equal(NewLog2.LastLsn, Assert.Single(unaware.Gaps).FromLsn);
        Assert.False(unaware.Whole);
        Assert.Null(unaware.PointInTimeTo);
    }

    [Fact]
    public void After_a_restore_a_gap_of_the_earlier_chain_is_named_as_such_and_only_the_current_chain_decides_whole()
    {
        // When: Log2 missing before the restore; then NewLog1 missing after it
        var earlierBroken = Assert.Single(RestoreChain.Check([TheFull, Log1, Log3, NewLog1, NewLog2], [OverItself]));
        var currentBroken = Assert.Single(RestoreChain.Check([TheFull, Log1, Log2, Log3, NewLog2], [OverItself]));

        // Then
        Assert.True(earlierBroken.Whole);
        var gap = Assert.Single(earlierBroken.Gaps);
        Assert.Equal((Log1.LastLsn, Log3.FirstLsn), (gap.FromLsn, gap.ToLsn));
        Assert.StartsWith($"in the chain before the restore of {Night.AddHours(4):yyyy-MM-dd HH:mm}: a log backup is missing", gap.Reason, StringComparison.Ordinal);
        Assert.Equal(NewLog2.Finish, earlierBroken.PointInTimeTo);

        // (the restored full's end is not covered by the one log backup left after the restore)
        Assert.False(currentBroken.Whole);
        Assert.Empty(currentBroken.Gaps);
        Assert.Null(currentBroken.PointInTimeTo);
        Assert.Contains(currentBroken.Notes, n => n.StartsWith("no full backup in the history read is covered by the log backups from ", StringComparison.Ordinal));
    }

    [Fact]
    public void A_missing_log_backup_names_the_gap_from_when_to_when_and_why()
    {
        // When the 02:00 log backup is not in msdb
        var chain = Assert.Single(RestoreChain.Check([TheFull, Log1, Log3]));

        // Then
        Assert.False(chain.Whole);
        var gap = Assert.Single(chain.Gaps);
        Assert.Equal(Log1.Finish, gap.After);
        Assert.Equal(Log3.Start, gap.Before);
        Assert.Equal(41000000018400001m, gap.FromLsn);
        Assert.Equal(41000000020000001m, gap.ToLsn);
        Assert.Contains("a log backup is missing", gap.Reason, StringComparison.Ordinal);
        Assert.Equal(TheFull.Finish, chain.OldestRestorePoint);
    }

    [Fact]
    public void A_copy_only_log_backup_neither_breaks_nor_extends_the_chain()
    {
        // Given a COPY_ONLY log backup taken between the first two regular ones, over part of the same LSNs
        var copyOnly = Log(41000000018400001m, 41000000019200001m, 1, copyOnly: true) with { Start = Night.AddHours(1.5), Finish = Night.AddHours(1.5).AddMinutes(1) };

        // When
        var whole = Assert.Single(RestoreChain.Check([TheFull, Log1, copyOnly, Log2, Log3]));
        var broken = Assert.Single(RestoreChain.Check([TheFull, Log1, copyOnly, Log3]));

        // Then it does not break the whole chain, and does not fill the gap of the broken one
        Assert.True(whole.Whole);
        Assert.Contains(whole.Notes, note => note.Contains("1 COPY_ONLY log backup(s) left out", StringComparison.Ordinal));
        var gap = Assert.Single(broken.Gaps);
        Assert.Equal(41000000018400001m, gap.FromLsn);
        Assert.Equal(41000000020000001m, gap.ToLsn);
    }

    [Fact]
    public void A_switch_to_simple_is_named_as_the_reason_of_the_break()
    {
        // Given a full taken in SIMPLE between two log backups, then a new full and a log backup in FULL again
        var simple = Full(41000000022400001m, 41000000022400050m, 4, model: "SIMPLE");
        var again = Full(41000000024000001m, 41000000024000090m, 5);
        var log = Log(41000000024000001m, 41000000025600001m, 6, basis: 41000000024000001m);

        // When
        var chain = Assert.Single(RestoreChain.Check([TheFull, Log1, Log2, Log3, simple, again, log]));

        // Then
        var gap = Assert.Single(chain.Gaps);
        Assert.Contains("the recovery model was SIMPLE (backup of 2026-11-20 05:00)", gap.Reason, StringComparison.Ordinal);
        Assert.Equal(again.Finish, chain.PointInTimeFrom);
        Assert.Equal(TheFull.Finish, chain.OldestRestorePoint);
    }

    [Fact]
    public void A_differential_on_a_full_taken_elsewhere_is_noted_without_breaking_the_log_chain()
    {
        // Given a differential whose base (database_backup_lsn) is no full in this history
        var differential = new BackupSetRow("SalesDB", 'I', false, 41000000020800001m, 41000000020800099m, 41000000019900001m, 41000000020800001m, "FULL", Night.AddHours(2.5), Night.AddHours(2.5).AddMinutes(3));

        // When
        var chain = Assert.Single(RestoreChain.Check([TheFull, Log1, Log2, differential, Log3]));

        // Then
        Assert.True(chain.Whole);
        Assert.Contains(chain.Notes, note => note.Contains("rests on a full backup that is not in this history (database_backup_lsn 41000000019900001)", StringComparison.Ordinal));
    }
}
