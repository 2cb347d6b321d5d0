using BackupXe.Core.Diagnosis;
using BackupXe.Core.Reporting;
using Xunit;
using static BackupXe.Tests.Support.DiagnosisOperations;

namespace BackupXe.Tests.Diagnosis;

public class BottleneckRulesTests
{
    private static Core.Diagnosis.Diagnosis Diagnose(OperationReport operation, DiagnosisSettings? settings = null) =>
        new BackupDiagnostician(settings ?? new DiagnosisSettings()).Diagnose(operation);

    private static string AllEvidence(Core.Diagnosis.Diagnosis diagnosis) => string.Join("\n", diagnosis.Verdict.Evidence);

    /// <summary>docs/backup-internals.md#buffer-count-against-waits: more buffers cut time until the single destination disk became the limit.</summary>
    public class PublishedBufferTests
    {
        [Fact]
        public void Test1_with_7_buffers_of_1MB_is_buffer_starved_with_high_confidence()
        {
            // Given
            var operation = PublishedBufferTest(1);

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.BufferStarved, diagnosis.Verdict.Bottleneck);
            Assert.Equal(Confidence.High, diagnosis.Verdict.Confidence);
        }

        [Fact]
        public void Test1_evidence_carries_the_wait_counts_averages_and_buffer_memory()
        {
            // Given
            var operation = PublishedBufferTest(1);

            // When
            var evidence = AllEvidence(Diagnose(operation));

            // Then: 159471 ms / 81616 waits = 1.95 ms; 159.5 s / 2 threads / 122.5 s = 65%; 62.6 s / 122.5 s = 51%
            Assert.Contains("BACKUPBUFFER: 81,616 waits averaging 2.0 ms, 159.5 s in all = 65% of each thread's time", evidence);
            Assert.Contains("7 buffers x 1 MB = 7 MB of buffer memory", evidence);
            Assert.Contains("BACKUPIO took 51% of each writer's time (62.6 s of 122.5 s over 1 device)", evidence);
        }

        [Fact]
        public void Test5_with_256_buffers_of_4MB_is_backup_device_with_high_confidence()
        {
            // Given
            var operation = PublishedBufferTest(5);

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.BackupDevice, diagnosis.Verdict.Bottleneck);
            Assert.Equal(Confidence.High, diagnosis.Verdict.Confidence);
            Assert.Contains("BACKUPIO took 51% of each writer's time (48.9 s of 95.9 s over 1 device)", AllEvidence(diagnosis));
            Assert.Contains("256 buffers x 4 MB = 1024 MB of buffer memory: plentiful", AllEvidence(diagnosis));
        }

        [Theory]
        [InlineData(2)]
        [InlineData(3)]
        [InlineData(4)]
        public void Tests2_to_4_with_16_to_128_buffers_of_4MB_are_backup_device(int test)
        {
            // Given
            var operation = PublishedBufferTest(test);

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.BackupDevice, diagnosis.Verdict.Bottleneck);
        }

        [Theory]
        [InlineData(6, "33%")]
        [InlineData(7, "24%")]
        public void Tests6_and_7_with_two_files_on_one_disk_are_backup_device_with_low_confidence(int test, string share)
        {
            // Given: BACKUPIO is split over 2 writers, so each is busy only a third or a quarter of the time
            var operation = PublishedBufferTest(test);

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.BackupDevice, diagnosis.Verdict.Bottleneck);
            Assert.Equal(Confidence.Low, diagnosis.Verdict.Confidence);
            Assert.Contains($"BACKUPIO took {share} of each writer's time", AllEvidence(diagnosis));
            Assert.Contains("3 threads: 1 data file reader + 2 writers", AllEvidence(diagnosis));
        }
    }

    public class BufferStarved
    {
        [Fact]
        public void Many_short_buffer_waits_without_buffer_configuration_is_medium_and_says_how_to_get_it()
        {
            // Given: 100 s of BACKUPBUFFER over 2 threads in 120 s = 42%, averaging 2 ms
            var operation = Backup(Wait("BACKUPBUFFER", 50000, 100000), Wait("BACKUPIO", 20000, 30000));

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.BufferStarved, diagnosis.Verdict.Bottleneck);
            Assert.Equal(Confidence.Medium, diagnosis.Verdict.Confidence);
            Assert.Contains("trace flag 3213", AllEvidence(diagnosis));
        }

        [Fact]
        public void Many_short_buffer_waits_with_plentiful_buffers_is_not_buffer_starved()
        {
            // Given: 64 x 4 MB = 256 MB for one device
            var operation = Backup(Wait("BACKUPBUFFER", 50000, 100000), Wait("BACKUPIO", 20000, 90000)) with
            {
                BufferConfig = Buffers(64, 4096),
            };

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.BackupDevice, diagnosis.Verdict.Bottleneck);
        }

        [Fact]
        public void Long_buffer_waits_are_not_starvation_even_with_small_buffers()
        {
            // Given: BACKUPBUFFER averaging 50 ms with BACKUPIO busy 75% of the writer's time
            var operation = Backup(Wait("BACKUPBUFFER", 2000, 100000), Wait("BACKUPIO", 5000, 90000)) with
            {
                BufferConfig = Buffers(7, 1024),
            };

            // When
            var diagnosis = Diagnose(operation);

            // Then: device-bound, but the small buffers lower the confidence
            Assert.Equal(Bottleneck.BackupDevice, diagnosis.Verdict.Bottleneck);
            Assert.Equal(Confidence.Medium, diagnosis.Verdict.Confidence);
        }
    }

    public class BackupDevice
    {
        [Fact]
        public void Waits_are_read_against_the_copy_data_phase_when_captured()
        {
            // Given: 60 s of BACKUPIO is 30% of the 200 s backup but 60% of its 100 s copy-data phase
            var operation = Backup(Wait("BACKUPBUFFER", 1000, 30000), Wait("BACKUPIO", 1000, 60000)) with
            {
                DurationSeconds = 200,
                BufferConfig = Buffers(64, 4096),
                Phases = [new PhaseReport("copy-data", null, null, 100)],
            };

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.BackupDevice, diagnosis.Verdict.Bottleneck);
            Assert.Contains("BACKUPIO took 60% of each writer's time (60.0 s of 100.0 s over 1 device)", AllEvidence(diagnosis));
            Assert.Contains("100.0 s copy-data phase", AllEvidence(diagnosis));
        }

        [Fact]
        public void Unknown_devices_count_as_one_writer_and_the_evidence_says_so()
        {
            // Given
            var operation = Backup(Wait("BACKUPIO", 1000, 90000)) with { Devices = [] };

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.BackupDevice, diagnosis.Verdict.Bottleneck);
            Assert.Contains("The backup devices were not captured: 1 device (1 writer) assumed.", diagnosis.Verdict.Evidence);
        }

        [Fact]
        public void A_restore_reading_its_backup_file_slowly_is_backup_device()
        {
            // Given
            var operation = Restore(Wait("BACKUPIO", 3000, 120000), Wait("BACKUPBUFFER", 1000, 40000));

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.BackupDevice, diagnosis.Verdict.Bottleneck);
            Assert.Contains("BACKUPIO took 70% of each device reader's time", AllEvidence(diagnosis));
        }
    }

    public class DataFileRead
    {
        [Fact]
        public void Idle_writers_and_long_buffer_waits_without_compression_is_data_file_read()
        {
            // Given: BACKUPIO 4% of the writer's time; BACKUPBUFFER 63% of each thread's time, averaging 50 ms
            var operation = Backup(Wait("BACKUPBUFFER", 3000, 150000), Wait("BACKUPIO", 500, 5000));

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.DataFileRead, diagnosis.Verdict.Bottleneck);
            Assert.Equal(Confidence.Medium, diagnosis.Verdict.Confidence);
            Assert.Contains("The writer is mostly idle: BACKUPIO took 4% of its time.", diagnosis.Verdict.Evidence);
            Assert.Contains("COPY_ONLY backup to NUL", AllEvidence(diagnosis));
        }

        [Fact]
        public void The_idle_writers_of_a_striped_backup_are_read_per_writer()
        {
            // Given: two files; BACKUPIO 5 s over 2 writers in 120 s = 2% of each one's time
            var operation = Backup(Wait("BACKUPBUFFER", 3000, 150000), Wait("BACKUPIO", 500, 5000)) with
            {
                Devices = [new DeviceReport(@"D:\b\Sales_1.bak"), new DeviceReport(@"E:\b\Sales_2.bak")],
            };

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.DataFileRead, diagnosis.Verdict.Bottleneck);
            Assert.Contains("The writers are mostly idle: BACKUPIO took 2% of each one's time.", diagnosis.Verdict.Evidence);
        }

        [Fact]
        public void Compression_on_without_cpu_queueing_is_data_file_read_with_low_confidence()
        {
            // Given
            var operation = Backup(Wait("BACKUPBUFFER", 3000, 150000), Wait("BACKUPIO", 500, 5000)) with
            {
                Options = new OptionsReport(null, Compression: true, null),
            };

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.DataFileRead, diagnosis.Verdict.Bottleneck);
            Assert.Equal(Confidence.Low, diagnosis.Verdict.Confidence);
            Assert.Contains("compression CPU cannot be ruled out", AllEvidence(diagnosis));
        }
    }

    public class CompressionCpu
    {
        [Fact]
        public void Compression_on_idle_writers_and_cpu_queueing_is_compression_cpu()
        {
            // Given: signal time 70 s of 215 s of waits = 33%
            var operation = Backup(
                Wait("BACKUPBUFFER", 3000, 150000, signalMs: 10000),
                Wait("BACKUPIO", 500, 5000),
                Wait("SOS_SCHEDULER_YIELD", 90000, 60000, signalMs: 60000)) with
            {
                Options = new OptionsReport(null, Compression: true, null),
            };

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.CompressionCpu, diagnosis.Verdict.Bottleneck);
            Assert.Contains("signal time was 33% of all wait time (70.0 s of 215.0 s", AllEvidence(diagnosis));
        }

        [Fact]
        public void A_compressed_backup_to_NUL_with_cpu_queueing_is_compression_cpu_as_in_the_published_test()
        {
            // Given: docs/backup-internals.md#compression-cpu-and-the-read-ceiling, to NUL with compression: CPU at ~98%, 765 MB/s
            var operation = Backup(
                Wait("BACKUPBUFFER", 4000, 160000, signalMs: 60000)) with
            {
                Devices = [new DeviceReport("NUL")],
                ThroughputMBps = 765,
                Options = new OptionsReport(null, Compression: true, null),
            };

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.CompressionCpu, diagnosis.Verdict.Bottleneck);
            Assert.Contains("This backup wrote to NUL: its throughput is the read ceiling of the source.", diagnosis.Verdict.Evidence);
            Assert.Contains("Throughput: 765 MB/s.", diagnosis.Verdict.Evidence);
        }
    }

    public class FileZeroing
    {
        [Fact]
        public void A_restore_spending_most_of_its_time_zeroing_the_log_is_file_zeroing_with_high_confidence()
        {
            // Given: 120 s zeroing the log of a 171 s restore = 70%
            var operation = Restore() with
            {
                Zeroing = [new ZeroingReport(@"L:\log\Sales_log.ldf", 6400000, null, null, 120)],
            };

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.FileZeroing, diagnosis.Verdict.Bottleneck);
            Assert.Equal(Confidence.High, diagnosis.Verdict.Confidence);
            Assert.Contains(@"Zeroing L:\log\Sales_log.ldf took 120.0 s (70% of the 171.0 s restore).", diagnosis.Verdict.Evidence);
        }

        [Fact]
        public void Parallel_zeroing_counts_wall_time_once()
        {
            // Given: data and log zeroed at the same time, 60 s each, in a 171 s restore
            var start = new DateTime(2024, 5, 1, 10, 0, 0);
            var operation = Restore() with
            {
                Zeroing =
                [
                    new ZeroingReport(@"D:\data\Sales.mdf", null, start, start.AddSeconds(60), 60),
                    new ZeroingReport(@"L:\log\Sales_log.ldf", null, start.AddSeconds(10), start.AddSeconds(70), 60),
                ],
            };

            // When
            var diagnosis = Diagnose(operation);

            // Then: 70 s of wall time = 41%
            Assert.Equal(Bottleneck.FileZeroing, diagnosis.Verdict.Bottleneck);
            Assert.Equal(Confidence.Medium, diagnosis.Verdict.Confidence);
            Assert.Contains("Zeroing in all: 70.0 s of wall time (41% of the 171.0 s restore).", diagnosis.Verdict.Evidence);
        }

        [Fact]
        public void The_wait_log_zero_phase_is_file_zeroing()
        {
            // Given
            var operation = Restore() with { Phases = [new PhaseReport("wait-log-zero", null, null, 80)] };

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.FileZeroing, diagnosis.Verdict.Bottleneck);
            Assert.Contains("The wait-log-zero phase took 80.0 s (47% of the 171.0 s restore).", diagnosis.Verdict.Evidence);
        }

        [Fact]
        public void Writefilegather_waits_are_file_zeroing()
        {
            // Given
            var operation = Restore(Wait("PREEMPTIVE_OS_WRITEFILEGATHER", 40, 95000));

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.FileZeroing, diagnosis.Verdict.Bottleneck);
            Assert.Contains("PREEMPTIVE_OS_WRITEFILEGATHER (file zeroing): 40 waits, 95.0 s in all (56% of the 171.0 s restore).", diagnosis.Verdict.Evidence);
        }

        [Fact]
        public void Backup_waits_in_a_restore_are_waiting_for_log_zero()
        {
            // Given
            var operation = Restore(Wait("BACKUP", 3, 90000), Wait("BACKUPIO", 100, 10000));

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.FileZeroing, diagnosis.Verdict.Bottleneck);
            Assert.Contains("BACKUP waits (in a restore: waiting for log zero): 90.0 s over 1 device (53% of the 171.0 s restore).", diagnosis.Verdict.Evidence);
        }

        [Fact]
        public void A_little_zeroing_is_not_the_bottleneck()
        {
            // Given: 20 s of 171 s = 12%, below the 30% threshold
            var operation = Restore(Wait("BACKUPIO", 3000, 120000)) with
            {
                Zeroing = [new ZeroingReport(@"L:\log\Sales_log.ldf", null, null, null, 20)],
            };

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.BackupDevice, diagnosis.Verdict.Bottleneck);
        }

        [Fact]
        public void A_backup_is_never_file_zeroing()
        {
            // Given
            var operation = Backup(Wait("BACKUP", 3, 100000), Wait("BACKUPIO", 100, 1000));

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.NotEqual(Bottleneck.FileZeroing, diagnosis.Verdict.Bottleneck);
        }
    }

    public class NoneBottleneck
    {
        [Fact]
        public void A_quick_operation_is_not_a_throughput_problem()
        {
            // Given
            var operation = Backup(Wait("BACKUPBUFFER", 5000, 5000)) with { DurationSeconds = 4 };

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.NotAThroughputProblem, diagnosis.Verdict.Bottleneck);
            Assert.Equal("duration", diagnosis.Verdict.DecidedBy);
            Assert.Contains("too quick", AllEvidence(diagnosis));
            Assert.Empty(diagnosis.Recommendations);
        }

        [Fact]
        public void Small_waits_relative_to_time_is_none()
        {
            // Given: BACKUPBUFFER 8% of each thread's time, BACKUPIO 8% of the writer's
            var operation = Backup(Wait("BACKUPBUFFER", 2000, 20000), Wait("BACKUPIO", 1000, 10000));

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.None, diagnosis.Verdict.Bottleneck);
            Assert.Contains("No dominant wait: BACKUPBUFFER 8% of each thread's time, BACKUPIO 8% of each writer's time.", diagnosis.Verdict.Evidence);
            Assert.Empty(diagnosis.Recommendations);
        }
    }

    public class UnknownBottleneck
    {
        [Fact]
        public void No_waits_says_to_install_the_session_and_how_to_get_the_other_evidence()
        {
            // Given: an errorlog input has no waits and, without trace flag 3213, no buffer configuration
            var operation = Backup();

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.Unknown, diagnosis.Verdict.Bottleneck);
            Assert.Equal(Confidence.Low, diagnosis.Verdict.Confidence);
            var evidence = AllEvidence(diagnosis);
            Assert.Contains("No waits were captured", evidence);
            Assert.Contains("backupxe session install", evidence);
            Assert.Contains("trace flag 3213", evidence);
            Assert.Contains("COPY_ONLY backup to NUL", evidence);
        }

        [Fact]
        public void What_would_change_it_does_not_repeat_a_line_of_the_evidence()
        {
            // When
            var verdict = Diagnose(Backup()).Verdict;

            // Then
            Assert.NotNull(verdict.WouldChange);
            Assert.DoesNotContain(verdict.WouldChange, verdict.Evidence);
            Assert.Equal("What the first line says is missing: with it, the backup's phases and waits decide.", verdict.WouldChange);
        }

        [Fact]
        public void No_waits_with_small_buffers_hints_at_them_without_claiming_them()
        {
            // Given
            var operation = Backup() with { BufferConfig = Buffers(7, 1024) };

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.Unknown, diagnosis.Verdict.Bottleneck);
            Assert.Contains("7 buffers x 1 MB = 7 MB of buffer memory: small, but without waits it cannot be shown to be the limit.", diagnosis.Verdict.Evidence);
        }

        [Fact]
        public void Waits_without_any_backup_wait_point_at_the_session_predicate()
        {
            // Given
            var operation = Backup(Wait("WRITELOG", 10, 100));

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.Unknown, diagnosis.Verdict.Bottleneck);
            Assert.Contains("no BACKUPBUFFER or BACKUPIO among them", AllEvidence(diagnosis));
        }

        [Fact]
        public void An_operation_without_duration_is_unknown()
        {
            // Given
            var operation = Backup(Wait("BACKUPIO", 1000, 90000)) with { DurationSeconds = null, Status = OperationStatus.Incomplete };

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.Unknown, diagnosis.Verdict.Bottleneck);
            Assert.Contains("duration is unknown", AllEvidence(diagnosis));
        }

        [Fact]
        public void The_published_default_restore_without_waits_is_unknown()
        {
            // Given: docs/backup-internals.md#a-10-gb-database-on-a-san, restore with defaults (6 buffers, 1024 KB) 171 s, errorlog only
            var operation = Restore();

            // When
            var diagnosis = Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.Unknown, diagnosis.Verdict.Bottleneck);
            Assert.DoesNotContain("NUL", AllEvidence(diagnosis));
        }
    }
}
