using BackupXe.Core.Analysis;
using BackupXe.Core.Correlation;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Reporting;
using BackupXe.Sources;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Diagnosis;

/// <summary>
/// Every real-world fixture (Fixtures/realworld/SOURCES.md, SOURCES-added.md) read the way `analyze` reads it,
/// with the conclusion its notes describe and the exact numbers.
/// </summary>
public static class RealWorldDiagnosisTests
{
    private static async Task<IReadOnlyList<OperationReport>> AnalyseAsync(string file)
    {
        var source = InputSources.Open(Fixture.RealWorld(file));
        return (await PipelineRun.OfAsync(source)).Reports;
    }

    private static DateTime Local(int year, int month, int day, int hour, int minute, int second, int ms) =>
        new(year, month, day, hour, minute, second, ms, DateTimeKind.Unspecified);

    public class S14_a_2012_trace_flag_3004_restore_that_ends_before_its_closing_line
    {
        private const string File = "S14_sqlservercentral_2012_tf3004_restore_partial.txt";

        [Fact]
        public async Task Has_its_start_timed_phases_and_a_lower_bound_on_its_duration()
        {
            // Given / When
            var restore = Assert.Single(await AnalyseAsync(File));

            // Then: 16:48:52.280 to the last line at 16:49:11.330
            Assert.Equal(OperationKind.Restore, restore.Kind);
            Assert.Equal("AdventureWorks", restore.Database);
            Assert.Equal(53, restore.SessionId);
            Assert.Equal(OperationStatus.Incomplete, restore.Status);
            Assert.Equal(Local(2013, 7, 2, 16, 48, 52, 280), restore.Start);
            Assert.Null(restore.End);
            Assert.Null(restore.DurationSeconds);
            Assert.Equal(19.05, restore.MinimumDurationSeconds!.Value, 3);
            var waitLogZero = Assert.Single(restore.Phases, p => p.Name == "wait-log-zero");
            Assert.Equal(9.57, waitLogZero.Seconds!.Value, 3);
            var transfer = Assert.Single(restore.Phases, p => p.Name == "transfer-data");
            Assert.Equal(18.92, transfer.Seconds!.Value, 3);
            Assert.Equal(0, restore.UnknownMessages);
        }

        [Fact]
        public async Task Is_file_zeroing_decided_by_the_time_spent_waiting_for_log_zero()
        {
            // Given / When
            var restore = Assert.Single(await AnalyseAsync(File));
            var verdict = restore.Verdict!;

            // Then: blocked 0.03 s preparing containers + 9.57 s waiting for log zero = 9.60 s of 19.05 s = 50%
            Assert.Equal(Bottleneck.FileZeroing, verdict.Bottleneck);
            Assert.Equal(Confidence.High, verdict.Confidence);
            Assert.Equal("the prepare-containers phase and the wait-log-zero phase", verdict.DecidedBy);
            Assert.Contains("File zeroing took 50% of the 19.1 s seen before the input ends (threshold 30%).", verdict.Evidence);
            Assert.Contains("The wait-log-zero phase took 9.6 s (50% of the 19.1 s seen before the input ends).", verdict.Evidence);
            Assert.Contains(verdict.Evidence, e => e.StartsWith("Zeroing ran alongside the data transfer", StringComparison.Ordinal));

            // 9.60 s / 30% = 32.0 s, 12.95 s beyond the 19.05 s seen
            Assert.StartsWith("Zeroing would fall below 30% only if the restore ran more than 13.0 s past its last line", verdict.WouldChange);
        }

        [Fact]
        public async Task Proposes_the_log_remedies_and_not_instant_file_initialization()
        {
            // Given / When: only the .ldf was zeroed
            var restore = Assert.Single(await AnalyseAsync(File));
            var ids = restore.Recommendations.Select(r => r.Id).ToList();

            // Then
            Assert.Contains(RecommendationIds.RightSizeLog, ids);
            Assert.Contains(RecommendationIds.RestoreOverExisting, ids);
            Assert.DoesNotContain(RecommendationIds.InstantFileInitialization, ids);
        }
    }

    public class S15_a_2008_R2_trace_flag_3014_backup
    {
        private const string File = "S15_mssqltrek_2008r2_tf3014_backup.txt";

        [Fact]
        public async Task Has_its_start_end_bytes_and_device_tied_across_the_spid_and_Backup_columns()
        {
            // Given / When
            var backup = Assert.Single(await AnalyseAsync(File));

            // Then: pages dumped 3100 x 8 KB = 25,395,200 bytes in 0.39 s
            Assert.Equal(OperationKind.Backup, backup.Kind);
            Assert.Equal("3014_demo", backup.Database);
            Assert.Equal(54, backup.SessionId);
            Assert.Equal(OperationStatus.Completed, backup.Status);
            Assert.Equal(Local(2011, 9, 15, 22, 0, 40, 470), backup.Start);
            Assert.Equal(Local(2011, 9, 15, 22, 0, 40, 860), backup.End);
            Assert.Equal(0.39, backup.DurationSeconds!.Value, 3);
            Assert.Equal(3100, backup.PagesDumped);
            Assert.Equal(25_395_200, backup.BytesProcessed);
            Assert.Equal(@"D:\Backs\3014_full.bak", Assert.Single(backup.Devices).Path);
            var file = Assert.Single(backup.Files);
            Assert.EndsWith("3014_demo.mdf", file.Path, StringComparison.Ordinal);
            Assert.Equal(0.31, file.Seconds!.Value, 3);
            Assert.Equal(0, backup.UnknownMessages);
        }

        [Fact]
        public async Task Is_not_a_throughput_problem_for_24_MB_in_under_a_second()
        {
            // Given / When
            var backup = Assert.Single(await AnalyseAsync(File));

            // Then
            Assert.Equal(Bottleneck.NotAThroughputProblem, backup.Verdict!.Bottleneck);
            Assert.Contains("The backup took 0.39 s for 24.2 MB: below 10.0 s, too quick for tuning to matter; "
                + "its fixed steps (opening the media, checkpoint, metadata) weigh as much as the data it moves.", backup.Verdict.Evidence);
            Assert.Empty(backup.Recommendations);
        }
    }

    public class The_2014_trace_flag_3014_sample_that_ends_mid_backup
    {
        [Fact]
        public async Task Ran_at_least_1_9_s_and_is_unknown_without_waits_rather_than_quick()
        {
            // Given / When: 18:10:48.95 to the last line at 18:10:50.85
            var backup = Assert.Single((await PipelineRun.OfAsync(InputSources.Open(Fixture.Tf3014Sql2014))).Reports);

            // Then
            Assert.Equal(1.9, backup.MinimumDurationSeconds!.Value, 3);
            Assert.Equal(Bottleneck.Unknown, backup.Verdict!.Bottleneck);
            Assert.Contains("The input ends before the backup's closing line: it ran at least 1.9 s.", backup.Verdict.Evidence);
        }
    }

    public class A_2014_restore_without_instant_file_initialization
    {
        // Built from the 2014 trace flag 3004 wording (docs/diagnosis.md, Dialects): the data file is zeroed while
        // the containers are prepared, before any data moves.
        private const string Log =
            "2014-10-01 10:00:00.00 spid55      RestoreDatabase: Database CheckpointTest3\r\n"
            + "2014-10-01 10:00:00.10 spid55      Restore: PreparingContainers\r\n"
            + "2014-10-01 10:00:00.12 spid55      Zeroing F:\\DATA\\CheckpointTest3.mdf from page 1 to 15872 (0x2000 to 0x7c00000)\r\n"
            + "2014-10-01 10:00:00.12 spid55      Zeroing F:\\DATA\\CheckpointTest3_log.ldf from page 1 to 8192 (0x2000 to 0x4000000)\r\n"
            + "2014-10-01 10:00:02.00 spid55      Zeroing completed on F:\\DATA\\CheckpointTest3_log.ldf\r\n"
            + "2014-10-01 10:00:30.00 spid55      Zeroing completed on F:\\DATA\\CheckpointTest3.mdf\r\n"
            + "2014-10-01 10:00:30.05 spid55      Restore: Containers are ready\r\n"
            + "2014-10-01 10:00:30.10 spid55      Restore: Transferring data to CheckpointTest3\r\n"
            + "2014-10-01 10:00:38.00 spid55      Restore: Data transfer complete on CheckpointTest3\r\n"
            + "2014-10-01 10:00:38.05 spid55      Restore: Backup set restored\r\n"
            + "2014-10-01 10:00:40.00 Backup      Database was restored: Database: CheckpointTest3, creation date(time): 2014/09/30(10:00:00), "
            + "first LSN: 40:120:37, last LSN: 40:152:1, number of dump devices: 1, device information: (FILE=1, TYPE=DISK: {'E:\\Checkpoint3_Full.bak'}). "
            + "Informational message. No user action required.\r\n";

        [Fact]
        public async Task Is_file_zeroing_of_the_data_file_with_instant_file_initialization_proposed()
        {
            // Given
            using var input = TempInput.WithText(Log, Encodings.Utf16LeWithBom, "ERRORLOG");

            // When
            var restore = Assert.Single((await PipelineRun.OfAsync(InputSources.Open(input.Path))).Reports);

            // Then: prepare-containers 10:00:00.10 to 10:00:30.05 = 29.95 s of 40.0 s = 75%
            Assert.Equal(40.0, restore.DurationSeconds!.Value, 3);
            Assert.Equal(Bottleneck.FileZeroing, restore.Verdict!.Bottleneck);
            Assert.Equal(Confidence.High, restore.Verdict.Confidence);
            Assert.Equal("the prepare-containers phase", restore.Verdict.DecidedBy);
            Assert.Contains("File zeroing took 75% of the 40.0 s restore (threshold 30%).", restore.Verdict.Evidence);
            Assert.Contains("Data files were zeroed: Instant File Initialization was not in effect for this restore.", restore.Verdict.Evidence);
            Assert.Contains(restore.Recommendations, r => r.Id == RecommendationIds.InstantFileInitialization);
        }
    }

    public class A_2022_restore_from_an_older_version
    {
        // Built from the 3004 wording of S14, the 2022 upgrade lines of docs/backup-internals.md#input-formats and a URL device.
        private const string Log =
            "2024-05-01 10:00:00.00 spid60      RestoreDatabase: Database WideWorldImporters\r\n"
            + "2024-05-01 10:00:00.50 spid60      Restore: Transferring data to WideWorldImporters\r\n"
            + "2024-05-01 10:00:03.00 spid60      Restore: Data transfer complete on WideWorldImporters\r\n"
            + "2024-05-01 10:00:03.10 spid60      Converting database 'WideWorldImporters' from version 904 to the current version 957.\r\n"
            + "2024-05-01 10:00:03.20 spid60      Database 'WideWorldImporters' running the upgrade step from version 904 to version 905.\r\n"
            + "2024-05-01 10:00:40.00 spid60      Database 'WideWorldImporters' running the upgrade step from version 905 to version 906.\r\n"
            + "2024-05-01 10:00:41.00 Backup      Database was restored: Database: WideWorldImporters, creation date(time): 2022/08/03(19:50:39), "
            + "first LSN: 626:25056:2, last LSN: 627:10424:1, number of dump devices: 1, device information: (FILE=1, TYPE=URL: {'s3://s3.example.com:9000/backups/WWI.bak'}). "
            + "Informational message. No user action required.\r\n";

        [Fact]
        public async Task Has_its_upgrade_as_a_phase_of_its_own_that_decides_the_verdict()
        {
            // Given
            using var input = TempInput.WithText(Log, Encodings.Utf16LeWithBom, "ERRORLOG");

            // When
            var restore = Assert.Single((await PipelineRun.OfAsync(InputSources.Open(input.Path))).Reports);

            // Then: 10:00:03.10 to the end at 10:00:41.00 = 37.9 s of 41.0 s
            var upgrade = Assert.Single(restore.Phases, p => p.Name == "upgrade");
            Assert.Equal(37.9, upgrade.Seconds!.Value, 3);
            Assert.Equal(2, restore.UpgradeSteps);
            Assert.Equal("s3://s3.example.com:9000/backups/WWI.bak", Assert.Single(restore.Devices).Path);
            Assert.Equal(Bottleneck.NotAThroughputProblem, restore.Verdict!.Bottleneck);
            Assert.Equal("the upgrade phase", restore.Verdict.DecidedBy);
            Assert.Contains("The upgrade after the data copy took 37.9 s (92% of the 41.0 s restore), 2 upgrade steps.", restore.Verdict.Evidence);
        }
    }

    public class S12_a_restore_with_default_logging_only
    {
        private const string File = "S12_psssql_2008_restore_errorlog_default_logging.txt";

        [Fact]
        public async Task Is_one_completed_restore_with_its_database_end_and_device()
        {
            // Given / When
            var restore = Assert.Single(await AnalyseAsync(File));

            // Then
            Assert.Equal(OperationKind.Restore, restore.Kind);
            Assert.Equal("dbPerf_MAIN", restore.Database);
            Assert.Equal(OperationStatus.Completed, restore.Status);
            Assert.Equal(Local(2008, 1, 23, 8, 38, 46, 820), restore.End);
            Assert.Null(restore.Start);

            // Tied across columns: "marked RESTORING" on spid52 at 08:38:40.52, "Database was restored" on Backup
            Assert.Equal(52, restore.SessionId);
            Assert.Equal(6.3, restore.MinimumDurationSeconds!.Value, 3);
            Assert.Equal(@"c:\temp\dbperf_main.bak", Assert.Single(restore.Devices).Path);
        }

        [Fact]
        public async Task Cannot_tell_and_names_trace_flag_3004_and_the_XE_session()
        {
            // Given / When
            var restore = Assert.Single(await AnalyseAsync(File));
            var verdict = restore.Verdict!;

            // Then
            Assert.Equal(Bottleneck.CannotTell, verdict.Bottleneck);
            Assert.Equal("totals only", verdict.DecidedBy);
            Assert.Contains("Its start is not logged: it ran at least 6.3 s, from its first line in the input to its last.", verdict.Evidence);
            Assert.Contains(verdict.Evidence, e => e.Contains("where the time went cannot be told", StringComparison.Ordinal));
            Assert.Contains(verdict.Evidence, e => e.Contains("trace flags 3004 and 3605", StringComparison.Ordinal)
                && e.Contains("backupxe session install", StringComparison.Ordinal));
            var capture = Assert.Single(restore.Recommendations, r => r.Id == RecommendationIds.CaptureTraceFlags);
            Assert.Contains("DBCC TRACEON (3004, 3213, 3605, -1);", capture.Tsql);
            Assert.Contains("DBCC TRACEOFF (3004, 3213, 3605, -1);", capture.Tsql);
            Assert.Contains(restore.Recommendations, r => r.Id == RecommendationIds.CaptureWaits);
        }
    }

    public class S13_a_restore_seen_only_through_the_clients_STATS_output
    {
        private const string File = "S13_sqlworkday_2012_restore_stats_output.txt";

        [Fact]
        public async Task Is_read_as_client_output_with_pages_per_file_and_the_engines_rate()
        {
            // Given
            var source = InputSources.Open(Fixture.RealWorld(File));

            // When
            var restore = Assert.Single((await PipelineRun.OfAsync(source)).Reports);

            // Then: 292,894 pages x 8 KB = 2,399,387,648 bytes in 23.265 s = 98.355 MB/s
            Assert.Equal("client-output", source.Format);
            Assert.Equal(OperationKind.Restore, restore.Kind);
            Assert.Equal(OperationScope.Database, restore.Scope);
            Assert.Equal("TestDB", restore.Database);
            Assert.Equal(OperationStatus.Completed, restore.Status);
            Assert.Null(restore.Start);
            Assert.Null(restore.End);
            Assert.Equal(23.265, restore.DurationSeconds);
            Assert.Equal(2_399_387_648, restore.BytesProcessed);
            Assert.Equal(98.355, restore.ThroughputMBps);
            Assert.Equal(new EngineSummaryReport(292_894, 23.265, 98.355), restore.EngineSummary);
            Assert.Equal(
                [new ProcessedFileReport("TestDB", "TestDB", 292_888), new ProcessedFileReport("TestDB", "TestDB_log", 6)],
                restore.ProcessedFiles);
            Assert.Empty(restore.Phases);
        }

        [Fact]
        public async Task Cannot_tell_where_the_time_went_and_says_the_engines_seconds_include_zeroing_and_recovery()
        {
            // Given / When
            var restore = Assert.Single(await AnalyseAsync(File));
            var verdict = restore.Verdict!;

            // Then
            Assert.Equal(Bottleneck.CannotTell, verdict.Bottleneck);
            Assert.Contains("The engine's figure, 292894 pages in 23.3 s (98.4 MB/s), covers the whole restore: creating and zeroing its files and recovering the database are inside those seconds, "
                + "so its MB/s is the pages over all of that time, not the copy's own rate (docs/backup-internals.md, 'Completion lines').", verdict.Evidence);
            Assert.Contains("The engine's completion line is consistent: 292894 pages x 8 KB in 23.265 s = 98.355 MB/s, as reported (98.355 MB/sec).", verdict.Evidence);
        }
    }

    /// <summary>
    /// S04a-d and S05 are the author's excerpts of paired runs: "... in S seconds (R MB/sec)", the completion line with its
    /// head ("BACKUP DATABASE successfully processed N pages") cut. The seconds and rate are the engine's, exact; the kind
    /// and database went with the head, so no operation can be built from them honestly. BackupXe reads them as timed
    /// runs, says at their lines why they are not operations, and compares each run with the one before it. What changed
    /// between the runs is in SOURCES.md, not in the files: the comparison says only what the figures show.
    /// </summary>
    public class S04_and_S05_excerpts_of_paired_runs
    {
        // The runs are findings of the report, not problems of the input (issue 42): an excerpt is read whole.
        private static async Task<(IReadOnlyList<OperationReport> Reports, IReadOnlyList<InputProblem> Findings, string Format)> ReadAsync(string file)
        {
            var source = InputSources.Open(Fixture.RealWorld(file));
            var input = new AnalysisInput(source);
            var run = new Collector();
            await new AnalysisSession([input]).RunAsync(run, CancellationToken.None);
            Assert.Empty(input.Status.Problems);
            return (run.Reports, input.Status.Findings, source.Format);
        }

        private sealed class Collector : IOperationSink
        {
            public List<OperationReport> Reports { get; } = [];

            public void OnOperationCompleted(OperationReport report) => Reports.Add(report);
        }

        private static RunComparison Pair(string file, int group = 0)
        {
            var excerpt = new ExcerptRuns(10);
            var parser = new TraceMessageParser();
            var groups = new List<ExcerptGroup>();
            var line = 0;
            foreach (var text in File.ReadLines(Fixture.RealWorld(file)))
            {
                if (excerpt.Add(++line, text, parser.Parse(text).Message) is { } closed)
                {
                    groups.Add(closed);
                }
            }

            if (excerpt.Finish() is { } last)
            {
                groups.Add(last);
            }

            return Assert.Single(groups[group].Comparisons);
        }

        [Theory]
        [InlineData("S04a_sqlsat_timings_nocompress_vs_compress_ssd_usb.txt", "lines 2-3")]
        [InlineData("S04b_sqlsat_timings_1file_vs_3files_compressed.txt", "lines 1-2")]
        [InlineData("S04c_sqlsat_timings_3files_default_vs_bc64_mts2mb.txt", "lines 1-2")]
        [InlineData("S04d_sqlsat_timings_tf3042_off_vs_on.txt", "lines 1-2")]
        [InlineData("S05_sqlsat_install16_nocompress_vs_compress.txt", "lines 1-2")]
        public async Task Are_read_as_client_output_timed_runs_and_never_as_operations(string file, string location)
        {
            // Given / When
            var (reports, findings, format) = await ReadAsync(file);

            // Then: no operation is invented; the runs are named at their lines with the reason, as a finding
            Assert.Equal("client-output", format);
            Assert.Empty(reports);
            var runs = Assert.Single(findings, p => p.Location == location);
            Assert.Contains("the operation's kind and database were cut with the head, so they are timed runs, not operations.", runs.Message);
        }

        [Fact]
        public void S04a_SSD_pair_moved_the_same_data_and_both_runs_are_too_quick_to_tune()
        {
            // Given / When: 1.414 s x 134.067 = 189.57 MB, 0.542 s x 350.156 = 189.78 MB
            var ssd = Pair("S04a_sqlsat_timings_nocompress_vs_compress_ssd_usb.txt", group: 0);

            // Then
            Assert.Equal("SSD", ssd.Label);
            Assert.True(ssd.SameData);
            Assert.Equal(2.609, ssd.TimeRatio, 3);
            Assert.Equal(Bottleneck.NotAThroughputProblem, ssd.Verdict);
            Assert.StartsWith("SSD (lines 2 and 3): the same 189.6 MB (within 1%) in 1.414 s (134.067 MB/s) and 0.542 s (350.156 MB/s): "
                + "the second took 62% less time (2.61x faster by time, 2.61x by rate). Both ran under 10.0 s: not a throughput problem", ssd.Sentence());
        }

        [Fact]
        public void S04a_USB_pair_says_the_slow_run_was_not_limited_by_the_reads_and_that_its_data_differs()
        {
            // Given / When: 15.882 s x 11.971 = 190.1 MB, but 2.424 s x 48.437 = 117.4 MB: the figures do not describe the
            // same amount of data, so the rate ratio (4.05x) is the fair one, not the time ratio (6.55x)
            var usb = Pair("S04a_sqlsat_timings_nocompress_vs_compress_ssd_usb.txt", group: 1);

            // Then: SOURCES.md: uncompressed vs compressed; faster with fewer bytes to write = the output side is the limit
            Assert.Equal("USB", usb.Label);
            Assert.False(usb.SameData);
            Assert.Null(usb.Verdict);
            Assert.Equal(6.552, usb.TimeRatio, 3);
            Assert.Equal(4.046, usb.RateRatio, 3);
            Assert.Equal(
                "USB (lines 6 and 7): 190.1 MB and 117.4 MB (38% apart, so the rates compare, not the times) in 15.882 s (11.971 MB/s) and 2.424 s (48.437 MB/s): "
                + "the second took 85% less time (6.55x faster by time, 4.05x by rate). Line 7's run read the data at 48.437 MB/s, so line 6's 11.971 MB/s, "
                + "if both read the same database, was not limited by reading the data files: what limited it is on the side the change between the runs acted on.",
                usb.Sentence());
        }

        [Theory]
        [InlineData("S04b_sqlsat_timings_1file_vs_3files_compressed.txt", 0.745, 0.542, 0.27, true)]
        [InlineData("S04c_sqlsat_timings_3files_default_vs_bc64_mts2mb.txt", 0.542, 0.504, 0.07, false)]
        [InlineData("S04d_sqlsat_timings_tf3042_off_vs_on.txt", 1.091, 0.699, 0.36, true)]
        [InlineData("S05_sqlsat_install16_nocompress_vs_compress.txt", 1.414, 0.694, 0.51, true)]
        public void Gains_on_a_190_MB_database_are_fractions_of_a_second_and_not_a_throughput_problem(
            string file, double first, double second, double saved, bool sameData)
        {
            // Given / When
            var pair = Pair(file);

            // Then: S04c, more buffers buy 7% (0.038 s); S04b 3 files 27%; S04d trace flag 3042 36%; S05 compression 51%
            Assert.Equal(first, pair.First.Seconds);
            Assert.Equal(second, pair.Second.Seconds);
            Assert.Equal(saved, pair.TimeSaved, 2);
            Assert.Equal(sameData, pair.SameData);
            Assert.Equal(Bottleneck.NotAThroughputProblem, pair.Verdict);
            Assert.Contains("Both ran under 10.0 s: not a throughput problem", pair.Sentence());
        }

        [Fact]
        public void S04c_says_the_7_percent_with_its_numbers()
        {
            // Given / When: 0.542 s x 350.799 = 190.1 MB; 0.504 s x 390.125 = 196.6 MB (3% more data in the faster run)
            var pair = Pair("S04c_sqlsat_timings_3files_default_vs_bc64_mts2mb.txt");

            // Then
            Assert.Equal(
                "Lines 1 and 2: 190.1 MB and 196.6 MB (3% apart, so the rates compare, not the times) in 0.542 s (350.799 MB/s) and 0.504 s (390.125 MB/s): "
                + "the second took 7% less time (1.08x faster by time, 1.11x by rate). Both ran under 10.0 s: not a throughput problem; "
                + "the difference is 0.038 s of runs whose fixed steps weigh as much as their data.",
                pair.Sentence());
        }

        [Fact]
        public void S05_keeps_the_pages_the_excerpt_kept()
        {
            // Given / When: 24,266 pages x 8 KB = 189.6 MB in both runs
            var pair = Pair("S05_sqlsat_install16_nocompress_vs_compress.txt");

            // Then
            Assert.Equal(24_266, pair.First.Pages);
            Assert.Equal(24_266, pair.Second.Pages);
            Assert.Equal(0, pair.DataApart);
        }
    }

    public class S05_a_tiny_backup_as_the_client_shows_it
    {
        // S05 keeps the author's "..." elision before the figures; the client prints them after the backup's kind.
        private static async Task<OperationReport> BackupAsync(int line)
        {
            var published = File.ReadAllLines(Fixture.RealWorld("S05_sqlsat_install16_nocompress_vs_compress.txt"))[line];
            var figures = published.Trim()["... ".Length..];
            using var input = TempInput.WithText($"BACKUP DATABASE successfully processed {figures}\r\n", Encodings.Utf8WithBom, "client.txt");
            return Assert.Single((await PipelineRun.OfAsync(InputSources.Open(input.Path))).Reports);
        }

        [Theory]
        [InlineData(0, 1.414, 134.067)]
        [InlineData(1, 0.694, 273.156)]
        public async Task Is_not_a_throughput_problem_and_its_arithmetic_holds(int line, double seconds, double rate)
        {
            // Given / When
            var backup = await BackupAsync(line);

            // Then: 24,266 pages = 198,787,072 bytes (190 MB)
            Assert.Equal(198_787_072, backup.BytesProcessed);
            Assert.Equal(seconds, backup.DurationSeconds);
            Assert.Equal(Bottleneck.NotAThroughputProblem, backup.Verdict!.Bottleneck);
            Assert.True(EngineArithmetic.Agrees(24_266, seconds, rate));
            Assert.Contains(backup.Verdict.Evidence, e => e.StartsWith("The engine's completion line is consistent", StringComparison.Ordinal));
        }
    }

    public class S01_to_S03_buffer_blocks
    {
        private static BufferConfigReport Block(string file)
        {
            var parser = new TraceMessageParser();
            var buffers = new BufferConfiguration();
            foreach (var line in File.ReadAllLines(Fixture.RealWorld(file)))
            {
                if (parser.Parse(line).Message is BufferParameterLine value)
                {
                    buffers.Set(value.Parameter, value.Value);
                }
            }

            return buffers.ToReport();
        }

        [Theory]
        [InlineData("S01_sqlsat_tf3213_1dev_default_compressed.txt", 7, 1024, 21, 7)]
        [InlineData("S02_sqlsat_tf3213_3dev_default_compressed.txt", 17, 1024, 51, 17)]
        [InlineData("S03_sqlsat_tf3213_3dev_bc64_mts2mb_compressed.txt", 64, 2048, 345, 128)]
        public void Keep_the_reported_total_buffer_space(string file, int count, long transferKb, long totalMb, int mediaBuffers)
        {
            // Given / When
            var block = Block(file);

            // Then
            Assert.Equal(count, block.BufferCount);
            Assert.Equal(transferKb * 1024, block.MaxTransferSizeBytes);
            Assert.Equal(totalMb * 1024 * 1024, block.TotalBufferBytes);
            Assert.True(block.TotalBufferBytesReported);
            Assert.Equal(mediaBuffers, block.MediaBufferCount);
        }

        [Theory]
        [InlineData("S01_sqlsat_tf3213_1dev_default_compressed.txt", 7, 1024, 21, 7, 7)]
        [InlineData("S02_sqlsat_tf3213_3dev_default_compressed.txt", 17, 1024, 51, 17, 17)]
        [InlineData("S03_sqlsat_tf3213_3dev_bc64_mts2mb_compressed.txt", 64, 2048, 345, 128, 64)]
        public async Task Are_each_read_by_analyze_as_one_operation_whose_kind_and_database_the_block_does_not_say(
            string file, int count, long transferKb, long totalMb, int mediaBuffers, int encodeBuffers)
        {
            // Given / When: the block alone, as the author printed it, without the backup's own messages
            var operation = Assert.Single(await AnalyseAsync(file));

            // Then: what the block shows, exactly; what it does not show is unknown, never guessed
            Assert.Equal(OperationKind.Unknown, operation.Kind);
            Assert.Null(operation.Database);
            Assert.Null(operation.Scope);
            Assert.Equal(OperationStatus.Incomplete, operation.Status);
            Assert.Null(operation.DurationSeconds);
            Assert.Null(operation.ThroughputMBps);
            var buffers = operation.BufferConfig!;
            Assert.Equal(count, buffers.BufferCount);
            Assert.Equal(3, buffers.SetsOfBuffers);
            Assert.Equal(transferKb * 1024, buffers.MaxTransferSizeBytes);
            Assert.Equal(64 * 1024, buffers.MinMaxTransferSizeBytes);
            Assert.Equal(totalMb * 1024 * 1024, buffers.TotalBufferBytes);
            Assert.True(buffers.TotalBufferBytesReported);
            Assert.Equal(mediaBuffers, buffers.MediaBufferCount);
            Assert.Equal(transferKb * 1024, buffers.MediaBufferSizeBytes);
            Assert.Equal(encodeBuffers, buffers.EncodeBufferCount);
            Assert.Null(buffers.MemoryLimitBytes);
            Assert.Null(buffers.TabularDataDeviceCount);
            Assert.Equal(Bottleneck.Unknown, operation.Verdict!.Bottleneck);
            Assert.Equal(BottleneckRules.BufferBlockAlone, operation.Verdict.Evidence[0]);
            Assert.Equal("a buffer configuration block on its own", operation.Verdict.DecidedBy);
            Assert.DoesNotContain(operation.Verdict.Evidence, e => e.Contains("altered", StringComparison.Ordinal) || e.Contains("contradicts", StringComparison.Ordinal));
            Assert.DoesNotContain(operation.Recommendations, r => r.Id == RecommendationIds.MeasureReadCeiling);
        }

        [Fact]
        public async Task Two_blocks_printed_one_after_the_other_are_two_operations()
        {
            // Given: S01's block then S02's, as two backups with trace flags 3213 and 3604 print them
            var path = Path.Combine(Directory.CreateTempSubdirectory("backupxe-s01-s02-").FullName, "blocks.txt");
            try
            {
                await File.WriteAllTextAsync(path, await File.ReadAllTextAsync(Fixture.RealWorld("S01_sqlsat_tf3213_1dev_default_compressed.txt"))
                    + await File.ReadAllTextAsync(Fixture.RealWorld("S02_sqlsat_tf3213_3dev_default_compressed.txt")));

                // When
                var reports = (await PipelineRun.OfAsync(InputSources.Open(path))).Reports;

                // Then
                Assert.Equal(new[] { 7, 17 }, reports.Select(r => r.BufferConfig!.BufferCount!.Value));
                Assert.All(reports, r => Assert.Equal(OperationKind.Unknown, r.Kind));
            }
            finally
            {
                Directory.Delete(Path.GetDirectoryName(path)!, recursive: true);
            }
        }

        [Fact]
        public async Task A_block_on_its_own_does_not_take_the_lines_of_the_restore_after_it()
        {
            // Given: S01's block alone, then S02's block opening S13's restore (its STATS lines and completion line)
            var path = Path.Combine(Directory.CreateTempSubdirectory("backupxe-s01-s13-").FullName, "blocks.txt");
            try
            {
                await File.WriteAllTextAsync(path, await File.ReadAllTextAsync(Fixture.RealWorld("S01_sqlsat_tf3213_1dev_default_compressed.txt"))
                    + await File.ReadAllTextAsync(Fixture.RealWorld("S02_sqlsat_tf3213_3dev_default_compressed.txt"))
                    + await File.ReadAllTextAsync(Fixture.RealWorld("S13_sqlworkday_2012_restore_stats_output.txt")));

                // When
                var reports = (await PipelineRun.OfAsync(InputSources.Open(path))).Reports;

                // Then
                Assert.Equal(2, reports.Count);
                var block = Assert.Single(reports, r => r.Kind == OperationKind.Unknown);
                var restore = Assert.Single(reports, r => r.Kind == OperationKind.Restore);
                Assert.Equal(7, block.BufferConfig!.BufferCount);
                Assert.Equal((17, "TestDB", 292_894L), (restore.BufferConfig!.BufferCount!.Value, restore.Database!, restore.EngineSummary!.Pages));
            }
            finally
            {
                Directory.Delete(Path.GetDirectoryName(path)!, recursive: true);
            }
        }

        [Fact]
        public void Do_not_read_the_authors_remark_as_an_alignment()
        {
            // Given: "Filesystem i/o alignment:   512 :(" in S03, the ":(" being the author's, not the engine's
            var block = Block("S03_sqlsat_tf3213_3dev_bc64_mts2mb_compressed.txt");

            // Then
            Assert.Null(block.FilesystemIoAlignment);
        }

        [Fact]
        public void S03_buffer_memory_is_the_reported_345_MB_not_64_x_2_MB()
        {
            // Given: the S03 block on a 3-file backup whose writers wait on the device
            var operation = DiagnosisOperations.Backup(
                DiagnosisOperations.Wait("BACKUPBUFFER", 1000, 20_000),
                DiagnosisOperations.Wait("BACKUPIO", 3000, 200_000)) with
            {
                Devices = [new DeviceReport(@"D:\b\1.bak"), new DeviceReport(@"E:\b\2.bak"), new DeviceReport(@"F:\b\3.bak")],
                BufferConfig = Block("S03_sqlsat_tf3213_3dev_bc64_mts2mb_compressed.txt"),
            };

            // When
            var verdict = new BackupDiagnostician().Diagnose(operation).Verdict;

            // Then: 345 MB / 128 MB = 2.7x; 115 MB per device is not small
            Assert.Equal(Bottleneck.BackupDevice, verdict.Bottleneck);
            Assert.Contains("64 buffers x 2 MB = 128 MB as configured, but 345 MB of buffer memory as the server reports it "
                + "(Total buffer space, 2.7x BUFFERCOUNT x MAXTRANSFERSIZE, 115 MB per device): plentiful, more would not help (docs/backup-internals.md, 'Buffer count against waits', tests 4-5).",
                verdict.Evidence);
        }

        [Fact]
        public void S01_raise_buffers_is_priced_at_the_reported_ratio_and_kept_within_the_memory_limit()
        {
            // Given: the S01 block (7 x 1 MB reported as 21 MB: 3.0x), buffer-starved, with a 500 MB memory limit
            var operation = DiagnosisOperations.PublishedBufferTest(1) with
            {
                BufferConfig = Block("S01_sqlsat_tf3213_1dev_default_compressed.txt") with { MemoryLimitBytes = 500 * DiagnosisOperations.MB },
            };

            // When
            var raise = Assert.Single(new BackupDiagnostician().Diagnose(operation).Recommendations, r => r.Id == RecommendationIds.RaiseBuffers);

            // Then: 500 MB / 3.0 = 166.7 MB of configured buffers: 41 x 4 MB = 164 MB, 492 MB as the server counts it
            Assert.Contains("41 x 4 MB = 164 MB, about 492 MB of buffer memory as the server counts it (3.0x, the ratio it reports today)", raise.Text);
            Assert.Contains("BUFFERCOUNT = 41", raise.Tsql);
        }
    }
}
