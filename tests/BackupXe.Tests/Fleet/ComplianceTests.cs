using BackupXe.Core.Drill;
using BackupXe.Core.Events;
using BackupXe.Core.Fleet;
using BackupXe.Core.History;
using BackupXe.Core.Reporting;
using BackupXe.Core.Restores;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Fleet;

/// <summary>
/// Compliance on backup sets as msdb records them (the shape and LSN magnitudes of RestoreChainTests): a log backup's
/// first_lsn is the previous one's last_lsn; times are the server's local time, here UTC+1 (backupset.time_zone 4).
/// </summary>
public sealed class ComplianceTests
{
    private static readonly TimeSpan Offset = TimeSpan.FromHours(1);
    private static readonly DateTime Night = new(2026, 11, 20, 1, 0, 0);

    private static BackupSetRow Full(decimal first, decimal last, int hour, string model = "FULL", bool copyOnly = false) =>
        new("SalesDB", 'D', copyOnly, first, last, 41000000000000001m, first, model, Night.AddHours(hour), Night.AddHours(hour).AddMinutes(10), 8L << 30, 2L << 30);

    private static BackupSetRow Differential(decimal first, decimal last, int hour, decimal basis, string model = "FULL") =>
        new("SalesDB", 'I', false, first, last, basis, first, model, Night.AddHours(hour), Night.AddHours(hour).AddMinutes(2), 1L << 30, 256L << 20);

    private static BackupSetRow Log(decimal first, decimal last, int hour, bool copyOnly = false, string model = "FULL") =>
        new("SalesDB", 'L', copyOnly, first, last, 41000000016000037m, first, model, Night.AddHours(hour), Night.AddHours(hour).AddMinutes(1), 64L << 20, 16L << 20);

    private static readonly BackupSetRow TheFull = Full(41000000016000037m, 41000000017600001m, 0);
    private static readonly BackupSetRow Log1 = Log(41000000008800001m, 41000000018400001m, 1);
    private static readonly BackupSetRow Log2 = Log(41000000018400001m, 41000000020000001m, 2);
    private static readonly BackupSetRow Log3 = Log(41000000020000001m, 41000000021600001m, 3);

    private static readonly RecoveryTargets FifteenMinutes = new(TimeSpan.FromMinutes(15), TimeSpan.FromHours(1), []);

    /// <summary>The fake clock at a server-local moment of <see cref="Night"/>, in UTC.</summary>
    private static DateTime At(int hour, int minute)
        => new FakeClock(new DateTimeOffset(Night.AddHours(hour).AddMinutes(minute), Offset)).GetUtcNow().UtcDateTime;

    private static DatabaseCompliance Judge(IReadOnlyList<BackupSetRow> sets, DateTime now, RecoveryTargets? targets = null, IEnumerable<HistoryOperation>? more = null, bool withChain = true, bool withModel = true)
    {
        var input = new ComplianceInput("sql01", "SalesDB", [.. sets.Select(s => MsdbBackupSets.ToHistory(s, Offset)), .. more ?? []])
        {
            Chain = withChain ? Assert.Single(RestoreChain.Check(sets)) : null,
            RecoveryModel = withModel ? sets.MaxBy(s => s.Start)?.RecoveryModel : null,
        };
        return Compliance.Evaluate(input, targets ?? FifteenMinutes, now);
    }

    [Fact]
    public void Rpo_in_the_full_recovery_model_runs_from_the_last_log_backup_and_says_when_the_target_was_passed()
    {
        // When: 30 minutes after the last log backup finished (server time 04:01), the target 15 minutes
        var compliance = Judge([TheFull, Log1, Log2, Log3], At(3, 31));

        // Then
        Assert.Equal(ComplianceState.Outside, compliance.Rpo.State);
        Assert.Equal(TimeSpan.FromMinutes(30), compliance.Rpo.Value);
        Assert.Equal(new DateTime(2026, 11, 20, 3, 16, 0, DateTimeKind.Utc), compliance.Rpo.Since);
        Assert.Contains("the log backup that finished 2026-11-20 03:01", compliance.Rpo.Evidence, StringComparison.Ordinal);
        Assert.Equal("default", compliance.Rpo.Target!.From);
        Assert.Equal(new DateTime(2026, 11, 20, 3, 1, 0, DateTimeKind.Utc), compliance.LastLog);
        Assert.True(compliance.OutOfTarget);
    }

    [Fact]
    public void Rpo_within_its_target_is_within_since_the_restore_point()
    {
        var compliance = Judge([TheFull, Log1, Log2, Log3], At(3, 10));

        Assert.Equal(ComplianceState.Within, compliance.Rpo.State);
        Assert.Equal(TimeSpan.FromMinutes(9), compliance.Rpo.Value);
        Assert.Equal(new DateTime(2026, 11, 20, 3, 1, 0, DateTimeKind.Utc), compliance.Rpo.Since);
    }

    [Fact]
    public void A_copy_only_log_backup_is_a_restore_point()
    {
        // Given: a COPY_ONLY log backup at 04:00 continues from Log3's end, as msdb records one (the archive point is not moved)
        var copyOnly = Log(41000000021600001m, 41000000022000001m, 4, copyOnly: true);

        var compliance = Judge([TheFull, Log1, Log2, Log3, copyOnly], At(4, 5));

        Assert.Equal(ComplianceState.Within, compliance.Rpo.State);
        Assert.Equal(TimeSpan.FromMinutes(4), compliance.Rpo.Value);
        Assert.Contains("COPY_ONLY log backup", compliance.Rpo.Evidence, StringComparison.Ordinal);
        Assert.Equal(ChainState.Whole, compliance.Chain.State);
    }

    [Fact]
    public void A_differential_after_a_copy_only_full_alone_has_no_base_so_the_copy_only_full_is_the_restore_point()
    {
        // Given: SIMPLE; the only full is COPY_ONLY, then a differential whose base is a full outside the history
        var copyOnlyFull = Full(41000000016000037m, 41000000017600001m, 0, "SIMPLE", copyOnly: true);
        var differential = Differential(41000000018000001m, 41000000018200001m, 6, 41000000000000001m, "SIMPLE");

        var compliance = Judge([copyOnlyFull, differential], At(7, 0), withChain: false);

        Assert.Contains("COPY_ONLY full backup", compliance.Rpo.Evidence, StringComparison.Ordinal);
        Assert.Equal(TimeSpan.FromMinutes(7 * 60 - 10), compliance.Rpo.Value);
        Assert.Equal(ChainState.NotApplicable, compliance.Chain.State);
        Assert.Equal("SIMPLE", compliance.RecoveryModel);
    }

    [Fact]
    public void In_the_simple_model_a_differential_on_its_full_is_the_restore_point()
    {
        var full = Full(41000000016000037m, 41000000017600001m, 0, "SIMPLE");
        var differential = Differential(41000000018000001m, 41000000018200001m, 6, full.CheckpointLsn!.Value, "SIMPLE");

        var compliance = Judge([full, differential], At(6, 12), withChain: false);

        Assert.Contains("differential backup that finished 2026-11-20 06:02", compliance.Rpo.Evidence, StringComparison.Ordinal);
        Assert.Equal(TimeSpan.FromMinutes(10), compliance.Rpo.Value);
        Assert.Equal(new DateTime(2026, 11, 20, 6, 2, 0, DateTimeKind.Utc), compliance.LastDifferential);
    }

    [Fact]
    public void A_switch_to_simple_breaks_the_chain_since_the_last_log_backup_before_it()
    {
        // Given: log backups, a full taken while the database was SIMPLE, then a log backup that cannot follow Log1
        var simpleFull = Full(41000000019000001m, 41000000019500001m, 2, "SIMPLE");
        var after = Log(41000000019500001m, 41000000021000001m, 4);

        var compliance = Judge([TheFull, Log1, simpleFull, after], At(4, 5));

        Assert.Equal(ChainState.Broken, compliance.Chain.State);
        Assert.Equal(DateTime.SpecifyKind(Log1.Finish - Offset, DateTimeKind.Utc), compliance.Chain.Since);
        Assert.Contains("SIMPLE", compliance.Chain.Evidence, StringComparison.Ordinal);
        // the log backup after the break follows the full taken after it: still a restore point
        Assert.Contains("the log backup that finished 2026-11-20 04:01", compliance.Rpo.Evidence, StringComparison.Ordinal);
    }

    [Fact]
    public void A_missing_log_backup_is_a_gap_and_logs_after_it_without_a_new_full_are_no_restore_point()
    {
        var compliance = Judge([TheFull, Log1, Log3], At(3, 5));

        Assert.True(compliance.Chain.State == ChainState.Gap, compliance.Chain.Evidence + " / " + compliance.Rpo.Evidence);
        Assert.Equal(DateTime.SpecifyKind(Log1.Finish - Offset, DateTimeKind.Utc), compliance.Chain.Since);
        Assert.Contains("the log backup that finished 2026-11-20 01:01", compliance.Rpo.Evidence, StringComparison.Ordinal);
        Assert.Equal(ComplianceState.Outside, compliance.Rpo.State);
    }

    [Fact]
    public void Without_lsns_the_chain_cannot_be_told_and_the_recovery_model_is_inferred_from_the_log_backups()
    {
        var compliance = Judge([TheFull, Log1], At(1, 5), withChain: false, withModel: false);

        Assert.Equal(ChainState.CannotTell, compliance.Chain.State);
        Assert.Null(compliance.RecoveryModel);
        Assert.Contains("log backups in the history, so the FULL or BULK_LOGGED recovery model", compliance.Rpo.Evidence, StringComparison.Ordinal);
    }

    [Fact]
    public void No_backup_at_all_is_outside_a_target_with_no_since()
    {
        var input = new ComplianceInput("sql01", "Empty", []);

        var compliance = Compliance.Evaluate(input, FifteenMinutes, At(1, 0));

        Assert.Equal(ComplianceState.Outside, compliance.Rpo.State);
        Assert.Null(compliance.Rpo.Since);
        Assert.Equal(ComplianceState.CannotTell, compliance.Rto.State);
        Assert.False(compliance.Verification.Verified);
    }

    [Fact]
    public void A_database_never_restored_is_unverified_since_its_oldest_backup_and_a_restore_verifies_it()
    {
        var never = Judge([TheFull, Log1], At(1, 5));
        var restore = new HistoryOperation
        {
            Kind = OperationKind.Restore,
            Scope = OperationScope.Database,
            Database = "SalesDB",
            Start = new DateTime(2026, 11, 20, 2, 0, 0, DateTimeKind.Utc),
            End = new DateTime(2026, 11, 20, 2, 20, 0, DateTimeKind.Utc),
            TimeResolutionSeconds = 0.001,
            Status = OperationStatus.Completed,
            Sources = [HistorySource.Capture],
        };
        var drilled = Judge([TheFull, Log1], At(3, 5), more: [restore]);

        Assert.False(never.Verification.Verified);
        Assert.Equal(new DateTime(2026, 11, 20, 0, 10, 0, DateTimeKind.Utc), never.Verification.Since);
        Assert.True(drilled.Verification.Verified);
        Assert.Equal(restore.End, drilled.Verification.Since);
        Assert.Contains("capture", drilled.Verification.Evidence, StringComparison.Ordinal);
    }

    private static HistoryOperation Restored(OperationScope scope, int hour, int minutes) => new()
    {
        Kind = OperationKind.Restore,
        Scope = scope,
        Database = "SalesDB",
        Start = new DateTime(2026, 11, 20, hour, 0, 0, DateTimeKind.Utc),
        End = new DateTime(2026, 11, 20, hour, minutes, 0, DateTimeKind.Utc),
        TimeResolutionSeconds = 0.001,
        Status = OperationStatus.Completed,
        Sources = [HistorySource.Capture],
    };

    [Fact]
    public void Rto_rests_on_the_last_drill_first_then_the_last_real_restore_sequence_then_the_estimate()
    {
        // Given: a captured restore sequence (a full restore of 20 minutes, then a log restore of 5) and a drill of 90 minutes
        var targets = new RecoveryTargets(null, TimeSpan.FromHours(1), []);
        var sequence = new[] { Restored(OperationScope.Database, 1, 50), Restored(OperationScope.Database, 2, 20), Restored(OperationScope.Log, 3, 5) };
        var drill = new StoredDrill("sql01", "SalesDB", "SalesDB_drill", new DateTime(2026, 11, 19, 22, 0, 0, DateTimeKind.Utc), DrillStatus.Completed, 5400, 6000, [], null, null);
        var input = new ComplianceInput("sql01", "SalesDB", [.. new[] { TheFull, Log1 }.Select(s => MsdbBackupSets.ToHistory(s, Offset)), .. sequence]);

        // When
        var estimated = Compliance.Evaluate(input with { Operations = [.. new[] { TheFull, Log1 }.Select(s => MsdbBackupSets.ToHistory(s, Offset))] }, targets, At(4, 0));
        var restored = Compliance.Evaluate(input, targets, At(4, 0));
        var drilled = Compliance.Evaluate(input with { LastDrill = drill }, targets, At(4, 0));

        // Then: the estimate without either; the last sequence (from the newest full restore: 20 + 5 minutes) without a drill; the drill over both
        Assert.Equal(RtoSource.Estimate, estimated.Rto.Source);
        Assert.Equal(RtoSource.Restore, restored.Rto.Source);
        Assert.Equal(TimeSpan.FromMinutes(25), restored.Rto.Value);
        Assert.Equal(ComplianceState.Within, restored.Rto.State);
        Assert.Contains("the last real restore, whose full restore finished 2026-11-20 02:20: 2 restore(s) timed (capture)", restored.Rto.Evidence, StringComparison.Ordinal);
        Assert.Equal(RtoSource.Drill, drilled.Rto.Source);
        Assert.Equal(TimeSpan.FromMinutes(90), drilled.Rto.Value);
        Assert.Equal(ComplianceState.Outside, drilled.Rto.State);
        Assert.Contains("the last restore drill, 2026-11-19 22:00 on sql01", drilled.Rto.Evidence, StringComparison.Ordinal);
        Assert.Null(drilled.Rpo.Source);
    }

    [Fact]
    public void A_real_restore_older_than_the_newest_full_backup_gives_way_to_the_estimate()
    {
        // Given: the captured restore sequence began at 02:00 UTC, and a full backup finished after it (03:00 UTC)
        var targets = new RecoveryTargets(null, TimeSpan.FromHours(1), []);
        var sequence = new[] { Restored(OperationScope.Database, 2, 20), Restored(OperationScope.Log, 3, 5) };
        var laterFull = Full(41000000021600001m, 41000000021700001m, 3);
        var input = new ComplianceInput("sql01", "SalesDB", [.. new[] { TheFull, Log1, laterFull }.Select(s => MsdbBackupSets.ToHistory(s, Offset)), .. sequence]);

        // When
        var compliance = Compliance.Evaluate(input, targets, At(5, 0));

        // Then: that restore read another chain than the one a restore needs now
        Assert.Equal(RtoSource.Estimate, compliance.Rto.Source);
    }

    [Fact]
    public void A_restore_only_restorehistory_holds_verifies_the_database_in_server_time_and_says_it_gives_no_duration()
    {
        var restore = new DatabaseRestore("SalesDB", Night.AddHours(5), false, TheFull);

        var compliance = Compliance.Evaluate(
            new ComplianceInput("sql01", "SalesDB", [.. new[] { TheFull, Log1 }.Select(s => MsdbBackupSets.ToHistory(s, Offset))]) { MsdbRestores = [restore] },
            FifteenMinutes, At(6, 0));

        Assert.True(compliance.Verification.Verified);
        // 06:00 server time at UTC+1, the offset of the database's backups
        Assert.Equal(new DateTime(2026, 11, 20, 5, 0, 0, DateTimeKind.Utc), compliance.Verification.Since);
        Assert.Contains("msdb restorehistory", compliance.Verification.Evidence, StringComparison.Ordinal);
        Assert.Contains("keeps when, not how long", compliance.Verification.Evidence, StringComparison.Ordinal);
        Assert.Equal(RtoSource.Estimate, compliance.Rto.Source);
    }

    [Fact]
    public void Rto_without_the_file_sizes_is_a_floor_that_is_outside_a_shorter_target_and_cannot_tell_a_longer_one()
    {
        // Given: a full of 8 GiB that took 10 minutes: the copy alone is assumed to take 10 to 20 minutes; the history
        // has no file sizes, so the zeroing phases are not timed and the copy's low end is a floor
        var shorter = Judge([TheFull, Log1], At(1, 5), new RecoveryTargets(null, TimeSpan.FromMinutes(5), []));
        var longer = Judge([TheFull, Log1], At(1, 5), new RecoveryTargets(null, TimeSpan.FromHours(2), []));

        Assert.True(shorter.Rto.State == ComplianceState.Outside, shorter.Rto.Evidence);
        Assert.True(shorter.Rto.Floor);
        Assert.InRange(shorter.Rto.Value!.Value, TimeSpan.FromMinutes(10), TimeSpan.FromMinutes(11));
        Assert.Contains("not counted: data-file zeroing, log zeroing", shorter.Rto.Evidence, StringComparison.Ordinal);
        Assert.Equal(ComplianceState.CannotTell, longer.Rto.State);
        Assert.Equal(ComplianceState.NoTarget, shorter.Rpo.State);
    }

    [Fact]
    public void The_worst_comes_first()
    {
        var fine = Judge([TheFull, Log1, Log2, Log3], At(3, 5)) with { Database = "Fine" };
        var late = Judge([TheFull, Log1, Log2, Log3], At(5, 0)) with { Database = "Late" };
        var later = Judge([TheFull, Log1], At(5, 0)) with { Database = "Later" };

        var ordered = Compliance.WorstFirst([fine, late, later]);

        Assert.Equal(["Later", "Late", "Fine"], ordered.Select(d => d.Database));
    }
}
