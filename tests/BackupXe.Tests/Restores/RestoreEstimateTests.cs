using BackupXe.Core.Events;
using BackupXe.Core.History;
using BackupXe.Core.Parsing;
using BackupXe.Core.Restores;
using BackupXe.Tests.History;
using Xunit;

namespace BackupXe.Tests.Restores;

/// <summary>
/// The restore-time model on chains built as msdb sizes them (backup_size in bytes) and histories shaped as msdb records
/// operations (whole-second times, sizes): measured against assumed rates, IFI on, off and unknown, the 2022 log rule.
/// </summary>
public sealed class RestoreEstimateTests
{
    private const long MiB = 1L << 20;
    private const long GiB = HistoryOperations.GiB;
    private static readonly DateTime Night = new(2026, 11, 20, 1, 0, 0);

    // 100 GiB full + 10 GiB differential + three 1 GiB log backups.
    private static readonly RestoreChainBytes Chain = new(100 * GiB, 10 * GiB, [GiB, GiB, GiB]);

    private static HistoryOperation Restore(int seconds, long bytes, OperationScope scope = OperationScope.Database)
        => HistoryOperations.Msdb("SalesDB", Night, seconds, bytes) with { Kind = OperationKind.Restore, Scope = scope };

    [Fact]
    public void Measured_restore_rates_time_the_copy_as_an_interval_from_the_fastest_and_slowest_restore()
    {
        // Given: restores at 200 MiB/s and 100 MiB/s, a log restore at 50 MiB/s, and a backup the model must ignore.
        var history = new[]
        {
            Restore(512, 100 * GiB), Restore(1024, 100 * GiB), Restore(20, GiB, OperationScope.Log),
            HistoryOperations.Msdb("SalesDB", Night, 100, 100 * GiB),
        };
        var target = new RestoreTarget(200 * GiB, 20 * GiB, InstantFileInitialization: true, MajorVersion: 16);

        // When
        var estimate = RestoreEstimator.Estimate(Chain, target, RestoreEstimator.CopyRate(history, "salesdb"), RestoreEstimator.LogRestoreRate(history, "SalesDB"));

        // Then: 110 GiB at 200..100 MiB/s, 3 GiB at 51.2 MiB/s, no data zeroing, 20 GiB of log zeroed at the copy rate.
        var copy = estimate.Phases.Single(p => p.Phase == RestoreEstimator.Copy);
        Assert.True(copy.Measured);
        Assert.Equal(110 * 1024 / 200.0, copy.LowSeconds!.Value, 6);
        Assert.Equal(110 * 1024 / 100.0, copy.HighSeconds!.Value, 6);
        var logs = estimate.Phases.Single(p => p.Phase == RestoreEstimator.LogRestore);
        Assert.True(logs.Measured);
        Assert.Equal(60, logs.LowSeconds!.Value, 6);
        var data = estimate.Phases.Single(p => p.Phase == RestoreEstimator.DataZeroing);
        Assert.Equal(0, data.HighSeconds);
        var log = estimate.Phases.Single(p => p.Phase == RestoreEstimator.LogZeroing);
        Assert.False(log.Measured);
        Assert.StartsWith("assumed: zeroing writes at the restore's copy rate", log.Basis, StringComparison.Ordinal);
        Assert.Equal(20 * 1024 / 200.0, log.LowSeconds!.Value, 6);
        Assert.Equal(20 * 1024 / 100.0, log.HighSeconds!.Value, 6);
        Assert.Equal(estimate.Phases.Sum(p => p.LowSeconds!.Value), estimate.LowSeconds!.Value, 6);
        Assert.Equal(estimate.Phases.Sum(p => p.HighSeconds!.Value), estimate.HighSeconds!.Value, 6);
    }

    [Fact]
    public void Without_restores_the_copy_rate_is_half_to_all_of_the_backup_rate_and_said_to_be_assumed()
    {
        // Given: only a full backup at 200 MiB/s.
        var rate = RestoreEstimator.CopyRate([HistoryOperations.Msdb("SalesDB", Night, 512, 100 * GiB)], "SalesDB");

        // Then
        Assert.NotNull(rate);
        Assert.False(rate.Measured);
        Assert.Equal(100 * MiB, rate.LowBytesPerSecond, 6);
        Assert.Equal(200 * MiB, rate.HighBytesPerSecond, 6);
        Assert.Contains("assumed: 0.5x to 1x the rate of 1 backup(s)", rate.Basis, StringComparison.Ordinal);

        // And the log backups, with no log restore measured, are timed at that rate and said to be assumed.
        var estimate = RestoreEstimator.Estimate(Chain, new RestoreTarget(200 * GiB, 20 * GiB, true, 15), rate, logRestoreRate: null);
        var logs = estimate.Phases.Single(p => p.Phase == RestoreEstimator.LogRestore);
        Assert.False(logs.Measured);
        Assert.Equal(3 * 1024 / 100.0, logs.HighSeconds!.Value, 6);
    }

    [Fact]
    public void Without_any_measured_operation_every_timed_phase_says_cannot_tell_and_so_does_the_total()
    {
        // Given: another database's restores only, and a failed restore of this one.
        var history = new[]
        {
            HistoryOperations.Msdb("OtherDB", Night, 100, 100 * GiB) with { Kind = OperationKind.Restore },
            Restore(100, 100 * GiB) with { Status = Core.Reporting.OperationStatus.Failed },
        };

        // When
        var estimate = RestoreEstimator.Estimate(Chain, new RestoreTarget(200 * GiB, 20 * GiB, false, 16),
            RestoreEstimator.CopyRate(history, "SalesDB"), RestoreEstimator.LogRestoreRate(history, "SalesDB"));

        // Then
        Assert.All(estimate.Phases, p => Assert.Null(p.LowSeconds));
        Assert.All(estimate.Phases, p => Assert.StartsWith("cannot tell: ", p.Basis, StringComparison.Ordinal));
        Assert.Null(estimate.LowSeconds);
        Assert.Null(estimate.HighSeconds);
    }

    [Fact]
    public void Data_files_are_zeroed_without_IFI_not_with_it_and_from_nothing_to_all_when_it_is_unknown()
    {
        var rate = new RateInterval(100 * MiB, 200 * MiB, Measured: true, "test");
        RestorePhaseEstimate Data(bool? ifi) => RestoreEstimator.Estimate(Chain, new RestoreTarget(200 * GiB, 20 * GiB, ifi, 15), rate, rate)
            .Phases.Single(p => p.Phase == RestoreEstimator.DataZeroing);

        // Then: 200 GiB at 200..100 MiB/s without IFI; none with it; 0..2048 s when unknown.
        var off = Data(false);
        Assert.Equal(1024, off.LowSeconds!.Value, 6);
        Assert.Equal(2048, off.HighSeconds!.Value, 6);
        Assert.Equal(0, Data(true).HighSeconds);
        var unknown = Data(null);
        Assert.Equal(0, unknown.LowSeconds);
        Assert.Equal(2048, unknown.HighSeconds!.Value, 6);
        Assert.StartsWith("Instant File Initialization not known", unknown.Basis, StringComparison.Ordinal);
    }

    [Fact]
    public void The_log_file_is_zeroed_even_with_IFI_and_only_a_log_of_64_MB_or_less_on_2022_may_escape_it()
    {
        var rate = new RateInterval(32 * MiB, 64 * MiB, Measured: true, "test");
        RestoreEstimate Estimate(long logBytes, int version) => RestoreEstimator.Estimate(Chain, new RestoreTarget(GiB, logBytes, true, version), rate, rate);
        static RestorePhaseEstimate Log(RestoreEstimate e) => e.Phases.Single(p => p.Phase == RestoreEstimator.LogZeroing);

        // A 20 GiB log with IFI on SQL Server 2022: zeroed all the same.
        Assert.Equal(320, Log(Estimate(20 * GiB, 16)).LowSeconds!.Value, 6);

        // A 64 MB log on SQL Server 2022: 0..2 s, with the note; on SQL Server 2019: 1..2 s, no note.
        var on2022 = Estimate(64 * MiB, 16);
        Assert.Equal(0, Log(on2022).LowSeconds);
        Assert.Equal(2, Log(on2022).HighSeconds!.Value, 6);
        Assert.Single(on2022.Notes);
        var on2019 = Estimate(64 * MiB, 15);
        Assert.Equal(1, Log(on2019).LowSeconds!.Value, 6);
        Assert.Empty(on2019.Notes);

        // 65 MB on 2022: beyond the rule.
        Assert.NotEqual(0, Log(Estimate(65 * MiB, 16)).LowSeconds);
    }

    [Fact]
    public void A_chain_without_differential_or_log_backups_times_the_full_alone()
    {
        var rate = new RateInterval(100 * MiB, 100 * MiB, Measured: true, "test");
        var estimate = RestoreEstimator.Estimate(new RestoreChainBytes(100 * GiB, null, []), new RestoreTarget(GiB, GiB, true, 16), rate, null);

        Assert.Equal(1024, estimate.Phases.Single(p => p.Phase == RestoreEstimator.Copy).HighSeconds!.Value, 6);
        Assert.Equal(0, estimate.Phases.Single(p => p.Phase == RestoreEstimator.LogRestore).HighSeconds);
    }

    [Fact]
    public void The_chain_from_the_history_is_the_last_full_its_last_differential_and_the_logs_after_without_copy_only()
    {
        // Given: two fulls, a differential on each, logs around them, a COPY_ONLY full and log after, a failed log.
        HistoryOperation Backup(int hour, OperationScope scope, long bytes, bool copyOnly = false)
            => HistoryOperations.Msdb("SalesDB", Night.AddHours(hour), 60, bytes) with
            {
                Scope = scope,
                Options = new HistoryOptions { CopyOnly = copyOnly },
            };
        var history = new[]
        {
            Backup(0, OperationScope.Database, 90 * GiB), Backup(1, OperationScope.Differential, 5 * GiB), Backup(2, OperationScope.Log, 7 * GiB),
            Backup(24, OperationScope.Database, 100 * GiB), Backup(25, OperationScope.Log, 3 * GiB),
            Backup(26, OperationScope.Differential, 9 * GiB), Backup(27, OperationScope.Differential, 10 * GiB),
            Backup(28, OperationScope.Log, 1 * GiB), Backup(29, OperationScope.Database, 100 * GiB, copyOnly: true),
            Backup(30, OperationScope.Log, 2 * GiB), Backup(31, OperationScope.Log, 4 * GiB, copyOnly: true),
            Backup(32, OperationScope.Log, 8 * GiB) with { Status = Core.Reporting.OperationStatus.Failed },
        };

        // When
        var chain = RestoreEstimator.ChainFrom(history, "SalesDB");

        // Then
        Assert.NotNull(chain);
        Assert.Equal(100 * GiB, chain.FullBytes);
        Assert.Equal(10 * GiB, chain.DifferentialBytes);
        Assert.Equal([1 * GiB, 2 * GiB], chain.LogBackupBytes);

        // And without a full, or with a chosen backup of no size: no chain.
        Assert.Null(RestoreEstimator.ChainFrom(history.Where(o => o.Scope != OperationScope.Database), "SalesDB"));
        Assert.Null(RestoreEstimator.ChainFrom([.. history, Backup(33, OperationScope.Log, 0) with { BytesRead = null }], "SalesDB"));
    }

    [Fact]
    public void A_history_chain_with_an_encrypted_backup_leaves_its_decryption_out_of_the_total_and_says_so()
    {
        // Given: a full and a log backup of SalesDB, the log encrypted (the history's options, as msdb key_algorithm gives them)
        var full = HistoryOperations.Msdb("SalesDB", Night, 800, 100 * GiB) with { Options = new HistoryOptions { CopyOnly = false, Encryption = false } };
        var log = HistoryOperations.Msdb("SalesDB", Night.AddHours(1), 10, GiB) with { Scope = OperationScope.Log, Options = new HistoryOptions { CopyOnly = false, Encryption = true } };
        var target = new RestoreTarget(200 * GiB, 20 * GiB, InstantFileInitialization: true, MajorVersion: 16) { Encrypted = false };

        // When
        var chain = RestoreEstimator.ChainFrom([full, log], "SalesDB")!;
        var estimate = RestoreEstimator.Estimate(chain, target, RestoreEstimator.CopyRate([full, log], "SalesDB"), null);
        var plain = RestoreEstimator.Estimate(chain with { EncryptedBackups = 0 }, target, RestoreEstimator.CopyRate([full, log], "SalesDB"), null);

        // Then: the same total, no rate invented for the decryption, and the part named with the count
        Assert.Equal(1, chain.EncryptedBackups);
        Assert.Equal(plain.LowSeconds, estimate.LowSeconds);
        Assert.Equal(plain.HighSeconds, estimate.HighSeconds);
        var decryption = Assert.Single(estimate.NotCounted, u => u.Part == RestoreEstimator.Decryption);
        Assert.StartsWith("1 of the chain's 2 backup(s) are encrypted", decryption.Reason, StringComparison.Ordinal);
        Assert.DoesNotContain(plain.NotCounted, u => u.Part == RestoreEstimator.Decryption);
    }

    [Fact]
    public void An_encrypted_database_has_its_data_files_zeroed_despite_instant_file_initialization()
    {
        // Given: restores measured at 64..128 MiB/s, IFI enabled, the same database with and without TDE
        var rate = new RateInterval(64 * MiB, 128 * MiB, Measured: true, "restores");

        // When
        var plain = RestoreEstimator.Estimate(Chain, new RestoreTarget(200 * GiB, 20 * GiB, true, 16) { Encrypted = false }, rate, rate);
        var encrypted = RestoreEstimator.Estimate(Chain, new RestoreTarget(200 * GiB, 20 * GiB, true, 16) { Encrypted = true }, rate, rate);

        // Then: TDE prevents IFI for data files, so its 200 GiB are zeroed at the copy rate (1600..3200 s)
        var none = plain.Phases.Single(p => p.Phase == RestoreEstimator.DataZeroing);
        Assert.Equal(0, none.HighSeconds);
        var zeroed = encrypted.Phases.Single(p => p.Phase == RestoreEstimator.DataZeroing);
        Assert.Equal(1600, zeroed.LowSeconds!.Value, 3);
        Assert.Equal(3200, zeroed.HighSeconds!.Value, 3);
        Assert.StartsWith("TDE: the database is encrypted", zeroed.Basis, StringComparison.Ordinal);
        Assert.Equal(plain.HighSeconds!.Value + 3200, encrypted.HighSeconds!.Value, 3);

        // and with restores measured, only recovery is left uncounted
        Assert.Equal([RestoreEstimator.Recovery], encrypted.NotCounted.Select(u => u.Part));
    }

    [Fact]
    public void Rates_from_backups_leave_the_read_path_uncounted_and_an_unknown_TDE_state_says_what_it_would_change()
    {
        // Given: rates assumed from backups, IFI enabled, the TDE state not known
        var assumed = new RateInterval(64 * MiB, 128 * MiB, Measured: false, "assumed: from backups");

        // When
        var estimate = RestoreEstimator.Estimate(Chain, new RestoreTarget(200 * GiB, 20 * GiB, true, 16), assumed, null);

        // Then: each part the total leaves out, with its reason
        Assert.Equal([RestoreEstimator.Recovery, RestoreEstimator.Reading, RestoreEstimator.Tde], estimate.NotCounted.Select(u => u.Part));
        Assert.Contains("msdb does not record", estimate.NotCounted[0].Reason, StringComparison.Ordinal);
        Assert.Contains("writing to the backup target", estimate.NotCounted[1].Reason, StringComparison.Ordinal);
        Assert.Contains("zeroed despite Instant File Initialization", estimate.NotCounted[2].Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void A_restore_whose_capture_timed_its_recovery_makes_recovery_a_measured_phase_and_the_copy_rate_leaves_it_out()
    {
        // Given: two captured full restores of 100 GiB, each 512 s long of which 10 s and 30 s were redo plus recovery,
        // a NORECOVERY restore with redo only (no recovery run, so not counted), and another database's restore.
        var history = new[]
        {
            Restore(512, 100 * GiB) with { RedoSeconds = 8, RecoverySeconds = 2 },
            Restore(512, 100 * GiB) with { RedoSeconds = 25, RecoverySeconds = 5 },
            Restore(50, 10 * GiB, OperationScope.Differential) with { RedoSeconds = 1 },
            Restore(512, 100 * GiB) with { Database = "Other", RedoSeconds = 900, RecoverySeconds = 900 },
        };
        var recovery = RestoreEstimator.RecoveryTime(history, "salesdb");
        var rate = RestoreEstimator.CopyRate(history, "SalesDB");

        // When
        var estimate = RestoreEstimator.Estimate(Chain, new RestoreTarget(200 * GiB, 20 * GiB, true, 16), rate, null, recovery);

        // Then: recovery from 10 to 30 s, measured, and no longer among what the total leaves out
        var phase = estimate.Phases.Single(p => p.Phase == RestoreEstimator.Recovery);
        Assert.True(phase.Measured);
        Assert.Equal(10, phase.LowSeconds);
        Assert.Equal(30, phase.HighSeconds);
        Assert.Contains("2 captured restore(s)", phase.Basis, StringComparison.Ordinal);
        Assert.DoesNotContain(RestoreEstimator.Recovery, estimate.NotCounted.Select(u => u.Part));
        // and the copy rate is the bytes over the time left once redo and recovery are taken out: 100 GiB in 502 s and 482 s
        Assert.NotNull(rate);
        Assert.Equal(100 * GiB / 502.0, rate.LowBytesPerSecond, 3);
        Assert.Equal(100 * GiB / 482.0, rate.HighBytesPerSecond, 3);
        Assert.Equal(estimate.Phases.Sum(p => p.HighSeconds!.Value), estimate.HighSeconds!.Value, 6);

        // And without a captured recovery it stays "not counted", with the reason
        var unmeasured = RestoreEstimator.Estimate(Chain, new RestoreTarget(200 * GiB, 20 * GiB, true, 16), rate, null, RestoreEstimator.RecoveryTime(history.Take(0), "SalesDB"));
        Assert.DoesNotContain(unmeasured.Phases, p => p.Phase == RestoreEstimator.Recovery);
        Assert.Contains("no captured restore of this database", unmeasured.NotCounted.Single(u => u.Part == RestoreEstimator.Recovery).Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void A_drill_times_every_phase_it_measured_and_says_so_leaving_the_rest_as_estimated()
    {
        // Given: an estimate from backups alone (assumed 0.5x..1x of 100 MiB/s), IFI off, and a drill that measured a copy
        // at 250 MiB/s, log restores at 40..50 MiB/s, zeroing at 32..1024 MiB/s and 200 s of redo and recovery
        var history = new[] { HistoryOperations.Msdb("SalesDB", Night, 1024, 100 * GiB) };
        var plan = new RestorePlan("SalesDB",
            new PlannedBackup('D', Night, Night.AddSeconds(1024), 100 * GiB, null),
            null, [], []);
        var report = RestoreEstimator.Report(plan, new RestoreTarget(200 * GiB, 20 * GiB, false, 16), history, []);
        var drill = new MeasuredRestoreRates(new DateTime(2026, 11, 29, 8, 0, 0), "a restore drill into [SalesDB_drill] on TEST",
            new RateInterval(250 * MiB, 250 * MiB, true, "the transfer-data"), new RateInterval(40 * MiB, 50 * MiB, true, "the log restores"),
            new RateInterval(32 * MiB, 1024 * MiB, true, "each file's zeroing"), new SecondsInterval(200, 200, "the recovery step"));

        // When
        var calibrated = RestoreEstimator.Calibrate(report, drill);

        // Then: 100 GiB at 250 MiB/s = 409.6 s; 200 GiB of data zeroed at 1024..32 MiB/s = 200..6400 s; 20 GiB of log
        // 20..640 s; recovery 200 s, no longer "not counted"; every phase measured by the drill, and the note says so
        var phases = calibrated.Estimate!.Phases.ToDictionary(p => p.Phase);
        Assert.Equal(409.6, phases[RestoreEstimator.Copy].LowSeconds!.Value, 3);
        Assert.Equal(409.6, phases[RestoreEstimator.Copy].HighSeconds!.Value, 3);
        Assert.Equal(200, phases[RestoreEstimator.DataZeroing].LowSeconds!.Value, 3);
        Assert.Equal(6400, phases[RestoreEstimator.DataZeroing].HighSeconds!.Value, 3);
        Assert.Equal(640, phases[RestoreEstimator.LogZeroing].HighSeconds!.Value, 3);
        Assert.Equal(200, phases[RestoreEstimator.Recovery].LowSeconds!.Value, 3);
        Assert.All(phases.Values.Where(p => p.Phase != RestoreEstimator.LogRestore), p =>
        {
            Assert.True(p.Measured, p.Phase);
            Assert.StartsWith("measured on 2026-11-29 by a restore drill into [SalesDB_drill] on TEST", p.Basis, StringComparison.Ordinal);
        });
        Assert.DoesNotContain(calibrated.Estimate.NotCounted, u => u.Part is RestoreEstimator.Recovery or RestoreEstimator.Reading);
        Assert.Equal(409.6 + 200 + 20 + 200, calibrated.Estimate.LowSeconds!.Value, 3);
        Assert.Contains(calibrated.Notes, n => n.StartsWith("calibrated: ", StringComparison.Ordinal));

        // and a drill that measured nothing changes nothing
        Assert.Same(report, RestoreEstimator.Calibrate(report, drill with { Copy = null, LogRestore = null, Zeroing = null, Recovery = null }));
    }
}
