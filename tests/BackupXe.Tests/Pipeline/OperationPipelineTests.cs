using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using BackupXe.Sources.Errorlog;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Pipeline;

public static class OperationPipelineTests
{
    public class TheTraceFlag3014Fixture
    {
        private static async Task<OperationReport> BackupAsync()
        {
            var run = await PipelineRun.OfAsync(new ErrorlogEventSource(Fixture.Tf3014Sql2014));
            return Assert.Single(run.Reports);
        }

        [Fact]
        public async Task Becomes_one_incomplete_backup_because_the_published_log_ends_mid_backup()
        {
            // Given / When
            var backup = await BackupAsync();

            // Then
            Assert.Equal(OperationKind.Backup, backup.Kind);
            Assert.Equal(OperationScope.Database, backup.Scope);
            Assert.Equal("backuptest", backup.Database);
            Assert.Equal(51, backup.SessionId);
            Assert.Equal(OperationStatus.Incomplete, backup.Status);
            Assert.Null(backup.End);
            Assert.Equal(new DateTime(2014, 9, 10, 18, 10, 48, 950, DateTimeKind.Unspecified), backup.Start);
            Assert.Equal(DateTimeKind.Unspecified, backup.Start!.Value.Kind);
        }

        [Fact]
        public async Task Carries_the_buffer_block_attributed_by_spid_with_its_exact_numbers()
        {
            // Given / When
            var buffers = (await BackupAsync()).BufferConfig!;

            // Then: the block's lines have no database prefix; only the spid ties them to the backup
            Assert.Equal(7, buffers.BufferCount);
            Assert.Equal(1024 * 1024, buffers.MaxTransferSizeBytes);
            Assert.Equal(21L * 1024 * 1024, buffers.TotalBufferBytes);
            Assert.Equal(2300L * 1024 * 1024, buffers.MemoryLimitBytes);
            Assert.Equal(64 * 1024, buffers.MinMaxTransferSizeBytes);
            Assert.Equal(3, buffers.SetsOfBuffers);
        }

        [Fact]
        public async Task Carries_options_estimate_readers_and_the_per_file_read_times()
        {
            // Given / When
            var backup = await BackupAsync();

            // Then
            Assert.Equal(new OptionsReport(true, true, false), backup.Options);
            Assert.Equal(95303680, backup.EstimatedBytes);
            Assert.Equal(1, backup.DataFileReaders);
            Assert.NotEmpty(backup.Files);
            Assert.All(backup.Files, f => Assert.NotNull(f.Start));
            var completed = backup.Files.Where(f => f.Seconds is not null).ToList();
            Assert.NotEmpty(completed);
            Assert.All(completed, f => Assert.True(f.End >= f.Start));
        }

        [Fact]
        public async Task Keeps_copy_data_whole_although_the_estimate_marker_repeats()
        {
            // Given / When: 2014 writes "Calculating expected size of total data" three times
            var phases = (await BackupAsync()).Phases.Select(p => p.Name).ToList();

            // Then
            Assert.Equal(phases.Distinct().Count(), phases.Count);
            Order.Before(phases, "estimate", "copy-data");
        }
    }

    public class Concurrency
    {
        [Fact]
        public void Keeps_two_concurrent_backups_apart_and_attributes_waits_by_session()
        {
            // Given: two backups on one server, interleaved, each with its own waits
            var script = new XeScript()
                .CompleteBackup(0, 60, session: 61, database: "Sales", device: @"X:\b\Sales.bak")
                .CompleteBackup(5, 40, session: 62, database: "Hr", device: @"Y:\b\Hr.bak")
                .Wait(10, 61, "BACKUPIO", 500)
                .Wait(11, 62, "BACKUPBUFFER", 30)
                .Wait(12, 62, "BACKUPBUFFER", 20);

            // When
            var reports = PipelineRun.Of(script.Events).Reports;

            // Then
            var sales = Assert.Single(reports, r => r.Database == "Sales");
            var hr = Assert.Single(reports, r => r.Database == "Hr");
            Assert.Equal(60, sales.DurationSeconds!.Value, 3);
            Assert.Equal(40, hr.DurationSeconds!.Value, 3);
            Assert.Equal([new WaitReport("BACKUPIO", 1, 500, 500, 0)], sales.Waits);
            Assert.Equal([new WaitReport("BACKUPBUFFER", 2, 50, 30, 0)], hr.Waits);
            Assert.Equal(WaitAttribution.Session, sales.WaitAttribution);
            Assert.Equal([new DeviceReport(@"X:\b\Sales.bak")], sales.Devices);
        }

        [Fact]
        public void Ties_a_wait_without_a_session_only_to_the_one_operation_running_and_counts_an_overlapping_one_once()
        {
            // Given: one wait inside both backups, one inside only the first, one after both
            var script = new XeScript()
                .CompleteBackup(0, 60, 61, "Sales", @"X:\Sales.bak")
                .CompleteBackup(5, 20, 62, "Hr", @"Y:\Hr.bak")
                .Wait(10, null, "BACKUPBUFFER", 100)
                .Wait(40, null, "BACKUPIO", 200)
                .Wait(90, null, "BACKUPIO", 300);

            // When
            var run = PipelineRun.Of(script.Events);

            // Then: the overlapping wait is in neither operation's waits, once in the server-level profile
            var sales = Assert.Single(run.Reports, r => r.Database == "Sales");
            var hr = Assert.Single(run.Reports, r => r.Database == "Hr");
            Assert.Equal([new WaitReport("BACKUPIO", 1, 200, 200, 0)], sales.Waits);
            Assert.Empty(hr.Waits);
            Assert.Equal(1, sales.AmbiguousWaits);
            Assert.Equal(1, hr.AmbiguousWaits);
            Assert.Equal([new WaitReport("BACKUPBUFFER", 1, 100, 100, 0)], run.Pipeline.AmbiguousWaits());
            Assert.Equal(WaitAttribution.TimeOverlap, sales.WaitAttribution);
            Assert.Equal(1, run.Pipeline.UnattributedWaits);
        }

        [Fact]
        public void Does_not_charge_a_generic_io_wait_of_another_session_to_a_backup()
        {
            // Given: IO_COMPLETION of session 70 (someone's query) while session 61 backs up
            var script = new XeScript()
                .CompleteBackup(0, 30, 61, "Sales", @"X:\Sales.bak")
                .Wait(10, 70, "IO_COMPLETION", 80);

            // When
            var run = PipelineRun.Of(script.Events);

            // Then
            Assert.Empty(Assert.Single(run.Reports).Waits);
            Assert.Equal(1, run.Pipeline.UnattributedWaits);
        }
    }

    public class Outcomes
    {
        [Fact]
        public void Marks_a_backup_failed_and_keeps_the_reason()
        {
            // Given
            var script = new XeScript()
                .Backup(0, 61, "Sales", "BACKUP DATABASE started")
                .Backup(3, 61, "Sales", "BACKUP failed to complete the command BACKUP DATABASE Sales. Check the backup application log for detailed messages.");

            // When
            var report = Assert.Single(PipelineRun.Of(script.Events).Reports);

            // Then
            Assert.Equal(OperationStatus.Failed, report.Status);
            Assert.Contains("BACKUP failed", report.FailureReason);
            Assert.Equal(3, report.DurationSeconds!.Value, 3);
        }

        [Fact]
        public void Reports_an_operation_without_its_end_as_incomplete_at_the_end_of_input()
        {
            // Given
            var script = new XeScript()
                .Backup(0, 61, "Sales", "BACKUP DATABASE started")
                .Backup(1, 61, "Sales", "Copying data files")
                .Backup(2, 61, "Sales", "40 percent (400/1000 bytes) processed");

            // When
            var report = Assert.Single(PipelineRun.Of(script.Events).Reports);

            // Then
            Assert.Equal(OperationStatus.Incomplete, report.Status);
            Assert.Null(report.End);
            Assert.Equal(400, report.BytesProcessed);
        }

        [Fact]
        public void Follows_a_backup_whose_start_preceded_the_capture()
        {
            // Given: the capture began after "BACKUP DATABASE started"
            var script = new XeScript()
                .Backup(0, 61, "Sales", "50 percent (500/1000 bytes) processed")
                .Backup(1, 61, "Sales", "BACKUP DATABASE finished");

            // When
            var report = Assert.Single(PipelineRun.Of(script.Events).Reports);

            // Then
            Assert.Equal(OperationStatus.Completed, report.Status);
            Assert.Null(report.Start);
            Assert.Equal("Sales", report.Database);
        }

        [Fact]
        public void Holds_an_ended_operation_until_its_grace_period_passes()
        {
            // Given: a finished backup and nothing after it
            var script = new XeScript().CompleteBackup(0, 10, 61, "Sales", @"X:\Sales.bak");

            // When: no flush, then the clock moves past the grace period
            var run = PipelineRun.Of(script.Events, flush: false);
            var before = run.Reports.Count;
            run.Pipeline.AdvanceClock(new DateTime(2024, 5, 1, 10, 0, 15, DateTimeKind.Utc));

            // Then
            Assert.Equal(0, before);
            Assert.Single(run.Reports);
        }
    }

    public class Throughput
    {
        [Fact]
        public void Measures_overall_and_data_copy_throughput_in_binary_megabytes()
        {
            // Given: 1 GiB in a 20 s backup whose copy phase runs from 2 s to 12 s
            var script = new XeScript()
                .Backup(0, 61, "Sales", "BACKUP DATABASE started")
                .Backup(2, 61, "Sales", "Copying data files")
                .Backup(12, 61, "Sales", "100 percent (1073741824/1073741824 bytes) processed")
                .Backup(20, 61, "Sales", "BACKUP DATABASE finished");

            // When
            var report = Assert.Single(PipelineRun.Of(script.Events).Reports);

            // Then
            Assert.Equal(1073741824, report.BytesProcessed);
            Assert.Equal(51.2, report.ThroughputMBps!.Value, 3);
            Assert.Equal(102.4, report.DataCopyThroughputMBps!.Value, 3);
        }

        [Fact]
        public void Builds_an_operation_from_plain_errorlog_completion_lines_without_trace_flags()
        {
            // Given: what every ERRORLOG has, trace flags or not
            var at = new DateTime(2011, 9, 15, 21, 46, 19, 630);
            var events = new TraceEvent[]
            {
                new ProgressTraceEvent(at, null, null, null, @"Database backed up. Database: Sales, creation date(time): 2011/09/15(21:46:19), pages dumped: 3100, first LSN: 1:2:3, last LSN: 1:9:1, number of dump devices: 2, device information: (FILE=1, TYPE=DISK: {'D:\b\s1.bak', 'E:\b\s2.bak'}). This is an informational message only. No user action is required."),
                new ProgressTraceEvent(at.AddMilliseconds(10), null, null, null, "BACKUP DATABASE successfully processed 8042633 pages in 43.967 seconds (1429.096 MB/sec)."),
            };

            // When
            var report = Assert.Single(PipelineRun.Of(events).Reports);

            // Then
            Assert.Equal("Sales", report.Database);
            Assert.Equal(OperationStatus.Completed, report.Status);
            Assert.Equal(43.967, report.DurationSeconds!.Value, 3);
            Assert.Equal(8042633L * 8192, report.BytesProcessed);
            Assert.Equal(1429.1, report.ThroughputMBps!.Value, 1);
            Assert.Equal(2, report.Devices.Count);
        }
    }

    public class Restores
    {
        [Fact]
        public void Times_log_zeroing_and_the_restore_phases()
        {
            // Given: XE restore wording with a log zeroed for 80 s of a 100 s restore
            var script = new XeScript()
                .Restore(0, 58, "Arch", "RESTORE DATABASE started")
                .Restore(1, 58, "Arch", "Restore: PreparingContainers")
                .Restore(1.5, 58, "Arch", @"Zeroing F:\Arch_log.ldf from page 1 to 64000 (0x2000 to 0x1f400000)")
                .Restore(2, 58, "Arch", "Restore: Containers are ready")
                .Restore(3, 58, "Arch", "Restore: Transferring data to Arch")
                .Restore(10, 58, "Arch", "Restore: Waiting for log zero on Arch")
                .Restore(81.5, 58, "Arch", @"Zeroing completed on F:\Arch_log.ldf")
                .Restore(82, 58, "Arch", "Restore: LogZero complete")
                .Restore(83, 58, "Arch", "Restore: Data transfer complete on Arch")
                .Restore(100, 58, "Arch", "RESTORE DATABASE finished");

            // When
            var report = Assert.Single(PipelineRun.Of(script.Events).Reports);

            // Then
            var zeroing = Assert.Single(report.Zeroing);
            Assert.Equal(64000, zeroing.Pages);
            Assert.Equal(80, zeroing.Seconds!.Value, 3);
            Assert.Equal(72, report.Phases.Single(p => p.Name == "wait-log-zero").Seconds!.Value, 3);
            Assert.Equal(80, report.Phases.Single(p => p.Name == "transfer-data").Seconds!.Value, 3);
            Assert.Equal(Bottleneck.FileZeroing, report.Verdict!.Bottleneck);
        }
    }

    public class StreamLines
    {
        [Fact]
        public void Do_not_claim_the_start_of_an_xe_backup_already_under_way()
        {
            // Given: the capture began after the backup did; its first event is a stream line
            var events = new XeScript()
                .Backup(0, 61, "Sales", "BackupStream(0): Writing MSDA of size 1296 extents")
                .Backup(5, 61, "Sales", "BACKUP DATABASE finished")
                .Events;

            // When
            var report = Assert.Single(PipelineRun.Of(events).Reports);

            // Then
            Assert.Null(report.Start);
            Assert.Equal(OperationStatus.Completed, report.Status);
        }
    }

    public class PercentLines
    {
        [Fact]
        public void An_xe_percent_event_with_no_start_in_the_capture_adopts_its_operation_and_keeps_its_progress()
        {
            // Given a capture that begins mid-backup: XE names the kind and database on every event
            var events = new XeScript()
                .Backup(1, 60, "sales", "10 percent (107374182/1073741824 bytes) processed")
                .Backup(2, 60, "sales", "20 percent (214748364/1073741824 bytes) processed")
                .Backup(3, 60, "sales", "BACKUP DATABASE finished")
                .Events;

            // When
            var run = PipelineRun.Of(events);

            // Then one backup, start unknown, with both readings and the estimate from the percent lines
            var backup = Assert.Single(run.Reports);
            Assert.Equal("sales", backup.Database);
            Assert.Equal(OperationStatus.Completed, backup.Status);
            Assert.Equal(1073741824L, backup.EstimatedBytes);
            Assert.Equal([107374182L, 214748364L], backup.Progress!.Points.Select(p => p.Bytes));
            Assert.Equal(0, run.Pipeline.OrphanMessages);
        }

        [Fact]
        public void An_errorlog_percent_line_with_no_operation_open_is_counted_as_an_orphan_and_starts_nothing()
        {
            // Given percent lines with no start line before them: the log does not say what kind of operation they are
            var events = new[]
            {
                new ProgressTraceEvent(new DateTime(2024, 5, 1, 10, 0, 1), 60, null, null, "Backup(sales): 10 percent (107374182/1073741824 bytes) processed"),
                new ProgressTraceEvent(new DateTime(2024, 5, 1, 10, 0, 2), 60, null, null, "Backup(sales): 20 percent (214748364/1073741824 bytes) processed"),
            };

            // When
            var run = PipelineRun.Of(events);

            // Then
            Assert.Empty(run.Reports);
            Assert.Equal(2, run.Pipeline.OrphanMessages);
        }

        [Fact]
        public void A_percent_line_after_a_step_line_goes_to_the_open_operation_of_its_session()
        {
            // Given a started backup with a step line, then a percent line on the same spid
            var events = new[]
            {
                new ProgressTraceEvent(new DateTime(2024, 5, 1, 10, 0, 0), 60, null, null, "Backup(sales): BACKUP DATABASE started"),
                new ProgressTraceEvent(new DateTime(2024, 5, 1, 10, 0, 1), 60, null, null, "Backup(sales): Copying data files"),
                new ProgressTraceEvent(new DateTime(2024, 5, 1, 10, 0, 2), 60, null, null, "Backup(sales): 30 percent (322122547/1073741824 bytes) processed"),
            };

            // When the input ends there
            var run = PipelineRun.Of(events);

            // Then the backup is reported incomplete, its progress running from the copy's start at zero to the reading
            var backup = Assert.Single(run.Reports);
            Assert.Equal(OperationStatus.Incomplete, backup.Status);
            Assert.Equal(
                [(new DateTime(2024, 5, 1, 10, 0, 1), 0L), (new DateTime(2024, 5, 1, 10, 0, 2), 322122547L)],
                backup.Progress!.Points.Select(p => (p.At, p.Bytes)));
            Assert.Equal(0, run.Pipeline.OrphanMessages);
        }
    }
}
