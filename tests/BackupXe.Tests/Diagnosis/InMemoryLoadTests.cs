using BackupXe.Core.Correlation;
using BackupXe.Core.Reporting;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Diagnosis;

/// <summary>
/// A restore of a database with memory-optimized tables: its recovery waits (WAIT_XTP_RECOVERY, XE map value
/// XTP_RECOVERY) while the In-Memory OLTP engine loads the checkpoint file pairs into memory. Built in the shape XE
/// delivers a restore (progress messages in the 2016+ wording of docs/backup-internals.md#restore-steps, sqlos.wait_info at End).
/// </summary>
public sealed class InMemoryLoadTests
{
    private static XeScript Restore(Action<XeScript> waits)
    {
        var script = new XeScript()
            .Restore(0, 60, "Hk", "RESTORE DATABASE started")
            .Restore(0.5, 60, "Hk", "Transferring data to Hk")
            .Restore(10, 60, "Hk", "Data transfer complete on Hk");
        waits(script);
        return script.Restore(60, 60, "Hk", "RESTORE DATABASE finished");
    }

    [Fact]
    public void A_restore_that_waits_most_of_its_time_for_the_in_memory_load_is_in_memory_load()
    {
        // Given: one 47 s XTP_RECOVERY wait ending at 58 s, on the database startup's own session (12), not the restore's
        var events = Restore(s => s.Wait(58, 12, BackupWaitTypes.XtpRecovery, 47_000)).Events;

        // When
        var restore = Assert.Single(PipelineRun.Of(events).Reports);

        // Then: the phase is the wait's span, 11 s to 58 s = 47 s of the 60 s restore (78%)
        var phase = Assert.Single(restore.Phases, p => p.Name == "in-memory-load");
        Assert.Equal(47, phase.Seconds!.Value, 3);
        Assert.Equal(Bottleneck.InMemoryLoad, restore.Verdict!.Bottleneck);
        Assert.Equal(Confidence.High, restore.Verdict.Confidence);
        Assert.Equal("the in-memory-load phase (WAIT_XTP_RECOVERY waits)", restore.Verdict.DecidedBy);
        Assert.Contains(restore.Verdict.Evidence, e => e.StartsWith(
            "Loading the memory-optimized data took 47.0 s (78% of the 60.0 s restore, threshold 30%): 1 WAIT_XTP_RECOVERY wait", StringComparison.Ordinal));
        Assert.Empty(restore.Recommendations);
    }

    [Fact]
    public void Reads_the_wait_under_its_DMV_name_too()
    {
        // Given: two waits named as sys.dm_os_wait_stats names them, 20 s each, back to back from 15 s
        var events = Restore(s => s.Wait(35, 60, BackupWaitTypes.WaitXtpRecovery, 20_000).Wait(55, 60, BackupWaitTypes.WaitXtpRecovery, 20_000)).Events;

        // When
        var restore = Assert.Single(PipelineRun.Of(events).Reports);

        // Then: 15 s to 55 s = 40 s (67%)
        Assert.Equal(40, Assert.Single(restore.Phases, p => p.Name == "in-memory-load").Seconds!.Value, 3);
        Assert.Equal(Bottleneck.InMemoryLoad, restore.Verdict!.Bottleneck);
    }

    [Fact]
    public void The_load_is_listed_in_time_order_inside_the_recovery_it_held_not_after_the_restore()
    {
        // Given: recovery from 10 s to 58 s holding a 47 s load (10 s to 57 s), then the history records
        var events = new XeScript()
            .Restore(0, 60, "Hk", "RESTORE DATABASE started")
            .Restore(0.5, 60, "Hk", "Transferring data to Hk")
            .Restore(8, 60, "Hk", "Data transfer complete on Hk")
            .Restore(10, 60, "Hk", "Recovery begins")
            .Wait(57, 12, BackupWaitTypes.XtpRecovery, 47_000)
            .Restore(58, 60, "Hk", "Recovery is complete")
            .Restore(59, 60, "Hk", "Writing history records")
            .Restore(60, 60, "Hk", "RESTORE DATABASE finished")
            .Events;

        // When
        var restore = Assert.Single(PipelineRun.Of(events).Reports);

        // Then: the timeline reads in time order, as wait-log-zero sits after the transfer-data it overlaps
        Assert.Equal(["transfer-data", "recovery", "in-memory-load", "finalize"], restore.Phases.Select(p => p.Name));
    }

    [Fact]
    public void A_short_load_leaves_the_verdict_to_the_rest_of_the_restore()
    {
        // Given: 5 s of a 60 s restore (8%)
        var events = Restore(s => s.Wait(20, 60, BackupWaitTypes.XtpRecovery, 5_000)).Events;

        // When
        var restore = Assert.Single(PipelineRun.Of(events).Reports);

        // Then: the phase is still reported
        Assert.Equal(5, Assert.Single(restore.Phases, p => p.Name == "in-memory-load").Seconds!.Value, 3);
        Assert.NotEqual(Bottleneck.InMemoryLoad, restore.Verdict!.Bottleneck);
    }

    [Fact]
    public void A_backup_is_never_in_memory_load()
    {
        // Given: a backup during which some database's recovery waited (a failover elsewhere, say)
        var events = new XeScript()
            .CompleteBackup(0, 60, 55, "Sales", @"X:\b\Sales.bak")
            .Wait(50, 55, BackupWaitTypes.XtpRecovery, 45_000)
            .Events;

        // When
        var backup = Assert.Single(PipelineRun.Of(events).Reports);

        // Then
        Assert.NotEqual(Bottleneck.InMemoryLoad, backup.Verdict!.Bottleneck);
    }
}
