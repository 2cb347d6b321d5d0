using System.Text.RegularExpressions;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using Xunit;
using static BackupXe.Tests.Support.DiagnosisOperations;

namespace BackupXe.Tests.Diagnosis;

public partial class RemediesTests
{
    private static IReadOnlyList<Recommendation> Recommend(OperationReport operation, DiagnosisSettings? settings = null) =>
        new BackupDiagnostician(settings ?? new DiagnosisSettings()).Diagnose(operation).Recommendations;

    private static Recommendation Only(IReadOnlyList<Recommendation> recommendations, string id) =>
        Assert.Single(recommendations, recommendation => recommendation.Id == id);

    private static IEnumerable<string> Ids(IReadOnlyList<Recommendation> recommendations) => recommendations.Select(r => r.Id);

    /// <summary>Device-bound: BACKUPIO 75% of the writer's time with 256 MB of buffers, compression off.</summary>
    private static OperationReport DeviceBound() =>
        Backup(Wait("BACKUPBUFFER", 1000, 30000), Wait("BACKUPIO", 5000, 90000)) with { BufferConfig = Buffers(64, 4096) };

    /// <summary>Buffer-starved: many 2 ms BACKUPBUFFER waits over 2 threads.</summary>
    private static OperationReport Starved(BufferConfigReport buffers, int devices = 1) =>
        Backup(Wait("BACKUPBUFFER", 200000, 400000), Wait("BACKUPIO", 20000, 30000)) with
        {
            BufferConfig = buffers,
            Devices = Enumerable.Range(1, devices).Select(i => new DeviceReport($@"D:\b\Sales_{i}.bak")).ToList(),
        };

    /// <summary>Data-file-read: idle writer, long BACKUPBUFFER waits, compression off.</summary>
    private static OperationReport ReadBound() => Backup(Wait("BACKUPBUFFER", 3000, 150000), Wait("BACKUPIO", 500, 5000));

    [GeneratedRegex("^[a-z0-9]+(-[a-z0-9]+)*$")]
    private static partial Regex KebabCase();

    public class RaiseBuffers
    {
        [Fact]
        public void Published_test1_raises_to_64_buffers_of_4MB_and_shows_the_memory_cost()
        {
            // Given
            var operation = PublishedBufferTest(1);

            // When
            var raise = Only(Recommend(operation), RecommendationIds.RaiseBuffers);

            // Then
            Assert.Contains("BUFFERCOUNT from 7 to 64 and MAXTRANSFERSIZE from 1 MB to 4 MB", raise.Text);
            Assert.Contains("64 x 4 MB = 256 MB of buffer memory instead of 7 x 1 MB = 7 MB", raise.Text);
            Assert.Equal(
                "BACKUP DATABASE [tpch]\nTO DISK = N'E:\\backup\\tpch.bak'\nWITH COMPRESSION, BUFFERCOUNT = 64, MAXTRANSFERSIZE = 4194304, STATS = 10;",
                raise.Tsql);
        }

        [Fact]
        public void MaxTransferSize_already_at_4MB_is_kept_and_not_raised()
        {
            // Given: 8 x 4 MB = 32 MB, small for one device
            var operation = Starved(Buffers(8, 4096));

            // When
            var raise = Only(Recommend(operation), RecommendationIds.RaiseBuffers);

            // Then
            Assert.Contains("Raise BUFFERCOUNT from 8 to 64:", raise.Text);
            Assert.DoesNotContain("MAXTRANSFERSIZE from", raise.Text);
            Assert.Contains("already at its 4 MB ceiling", raise.Text);
            Assert.Contains("MAXTRANSFERSIZE = 4194304", raise.Tsql);
        }

        [Fact]
        public void The_reported_memory_limit_of_2300MB_caps_buffercount_times_maxtransfersize()
        {
            // Given: 9 devices aim at 9 x 64 = 576 buffers x 4 MB = 2304 MB, above the 2300 MB limit
            var operation = Starved(Buffers(49, 1024, memoryLimitMb: 2300), devices: 9);

            // When
            var raise = Only(Recommend(operation), RecommendationIds.RaiseBuffers);

            // Then
            Assert.Contains("575 x 4 MB = 2300 MB of buffer memory", raise.Text);
            Assert.Contains("Scaled down to fit the reported memory limit of 2300 MB.", raise.Text);
            Assert.Contains("BUFFERCOUNT = 575, MAXTRANSFERSIZE = 4194304", raise.Tsql);
        }

        [Fact]
        public void A_configured_budget_caps_the_buffer_memory()
        {
            // Given
            var operation = PublishedBufferTest(1);
            var settings = new DiagnosisSettings { MemoryBudgetBytes = 100 * MB };

            // When
            var raise = Only(Recommend(operation, settings), RecommendationIds.RaiseBuffers);

            // Then
            Assert.Contains("25 x 4 MB = 100 MB of buffer memory", raise.Text);
            Assert.Contains("the configured budget of 100 MB", raise.Text);
        }

        [Fact]
        public void The_smaller_of_budget_and_memory_limit_wins()
        {
            // Given: budget 4000 MB above the reported 2300 MB limit
            var operation = Starved(Buffers(49, 1024, memoryLimitMb: 2300), devices: 9);
            var settings = new DiagnosisSettings { MemoryBudgetBytes = 4000 * MB };

            // When
            var raise = Only(Recommend(operation, settings), RecommendationIds.RaiseBuffers);

            // Then
            Assert.Contains("the reported memory limit of 2300 MB", raise.Text);
            Assert.Contains("BUFFERCOUNT = 575", raise.Tsql);
        }

        [Fact]
        public void A_tight_budget_shrinks_maxtransfersize_in_64KB_steps_rather_than_cutting_buffers()
        {
            // Given: 7 x 1 MB today, 14 MB budget: 7 buffers of 4 MB would not fit
            var operation = Starved(Buffers(7, 1024)) with { };
            var settings = new DiagnosisSettings { MemoryBudgetBytes = 14 * MB };

            // When
            var raise = Only(Recommend(operation, settings), RecommendationIds.RaiseBuffers);

            // Then: 7 x 2 MB = 14 MB
            Assert.Contains("BUFFERCOUNT = 7, MAXTRANSFERSIZE = 2097152", raise.Tsql);
            Assert.Equal(0, 2097152 % 65536);
        }

        [Fact]
        public void Nothing_is_raised_when_the_budget_leaves_no_room_and_the_verdict_says_so()
        {
            // Given: 8 x 4 MB = 32 MB today, budget 32 MB
            var operation = Starved(Buffers(8, 4096));
            var diagnosis = new BackupDiagnostician(new DiagnosisSettings { MemoryBudgetBytes = 32 * MB }).Diagnose(operation);

            // Then
            Assert.Equal(Bottleneck.BufferStarved, diagnosis.Verdict.Bottleneck);
            Assert.DoesNotContain(RecommendationIds.RaiseBuffers, Ids(diagnosis.Recommendations));
            Assert.Contains(diagnosis.Verdict.Evidence, line => line.StartsWith("The buffers cannot be raised", StringComparison.Ordinal));
        }

        [Fact]
        public void A_log_backup_is_raised_with_backup_log()
        {
            // Given
            var operation = Starved(Buffers(7, 1024)) with { Scope = OperationScope.Log };

            // When
            var raise = Only(Recommend(operation), RecommendationIds.RaiseBuffers);

            // Then
            Assert.StartsWith("BACKUP LOG [Sales]\nTO DISK = N'D:\\b\\Sales_1.bak'", raise.Tsql);
        }

        [Fact]
        public void A_differential_backup_keeps_differential()
        {
            // Given
            var operation = Starved(Buffers(7, 1024)) with { Scope = OperationScope.Differential };

            // When
            var raise = Only(Recommend(operation), RecommendationIds.RaiseBuffers);

            // Then
            Assert.StartsWith("BACKUP DATABASE [Sales]", raise.Tsql);
            Assert.Contains("WITH DIFFERENTIAL,", raise.Tsql);
        }

        [Fact]
        public void A_starved_restore_is_raised_with_restore_from_disk()
        {
            // Given
            var operation = Restore(Wait("BACKUPBUFFER", 100000, 200000), Wait("BACKUPIO", 1000, 10000));

            // When
            var recommendations = Recommend(operation);

            // Then: restore-maxtransfersize would repeat raise-buffers, so it is left out
            var raise = Only(recommendations, RecommendationIds.RaiseBuffers);
            Assert.Contains("RESTORE DATABASE [Sales]\nFROM DISK = N'D:\\b\\Sales.bak'\nWITH BUFFERCOUNT = 64, MAXTRANSFERSIZE = 4194304", raise.Tsql);
            Assert.DoesNotContain(RecommendationIds.RestoreMaxTransferSize, Ids(recommendations));
        }
    }

    public class DeviceBoundRemedies
    {
        [Fact]
        public void A_device_bound_backup_gets_stripes_compression_and_blocksize_but_not_more_buffers()
        {
            // Given
            var operation = DeviceBound();

            // When
            var ids = Ids(Recommend(operation)).ToList();

            // Then
            Assert.Equal([RecommendationIds.StripeDevices, RecommendationIds.EnableCompression, RecommendationIds.BlockSize65536], ids);
        }

        [Fact]
        public void Stripes_are_derived_from_the_existing_path_and_put_on_separate_volumes()
        {
            // Given
            var operation = DeviceBound();

            // When
            var stripe = Only(Recommend(operation), RecommendationIds.StripeDevices);

            // Then
            Assert.Contains("4 files on separate volumes", stripe.Text);
            Assert.Contains(
                "TO DISK = N'D:\\b\\Sales_1.bak',\n   DISK = N'D:\\b\\Sales_2.bak',\n   DISK = N'D:\\b\\Sales_3.bak',\n   DISK = N'D:\\b\\Sales_4.bak'",
                stripe.Tsql);
        }

        [Fact]
        public void Eight_stripes_are_doubled_to_sixteen()
        {
            // Given: 8 writers, each in BACKUPIO 75% of the time
            var operation = DeviceBound() with
            {
                Devices = Enumerable.Range(1, 8).Select(i => new DeviceReport($@"D:\b\x{i}.bak")).ToList(),
                Waits = [Wait("BACKUPBUFFER", 1000, 30000), Wait("BACKUPIO", 40000, 8 * 90000)],
            };

            // When
            var stripe = Only(Recommend(operation), RecommendationIds.StripeDevices);

            // Then
            Assert.Contains("16 files", stripe.Text);
            Assert.Contains(@"D:\b\x1_16.bak", stripe.Tsql);
        }

        [Fact]
        public void Existing_numbered_stripes_are_renumbered_not_suffixed_again()
        {
            // Given: published test 7, tpch_1.bak and tpch_2.bak
            var operation = PublishedBufferTest(7);

            // When
            var stripe = Only(Recommend(operation), RecommendationIds.StripeDevices);

            // Then
            Assert.Contains(@"N'E:\backup\tpch_4.bak'", stripe.Tsql);
            Assert.DoesNotContain("tpch_1_1", stripe.Tsql);
        }

        [Fact]
        public void A_small_database_is_not_striped()
        {
            // Given: docs/backup-internals.md#a-10-gb-database-on-a-san, striping a 10 GB database did not help
            var operation = DeviceBound() with { EstimatedBytes = 10 * GB };

            // When
            var recommendations = Recommend(operation);

            // Then
            Assert.DoesNotContain(RecommendationIds.StripeDevices, Ids(recommendations));
        }

        [Fact]
        public void Compression_already_on_is_not_recommended_again()
        {
            // Given
            var operation = DeviceBound() with { Options = new OptionsReport(null, Compression: true, null) };

            // When
            var recommendations = Recommend(operation);

            // Then
            Assert.DoesNotContain(RecommendationIds.EnableCompression, Ids(recommendations));
        }

        [Fact]
        public void Enable_compression_shows_the_backup_with_compression()
        {
            // Given
            var operation = DeviceBound();

            // When
            var compression = Only(Recommend(operation), RecommendationIds.EnableCompression);

            // Then
            Assert.Contains("WITH COMPRESSION, STATS = 10;", compression.Tsql);
        }

        [Fact]
        public void Blocksize_mentions_the_published_gain_and_error_3268()
        {
            // Given
            var operation = DeviceBound();

            // When
            var blocksize = Only(Recommend(operation), RecommendationIds.BlockSize65536);

            // Then
            Assert.Contains("5-6%", blocksize.Text);
            Assert.Contains("3268", blocksize.Text);
            Assert.Contains("BLOCKSIZE = 65536", blocksize.Tsql);
        }

        [Fact]
        public void Small_buffers_on_a_busy_device_add_raise_buffers_and_the_read_ceiling_check()
        {
            // Given: BACKUPIO 75% with 7 x 1 MB
            var operation = DeviceBound() with { BufferConfig = Buffers(7, 1024) };

            // When
            var ids = Ids(Recommend(operation)).ToList();

            // Then
            Assert.Contains(RecommendationIds.RaiseBuffers, ids);
            Assert.Contains(RecommendationIds.MeasureReadCeiling, ids);
        }

        [Fact]
        public void A_device_bound_restore_gets_restore_maxtransfersize_and_no_backup_remedies()
        {
            // Given
            var operation = Restore(Wait("BACKUPIO", 3000, 120000)) with { BufferConfig = Buffers(64, 1024) };

            // When
            var ids = Ids(Recommend(operation)).ToList();

            // Then
            Assert.Equal([RecommendationIds.RestoreMaxTransferSize], ids);
        }
    }

    public class ReadSideRemedies
    {
        [Fact]
        public void Data_file_read_gets_spread_data_files_and_measure_read_ceiling()
        {
            // Given
            var operation = ReadBound();

            // When
            var ids = Ids(Recommend(operation)).ToList();

            // Then
            Assert.Equal([RecommendationIds.SpreadDataFiles, RecommendationIds.MeasureReadCeiling], ids);
        }

        [Fact]
        public void Spread_data_files_lists_the_files_and_their_volumes()
        {
            // Given
            var operation = ReadBound();

            // When
            var spread = Only(Recommend(operation), RecommendationIds.SpreadDataFiles);

            // Then
            Assert.Contains("one reader per volume (1 here)", spread.Text);
            Assert.Contains("sys.dm_os_volume_stats", spread.Tsql);
            Assert.Contains("WHERE f.database_id = DB_ID(N'Sales') AND f.type = 0;", spread.Tsql);
        }

        [Fact]
        public void Measure_read_ceiling_is_a_copy_only_backup_to_NUL_and_warns_about_msdb_history()
        {
            // Given
            var operation = ReadBound();

            // When
            var ceiling = Only(Recommend(operation), RecommendationIds.MeasureReadCeiling);

            // Then
            Assert.Contains("msdb", ceiling.Text);
            Assert.EndsWith("BACKUP DATABASE [Sales]\nTO DISK = N'NUL'\nWITH COPY_ONLY, NO_COMPRESSION, STATS = 10;", ceiling.Tsql);
        }

        [Fact]
        public void Measure_read_ceiling_of_a_log_backup_uses_backup_log()
        {
            // Given
            var operation = ReadBound() with { Scope = OperationScope.Log };

            // When
            var ceiling = Only(Recommend(operation), RecommendationIds.MeasureReadCeiling);

            // Then
            Assert.Contains("BACKUP LOG [Sales]\nTO DISK = N'NUL'\nWITH COPY_ONLY", ceiling.Tsql);
        }

        [Fact]
        public void A_backup_to_NUL_is_not_asked_to_measure_itself()
        {
            // Given
            var operation = ReadBound() with { Devices = [new DeviceReport("NUL")] };

            // When
            var recommendations = Recommend(operation);

            // Then
            Assert.DoesNotContain(RecommendationIds.MeasureReadCeiling, Ids(recommendations));
        }

        [Fact]
        public void Compression_cpu_compares_NUL_backups_with_and_without_compression()
        {
            // Given
            var operation = ReadBound() with
            {
                Options = new OptionsReport(null, Compression: true, null),
                Waits = [Wait("BACKUPBUFFER", 3000, 150000, signalMs: 75000)],
            };

            // When
            var recommendations = Recommend(operation);

            // Then
            var test = Only(recommendations, RecommendationIds.TestWithoutCompression);
            Assert.Contains("1.42 GB/s", test.Text);
            Assert.Contains("WITH COPY_ONLY, COMPRESSION, STATS = 10;", test.Tsql);
            Assert.Contains("WITH COPY_ONLY, NO_COMPRESSION, STATS = 10;", test.Tsql);
        }
    }

    public class FileZeroingRemedies
    {
        private static OperationReport ZeroingRestore(params string[] files) => Restore() with
        {
            Zeroing = files.Select(file => new ZeroingReport(file, null, null, null, 120)).ToList(),
        };

        [Fact]
        public void Zeroing_the_log_gets_right_size_log_and_restore_over_existing_but_not_ifi()
        {
            // Given
            var operation = ZeroingRestore(@"L:\log\Sales_log.ldf");

            // When
            var ids = Ids(Recommend(operation)).ToList();

            // Then
            Assert.Equal([RecommendationIds.RightSizeLog, RecommendationIds.RestoreOverExisting], ids);
        }

        [Fact]
        public void Zeroing_data_files_gets_instant_file_initialization()
        {
            // Given
            var operation = ZeroingRestore(@"D:\data\Sales.mdf");

            // When
            var ifi = Only(Recommend(operation), RecommendationIds.InstantFileInitialization);

            // Then
            Assert.Contains("SELECT servicename, service_account, instant_file_initialization_enabled\nFROM sys.dm_server_services;", ifi.Tsql);
            Assert.Contains("Perform volume maintenance tasks", ifi.Text);
        }

        [Fact]
        public void Zeroing_of_unknown_files_gets_both_ifi_and_right_size_log()
        {
            // Given
            var operation = Restore(Wait("PREEMPTIVE_OS_WRITEFILEGATHER", 40, 95000));

            // When
            var ids = Ids(Recommend(operation)).ToList();

            // Then
            Assert.Equal(
                [RecommendationIds.InstantFileInitialization, RecommendationIds.RightSizeLog, RecommendationIds.RestoreOverExisting],
                ids);
        }

        [Fact]
        public void Right_size_log_shows_the_log_sizes()
        {
            // Given
            var operation = ZeroingRestore(@"L:\log\Sales_log.ldf");

            // When
            var log = Only(Recommend(operation), RecommendationIds.RightSizeLog);

            // Then
            Assert.Contains("always zeroed", log.Text);
            Assert.Contains("DBCC SQLPERF(LOGSPACE);", log.Tsql);
            Assert.Contains("WHERE database_id = DB_ID(N'Sales') AND type = 1;", log.Tsql);
        }

        [Fact]
        public void Restore_over_existing_restores_with_replace()
        {
            // Given
            var operation = ZeroingRestore(@"L:\log\Sales_log.ldf");

            // When
            var replace = Only(Recommend(operation), RecommendationIds.RestoreOverExisting);

            // Then
            Assert.EndsWith("RESTORE DATABASE [Sales]\nFROM DISK = N'D:\\b\\Sales.bak'\nWITH REPLACE, STATS = 10;", replace.Tsql);
        }
    }

    public class RestoreMaxTransferSize
    {
        [Fact]
        public void The_published_default_restore_gets_4MB_with_the_published_times()
        {
            // Given: docs/backup-internals.md#a-10-gb-database-on-a-san, 6 buffers of 1 MB, 171 s
            var operation = Restore();

            // When
            var mts = Only(Recommend(operation), RecommendationIds.RestoreMaxTransferSize);

            // Then
            Assert.Contains("171 s", mts.Text);
            Assert.Contains("81 s", mts.Text);
            Assert.Contains("6 x 4 MB = 24 MB", mts.Text);
            Assert.EndsWith("RESTORE DATABASE [Sales]\nFROM DISK = N'D:\\b\\Sales.bak'\nWITH MAXTRANSFERSIZE = 4194304, STATS = 10;", mts.Tsql);
        }

        [Fact]
        public void A_restore_already_at_4MB_gets_no_maxtransfersize_raise()
        {
            // Given
            var operation = Restore() with { BufferConfig = Buffers(6, 4096) };

            // When
            var recommendations = Recommend(operation);

            // Then
            Assert.DoesNotContain(RecommendationIds.RestoreMaxTransferSize, Ids(recommendations));
        }

        [Fact]
        public void A_restore_log_uses_restore_log()
        {
            // Given
            var operation = Restore() with { Scope = OperationScope.Log };

            // When
            var mts = Only(Recommend(operation), RecommendationIds.RestoreMaxTransferSize);

            // Then
            Assert.Contains("RESTORE LOG [Sales]\nFROM DISK", mts.Tsql);
        }
    }

    public class CaptureWaits
    {
        [Fact]
        public void Missing_waits_get_the_tools_own_session_install_and_its_version_floor()
        {
            // Given
            var operation = Backup();

            // When
            var recommendations = Recommend(operation);

            // Then the session watch reads, installed after the permission check, not a second definition
            var capture = Only(recommendations, RecommendationIds.CaptureWaits);
            Assert.Contains("backupxe session install", capture.Text);
            Assert.Contains("SQL Server 2016 and later", capture.Text);
            Assert.Contains("backupxe session install --server <server>", capture.Tsql);
            Assert.Contains("backupxe session uninstall --server <server>", capture.Tsql);
            Assert.DoesNotContain("CREATE EVENT SESSION", capture.Tsql);
            Assert.Contains(RecommendationIds.MeasureReadCeiling, Ids(recommendations));
        }

        [Fact]
        public void Captured_waits_need_no_capture_waits()
        {
            // Given
            var operation = ReadBound();

            // When
            var recommendations = Recommend(operation);

            // Then
            Assert.DoesNotContain(RecommendationIds.CaptureWaits, Ids(recommendations));
        }
    }

    public class Tsql
    {
        [Fact]
        public void Names_are_bracket_quoted_and_strings_escaped()
        {
            // Given
            var operation = PublishedBufferTest(1) with
            {
                Database = "Q1]'x",
                Devices = [new DeviceReport(@"D:\O'Brien\x.bak")],
            };

            // When
            var raise = Only(Recommend(operation), RecommendationIds.RaiseBuffers);

            // Then
            Assert.StartsWith("BACKUP DATABASE [Q1]]'x]\nTO DISK = N'D:\\O''Brien\\x.bak'", raise.Tsql);
        }

        [Fact]
        public void Every_recommendation_id_is_kebab_case_and_has_tsql()
        {
            // Given
            OperationReport[] operations = [PublishedBufferTest(1), DeviceBound() with { BufferConfig = Buffers(7, 1024) }, ReadBound(), Backup(), Restore()];

            // When
            var recommendations = operations.SelectMany(operation => Recommend(operation)).ToList();

            // Then
            Assert.All(recommendations, r => Assert.Matches(KebabCase(), r.Id));
            Assert.All(recommendations, r => Assert.False(string.IsNullOrWhiteSpace(r.Tsql)));
            Assert.All(recommendations, r => Assert.DoesNotContain("{", r.Tsql.Replace("{ }", "", StringComparison.Ordinal)));
        }
    }
}
