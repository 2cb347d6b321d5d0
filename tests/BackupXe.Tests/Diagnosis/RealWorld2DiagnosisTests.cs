using System.Globalization;
using System.Text.RegularExpressions;
using BackupXe.Core.Baselines;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
using BackupXe.Core.History;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using BackupXe.Sources;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Diagnosis;

/// <summary>
/// The second set of genuine output (Fixtures/realworld2/SOURCES.md) read the way `analyze` reads it, with the
/// conclusion its notes give and the exact numbers.
/// </summary>
public static partial class RealWorld2DiagnosisTests
{
    private static async Task<IReadOnlyList<OperationReport>> AnalyseAsync(string file)
    {
        var source = InputSources.Open(Fixture.RealWorld2(file));
        return (await PipelineRun.OfAsync(source)).Reports;
    }

    public partial class Completion_lines_as_the_engine_writes_them
    {
        [GeneratedRegex(@"(\d+) pages in (\d+\.\d+) seconds \((\d+\.\d+) MB/sec\)", RegexOptions.CultureInvariant)]
        private static partial Regex CompletionFigures();

        public static TheoryData<string, string, int> EveryLine()
        {
            var data = new TheoryData<string, string, int>();
            foreach (var folder in new[] { "realworld", "realworld2" })
            {
                foreach (var path in Directory.GetFiles(Path.Combine(AppContext.BaseDirectory, "Fixtures", folder)).Order(StringComparer.Ordinal))
                {
                    var number = 0;
                    foreach (var line in File.ReadLines(path))
                    {
                        number++;
                        if (CompletionFigures().IsMatch(line))
                        {
                            data.Add(folder, Path.GetFileName(path), number);
                        }
                    }
                }
            }

            return data;
        }

        [Fact]
        public void Are_found_in_both_sets()
        {
            // Given / When: the genuine completion lines with their pages (S04's cut lines without pages excepted)
            var lines = EveryLine().Count();

            // Then: 2 in the first set (S05, S13) and 26 in the second (SOURCES.md names no line twice)
            Assert.True(lines >= 28, $"{lines} completion lines found");
        }

        [Theory]
        [MemberData(nameof(EveryLine))]
        public void Every_genuine_line_fits_together_once_the_page_rounding_is_allowed_for(string folder, string file, int line)
        {
            // Given
            var text = File.ReadLines(Path.Combine(AppContext.BaseDirectory, "Fixtures", folder, file)).ElementAt(line - 1);
            var figures = CompletionFigures().Match(text).Groups;
            var pages = long.Parse(figures[1].Value, CultureInfo.InvariantCulture);
            var seconds = double.Parse(figures[2].Value, CultureInfo.InvariantCulture);
            var rate = double.Parse(figures[3].Value, CultureInfo.InvariantCulture);

            // When
            var sentence = EngineArithmetic.Sentence(new EngineSummaryReport(pages, seconds, rate))!;

            // Then: no genuine line is called contradictory, let alone altered
            Assert.True(EngineArithmetic.Agrees(pages, seconds, rate), text);
            Assert.DoesNotContain("altered", sentence, StringComparison.Ordinal);
            Assert.DoesNotContain("do not fit", sentence, StringComparison.Ordinal);
        }

        [Theory]
        [InlineData(2, 0.074, 0.171)]
        [InlineData(2, 0.012, 1.057)]
        [InlineData(3, 0.054, 0.406)]
        [InlineData(3, 0.063, 0.348)]
        public void The_small_log_lines_7_to_23_percent_apart_would_fail_a_1_percent_check(long pages, double seconds, double rate)
        {
            // Given / When
            var computed = EngineArithmetic.Recompute(pages, seconds)!.Value;

            // Then: the check must not be the 1% one (T02, T12)
            Assert.True(Math.Abs(computed - rate) / rate > EngineArithmetic.Tolerance);
            Assert.True(EngineArithmetic.Agrees(pages, seconds, rate));
        }

        [Fact]
        public void The_rounding_is_the_only_slack_a_line_gets()
        {
            // Given: T12's 2-page log backup, with a rate that stands for more than 2 pages or for under 1 page
            // When / Then
            Assert.False(EngineArithmetic.Agrees(2, 0.074, 0.250));
            Assert.False(EngineArithmetic.Agrees(2, 0.074, 0.100));
            Assert.True(EngineArithmetic.Agrees(2, 0.074, 0.211));
        }

        [Fact]
        public async Task T12_log_backup_keeps_the_engines_rate_and_explains_the_rounding()
        {
            // Given / When: BACKUP LOG 2 pages in 0.074 s (0.171 MB/sec): 13,269 bytes, 1.6 pages
            var log = (await AnalyseAsync(T12))[1];

            // Then
            Assert.Equal(OperationScope.Log, log.Scope);
            Assert.Equal(0.171, log.ThroughputMBps);
            Assert.Equal(new EngineSummaryReport(2, 0.074, 0.171), log.EngineSummary);
            Assert.Contains("The engine's completion line reports 0.171 MB/sec where 2 pages x 8 KB in 0.074 s = 0.211 MB/s (23% apart), and both are right: "
                + "its rate counts the bytes it moved (13,269 bytes, 1.6 pages) and its page count rounds them up to whole pages, "
                + "which weighs on an operation of a few pages. The rate is the engine's, reported as printed.", log.Verdict!.Evidence);
            Assert.DoesNotContain(log.Verdict.Evidence, e => e.Contains("altered", StringComparison.Ordinal) || e.Contains("contradicts", StringComparison.Ordinal));
        }

        [Fact]
        public async Task T12_quick_operations_say_their_seconds_as_the_engine_printed_them()
        {
            // Given / When: BACKUP LOG 9 pages in 0.045 s, RESTORE LOG 2 pages in 0.012 s
            var reports = await AnalyseAsync(T12);

            // Then: not "took 0.0 s"
            Assert.StartsWith("The backup took 0.045 s for 72 KB: below 10.0 s", reports[2].Verdict!.Evidence[0]);
            Assert.StartsWith("The restore took 0.012 s for 16 KB: below 10.0 s", reports[4].Verdict!.Evidence[0]);
            Assert.StartsWith("The backup took 0.922 s for 3.1 MB: below 10.0 s", reports[0].Verdict!.Evidence[0]);
        }

        [Fact]
        public async Task T12_every_operation_reports_the_printed_rate()
        {
            // Given / When
            var reports = await AnalyseAsync(T12);

            // Then
            Assert.Equal([3.331, 0.171, 1.562, 9.168, 1.057, 3.515, null], reports.Select(r => r.ThroughputMBps));
        }
    }

    public class T09a_a_restore_that_fails_after_its_copy
    {
        private const string File = "T09a_lessthandot_2013_sql2012_restore_fails_buffer_latch_timeout.txt";

        [Fact]
        public async Task Names_Msg_845_printed_after_the_generic_3013_as_the_failure_reason()
        {
            // Given / When: SSMS printed "Msg 3013 ... terminating abnormally" first, the real error after it
            var restore = Assert.Single(await AnalyseAsync(File));

            // Then
            Assert.Equal(OperationStatus.Failed, restore.Status);
            Assert.Equal((OperationKind.Restore, OperationScope.Database, "TEMPRESTORE"), (restore.Kind, restore.Scope, restore.Database));
            Assert.Equal("Msg 845: Time-out occurred while waiting for buffer latch type 3 for page (1:0), database ID 27.", restore.FailureReason);
            Assert.Equal(new FailureErrorReport(845, 17, "Time-out occurred while waiting for buffer latch type 3 for page (1:0), database ID 27.", CopyStage.AfterCopy),
                restore.FailureError! with { Remedy = null });
            Assert.Equal("storage-stall", restore.FailureError.Remedy!.Id);
            Assert.Equal((Bottleneck.Unknown, Confidence.High, "the failure's root error"), (restore.Verdict!.Bottleneck, restore.Verdict.Confidence, restore.Verdict.DecidedBy));
            Assert.Empty(restore.Recommendations);
        }

        [Fact]
        public async Task Says_the_copy_had_finished_and_what_a_buffer_latch_time_out_means()
        {
            // Given / When: 100 percent and 532,576 + 4 pages processed before the error
            var restore = Assert.Single(await AnalyseAsync(File));

            // Then
            Assert.Equal(532_580L * 8192, restore.BytesProcessed);
            var failure = restore.Verdict!.Evidence[0];
            Assert.StartsWith("The restore failed with Msg 845 (severity 17): Time-out occurred while waiting for buffer latch type 3 for page (1:0), database ID 27. "
                + "It came after the copy: every file's pages had been restored", failure);
            Assert.Contains("not while copying", failure);
            Assert.Contains("the storage under them stalled or was driven to its limit", failure);
            Assert.DoesNotContain(restore.Verdict.Evidence, e => e.Contains("terminating abnormally", StringComparison.Ordinal));
        }
    }

    public class A_failure_with_only_the_generic_ending
    {
        [Fact]
        public async Task Says_the_input_names_no_real_error_rather_than_calling_3013_the_reason()
        {
            // Given: T09a's failure lines without the Msg 845 that SSMS printed after them
            var lines = System.IO.File.ReadLines(Fixture.RealWorld2("T09a_lessthandot_2013_sql2012_restore_fails_buffer_latch_timeout.txt")).Take(24);
            using var input = TempInput.WithText(string.Join("\r\n", lines) + "\r\n", Encodings.Utf8WithoutBom, "ssms.txt");

            // When
            var restore = Assert.Single((await PipelineRun.OfAsync(InputSources.Open(input.Path))).Reports);

            // Then
            Assert.Equal(OperationStatus.Failed, restore.Status);
            Assert.Null(restore.FailureError);
            Assert.Equal("The restore failed, and the input names no error more specific than its generic ending (RESTORE DATABASE is terminating abnormally.): "
                + "the client's own output (SSMS, sqlcmd, the Agent job step) prints the real error just before or after that line.", restore.Verdict!.Evidence[0]);
        }
    }

    public class T09b_a_restore_with_recovery_that_copies_nothing
    {
        private const string File = "T09b_lessthandot_2013_sql2012_restore_with_recovery_upgrade_only.txt";

        [Fact]
        public async Task Is_its_recovery_measured_from_the_engines_seconds_with_no_copy_rate()
        {
            // Given / When
            var restore = Assert.Single(await AnalyseAsync(File));

            // Then: 0 pages in 289.824 s, all of it recovery and upgrade
            Assert.Equal(OperationStatus.Completed, restore.Status);
            Assert.Equal(289.824, restore.DurationSeconds);
            Assert.Null(restore.ThroughputMBps);
            Assert.Equal(11, restore.UpgradeSteps);

            // The author's "........." stands for the steps from version 672 to 700: 11 is what the output shows, not the upgrade's count
            Assert.Equal(new VersionGap(672, 700), Assert.Single(restore.UpgradeGaps));
            var recovery = Assert.Single(restore.Phases);
            Assert.Equal(("recovery", 289.824), (recovery.Name, recovery.Seconds!.Value));
        }

        [Fact]
        public async Task Is_not_a_throughput_problem_because_nothing_was_copied()
        {
            // Given / When
            var restore = Assert.Single(await AnalyseAsync(File));
            var verdict = restore.Verdict!;

            // Then
            Assert.Equal(Bottleneck.NotAThroughputProblem, verdict.Bottleneck);
            Assert.Equal(Confidence.High, verdict.Confidence);
            Assert.Equal("no data copied", verdict.DecidedBy);
            Assert.Contains("The restore copied no data (0 pages): all of its 289.8 s went to the upgrade of the database from an older version "
                + "(11 upgrade steps shown; the output leaves out those from version 672 to 700, so the upgrade ran more steps than that) "
                + "and recovery, none to copying; its 0 MB/s is not a copy rate, and no BUFFERCOUNT, MAXTRANSFERSIZE or device changes it.", verdict.Evidence);
            Assert.DoesNotContain(verdict.Evidence, e => e.Contains("not measured by it", StringComparison.Ordinal));
            Assert.Empty(restore.Recommendations);
        }
    }

    public class T01a_and_T02_SQL_Server_2022_T_SQL_snapshot_backups_printed_by_PowerShell
    {
        [Theory]
        [InlineData("T01a_purestorage_sql2022_tsql_snapshot_backup_pitr_verbose.txt", 2)]
        [InlineData("T02_purestorage_sql2022_snapshot_ag_seed_verbose.txt", 4)]
        public async Task Are_read_as_client_output_through_their_VERBOSE_prefixes(string file, int operations)
        {
            // Given
            var source = InputSources.Open(Fixture.RealWorld2(file));

            // When
            var reports = (await PipelineRun.OfAsync(source)).Reports;

            // Then: no longer "not a recognised format"
            Assert.Equal("client-output", source.Format);
            Assert.Equal(operations, reports.Count);
            Assert.All(reports, r => Assert.Equal(0, r.UnknownMessages));
        }

        [Theory]
        [InlineData("T01a_purestorage_sql2022_tsql_snapshot_backup_pitr_verbose.txt", 0.027)]
        [InlineData("T02_purestorage_sql2022_snapshot_ag_seed_verbose.txt", 0.008)]
        public async Task The_metadata_only_backup_is_a_snapshot_backup_never_judged_by_its_rate(string file, double seconds)
        {
            // Given / When
            var backup = (await AnalyseAsync(file))[0];

            // Then: 0 pages is not slow, and the freeze cannot be timed without a clock
            Assert.Equal((OperationKind.Backup, OperationScope.Database, "TPCC100"), (backup.Kind, backup.Scope, backup.Database));
            Assert.Equal(new SnapshotReport("t-sql", null, null, null), backup.Snapshot);
            Assert.Equal(seconds, backup.DurationSeconds);
            Assert.Null(backup.ThroughputMBps);
            Assert.Equal(Bottleneck.NotAThroughputProblem, backup.Verdict!.Bottleneck);
            Assert.Equal("a snapshot backup", backup.Verdict.DecidedBy);
            Assert.StartsWith("This backup of TPCC100 is a T-SQL snapshot backup", backup.Verdict.Evidence[0]);
            Assert.Contains("0 MB/s is not slow", backup.Verdict.Evidence[0]);
            Assert.Contains(backup.Verdict.Evidence, e => e.StartsWith("The freeze cannot be measured from this input", StringComparison.Ordinal));
            Assert.Empty(backup.Recommendations);
        }

        [Fact]
        public async Task T02_instant_restore_copies_nothing_and_its_log_lines_keep_the_engines_rates()
        {
            // Given / When
            var reports = await AnalyseAsync("T02_purestorage_sql2022_snapshot_ag_seed_verbose.txt");

            // Then: RESTORE ... METADATA_ONLY 0 pages in 0.722 s; BACKUP LOG and RESTORE LOG 3 pages at 0.406 and 0.348 MB/sec
            Assert.Equal(Bottleneck.NotAThroughputProblem, reports[1].Verdict!.Bottleneck);
            Assert.Equal("no data copied", reports[1].Verdict!.DecidedBy);
            Assert.Null(reports[1].ThroughputMBps);
            Assert.Equal((OperationScope.Log, 0.406), (reports[2].Scope, reports[2].ThroughputMBps!.Value));
            Assert.Equal((OperationScope.Log, 0.348), (reports[3].Scope, reports[3].ThroughputMBps!.Value));
            Assert.All(reports, r => Assert.DoesNotContain(r.Verdict!.Evidence, e => e.Contains("do not fit", StringComparison.Ordinal)));
        }
    }

    public class T01b_the_same_snapshot_backup_in_the_ERRORLOG_as_Get_DbaErrorLog_prints_it
    {
        private const string File = "T01b_purestorage_sql2022_snapshot_errorlog_get-dbaerrorlog.txt";

        [Fact]
        public async Task Is_read_as_an_errorlog_with_its_dates_and_sessions()
        {
            // Given: three Format-Table rows (ComputerName InstanceName SqlInstance LogDate Source Text), no header
            var source = InputSources.Open(Fixture.RealWorld2(File));

            // When
            var run = await PipelineRun.OfAsync(source);

            // Then: no longer "not a recognised format"; the backup is dated to the second the table gives
            Assert.Equal("errorlog", source.Format);
            var backup = Assert.Single(run.Reports);
            Assert.Equal((OperationKind.Backup, OperationScope.Database, "TPCC100", 149), (backup.Kind, backup.Scope, backup.Database, backup.SessionId));
            Assert.Equal(new DateTime(2024, 6, 18, 8, 37, 59), backup.End);
            Assert.Equal(0, backup.UnknownMessages);

            // And: the engine's 0.027 s, not the 0 s of a clock that dates to the second
            Assert.Equal(0.027, backup.DurationSeconds);
        }

        [Fact]
        public async Task Is_a_snapshot_backup_of_0_pages_whose_917114_pages_dumped_are_not_a_copy()
        {
            // Given / When: "pages dumped: 917114, first ..." and "0 pages in 0.027 seconds (0.000 MB/sec)...." cut by Format-Table
            var backup = Assert.Single(await AnalyseAsync(File));

            // Then: the engine's 0 pages, not 7 GB processed in no time
            Assert.Equal("t-sql", backup.Snapshot!.Method);
            Assert.Null(backup.Snapshot.FrozenSeconds);
            Assert.Equal(new EngineSummaryReport(0, 0.027, 0), backup.EngineSummary);
            Assert.Equal(917114, backup.PagesDumped);
            Assert.Equal(0, backup.BytesProcessed);
            Assert.Null(backup.ThroughputMBps);
            Assert.Equal(Bottleneck.NotAThroughputProblem, backup.Verdict!.Bottleneck);
            Assert.Equal("a snapshot backup", backup.Verdict.DecidedBy);
            Assert.Contains("The freeze cannot be measured from this input: it holds no timed pair of \"I/O is frozen\" and \"I/O was resumed\" lines for this backup "
                + "(the whole ERRORLOG of that time has them).", backup.Verdict.Evidence);
            Assert.Empty(backup.Recommendations);
        }

        [Fact]
        public async Task Goes_into_a_history_as_a_snapshot_backup_that_is_never_ranked()
        {
            // Given / When: what history import keeps of the T01b backup
            var record = HistoryOperation.FromReport(Assert.Single(await AnalyseAsync(File)))!;

            // Then
            Assert.True(record.Snapshot);
            Assert.Equal("snapshot", SeriesStatistics.Unranked(record));
        }
    }

    public class A_VSS_snapshot_backup_in_the_ERRORLOG
    {
        // Built from the freeze and resume wording of real-world T01a (the same lines VSS writes) and the 2008 R2 history line
        // of S15, with a virtual device as VSS backups have.
        private static string Log(double frozenSeconds) =>
            "2024-06-18 08:37:50.00 spid61      I/O is frozen on database Sales. No user action is required. However, if I/O is not resumed promptly, you could cancel the backup.\r\n"
            + $"2024-06-18 08:{37 + (int)((50 + frozenSeconds) / 60):00}:{(50 + frozenSeconds) % 60:00.00} spid61      I/O was resumed on database Sales. No user action is required.\r\n"
            + "2024-06-18 08:39:00.00 Backup      Database backed up. Database: Sales, creation date(time): 2023/04/26(01:31:53), pages dumped: 917114, first LSN: 40:120:37, "
            + "last LSN: 40:152:1, number of dump devices: 1, device information: (FILE=1, TYPE=VIRTUAL_DEVICE: {'{3F2504E0-4F89-11D3-9A0C-0305E82C3301}1'}). "
            + "This is an informational message only. No user action is required.\r\n";

        [Fact]
        public async Task Has_its_freeze_window_measured_and_a_long_freeze_is_the_finding()
        {
            // Given: writes frozen 08:37:50.00 to 08:38:05.00
            using var input = TempInput.WithText(Log(15), Encodings.Utf16LeWithBom, "ERRORLOG");

            // When
            var backup = Assert.Single((await PipelineRun.OfAsync(InputSources.Open(input.Path))).Reports);

            // Then: "pages dumped: 917114" is the database's size, not a copy
            Assert.Equal("Sales", backup.Database);
            Assert.Equal("vss", backup.Snapshot!.Method);
            Assert.Equal(15, backup.Snapshot.FrozenSeconds!.Value, 3);
            Assert.Null(backup.ThroughputMBps);
            Assert.Equal(Bottleneck.NotAThroughputProblem, backup.Verdict!.Bottleneck);
            Assert.Equal(Confidence.High, backup.Verdict.Confidence);
            Assert.Equal("the snapshot's freeze", backup.Verdict.DecidedBy);
            Assert.Contains("I/O on Sales was frozen from 08:37:50.000 to 08:38:05.000: 15.0 s. Writes stalled for 15.0 s (threshold 10.0 s): "
                + "every write and commit of the database waited that long; the storage's snapshot, or the requestor between freeze and thaw, is what to look at.",
                backup.Verdict.Evidence);
        }

        [Fact]
        public async Task A_short_freeze_is_no_finding()
        {
            // Given: 2.5 s
            using var input = TempInput.WithText(Log(2.5), Encodings.Utf16LeWithBom, "ERRORLOG");

            // When
            var backup = Assert.Single((await PipelineRun.OfAsync(InputSources.Open(input.Path))).Reports);

            // Then
            Assert.Equal(2.5, backup.Snapshot!.FrozenSeconds!.Value, 3);
            Assert.Contains(backup.Verdict!.Evidence, e => e.EndsWith("2.5 s, below 10.0 s: a freeze users barely feel.", StringComparison.Ordinal));
        }
    }

    public class SQL_Agent_transcripts
    {
        [Fact]
        public async Task Step_output_with_SQLSTATE_suffixes_reads_as_the_same_operations_as_T12()
        {
            // Given: T12's first backup as an Agent T-SQL step stores it, " [SQLSTATE 01000]" after each message
            var lines = System.IO.File.ReadLines(Fixture.RealWorld2(T12)).Take(3).Select(l => l + " [SQLSTATE 01000]");
            using var input = TempInput.WithText(string.Join("\r\n", lines) + "\r\n", Encodings.Utf8WithoutBom, "step.txt");

            // When
            var backup = Assert.Single((await PipelineRun.OfAsync(InputSources.Open(input.Path))).Reports);

            // Then
            Assert.Equal((OperationKind.Backup, "Northwind", 3.331), (backup.Kind, backup.Database, backup.ThroughputMBps!.Value));
            Assert.Equal(2, backup.ProcessedFiles.Count);
            Assert.Equal(0, backup.UnknownMessages);
        }

        [Fact]
        public async Task A_job_history_line_holding_a_whole_failed_step_names_its_numbered_error()
        {
            // Given: the job history's one line per step, every message with its SQLSTATE and number
            const string history = "Executed as user: NT SERVICE\\SQLSERVERAGENT. 10 percent processed. [SQLSTATE 01000] (Message 3211)  "
                + "Write on \"X:\\b\\Sales.bak\" failed: 112(There is not enough space on the disk.) [SQLSTATE 42000] (Error 3202)  "
                + "BACKUP DATABASE is terminating abnormally. [SQLSTATE 42000] (Error 3013).  The step failed.\r\n";
            using var input = TempInput.WithText(history, Encodings.Utf8WithoutBom, "history.txt");

            // When
            var backup = Assert.Single((await PipelineRun.OfAsync(InputSources.Open(input.Path))).Reports);

            // Then: the write failed during the copy (10 percent printed, not its end)
            Assert.Equal(OperationStatus.Failed, backup.Status);
            Assert.Equal(3202, backup.FailureError!.Number);
            Assert.Equal(CopyStage.DuringCopy, backup.FailureError.Stage);
            Assert.StartsWith("Msg 3202: Write on", backup.FailureReason);
            Assert.Contains("112: the disk is full", backup.Verdict!.Evidence[0]);
        }
    }

    public class T10_restores_of_the_same_databases_from_compressed_and_uncompressed_backups
    {
        private const string File = "T10_lessthandot_2009_sql2008_restores_from_compressed_vs_uncompressed.txt";

        [Fact]
        public async Task Keeps_the_four_engine_lines_exactly()
        {
            // Given / When
            var reports = await AnalyseAsync(File);

            // Then: the fourth line has no final period in the source
            Assert.Equal([23.524, 38.951, 215.319, 456.590], reports.Select(r => r.DurationSeconds!.Value));
            Assert.Equal([202.578, 122.344, 201.089, 94.829], reports.Select(r => r.ThroughputMBps!.Value));
            Assert.Equal([609_980L, 609_977, 5_542_183, 5_542_177], reports.Select(r => r.EngineSummary!.Pages));
        }

        [Fact]
        public async Task Compares_each_uncompressed_run_with_the_run_of_the_same_data_before_it()
        {
            // Given / When
            var reports = await AnalyseAsync(File);

            // Then: 38.951 / 23.524 = 1.66x and 456.590 / 215.319 = 2.12x, the same pages within 0.001%
            Assert.DoesNotContain(reports[0].Verdict!.Evidence, e => e.StartsWith("Compared with", StringComparison.Ordinal));
            Assert.DoesNotContain(reports[2].Verdict!.Evidence, e => e.StartsWith("Compared with", StringComparison.Ordinal));
            var small = Assert.Single(reports[1].Verdict!.Evidence, e => e.StartsWith("Compared with", StringComparison.Ordinal));
            Assert.StartsWith("Compared with the restore before it of the same data (609980 pages and 609977 pages, 4.7 GB): "
                + "38.951 s against 23.524 s (122.344 MB/s against 202.578 MB/s), this run was 1.66x as long. "
                + "A restore writes the same pages to the database's files either way, so what set the runs apart is on the side of reading the backup", small);
            var medium = Assert.Single(reports[3].Verdict!.Evidence, e => e.StartsWith("Compared with", StringComparison.Ordinal));
            Assert.Contains("456.59 s against 215.319 s (94.829 MB/s against 201.089 MB/s), this run was 2.12x as long.", medium);
            Assert.Contains("(low confidence)", medium);
        }
    }

    public class T11_restores_of_90_to_200_MB_that_take_22_to_32_s
    {
        [Fact]
        public async Task Cannot_tell_and_find_the_paired_runs_alike()
        {
            // Given / When
            var reports = await AnalyseAsync("T11_lessthandot_2010_sql2008_restores_of_90MB_databases_4to7MBps.txt");

            // Then: no cause in the output; 23.593 / 22.601 = 1.04x, 32.358 / 29.337 = 1.10x
            Assert.All(reports, r => Assert.Equal(Bottleneck.CannotTell, r.Verdict!.Bottleneck));
            Assert.Equal([4.024, 3.854, 6.789, 6.155], reports.Select(r => r.ThroughputMBps!.Value));
            Assert.Contains(reports[1].Verdict!.Evidence, e => e.EndsWith("1.04x apart: the two runs went alike.", StringComparison.Ordinal));
            Assert.Contains(reports[3].Verdict!.Evidence, e => e.EndsWith("1.10x apart: the two runs went alike.", StringComparison.Ordinal));
        }
    }

    public class T03_to_T05_Microsoft_docs_sqlcmd_output
    {
        [Theory]
        [InlineData("T03_msdocs_sql2017_container_wwi_restore_sqlcmd.txt", 58_455, 18.069, 25.273, 17)]
        [InlineData("T04_msdocs_sql2017_container_wwi_backup_sqlcmd.txt", 59_099, 25.056, 18.427, 0)]
        public async Task WideWorldImporters_cannot_tell_with_the_exact_numbers(string file, long pages, double seconds, double rate, int upgradeSteps)
        {
            // Given / When
            var operation = Assert.Single(await AnalyseAsync(file));

            // Then
            Assert.Equal("WideWorldImporters", operation.Database);
            Assert.Equal(pages * 8192, operation.BytesProcessed);
            Assert.Equal((seconds, rate), (operation.DurationSeconds!.Value, operation.ThroughputMBps!.Value));
            Assert.Equal(upgradeSteps, operation.UpgradeSteps);

            // T03's steps run from 852 to 869 without a jump: the count is the whole upgrade
            Assert.Empty(operation.UpgradeGaps);
            Assert.Equal(Bottleneck.CannotTell, operation.Verdict!.Bottleneck);
            Assert.Contains(operation.Verdict.Evidence, e => e.StartsWith("The engine's completion line is consistent", StringComparison.Ordinal));
        }

        [Fact]
        public async Task T05_a_tiny_backup_after_sqlcmds_password_prompt_is_not_a_throughput_problem()
        {
            // Given / When: 298 pages in 0.064 s
            var backup = Assert.Single(await AnalyseAsync("T05_msdocs_linux_demodb_backup_sqlcmd.txt"));

            // Then
            Assert.Equal(("demodb", 36.376), (backup.Database, backup.ThroughputMBps!.Value));
            Assert.Equal(Bottleneck.NotAThroughputProblem, backup.Verdict!.Bottleneck);
        }
    }

    public class T12_a_2008_Express_backup_and_restore_sequence
    {
        [Fact]
        public async Task Is_seven_operations_none_a_throughput_problem()
        {
            // Given / When
            var reports = await AnalyseAsync(T12);

            // Then: the last is RESTORE DATABASE WITH RECOVERY, 0 pages in 0.512 s
            Assert.Equal(7, reports.Count);
            Assert.All(reports, r => Assert.Equal(Bottleneck.NotAThroughputProblem, r.Verdict!.Bottleneck));
            Assert.Equal("no data copied", reports[6].Verdict!.DecidedBy);
            Assert.Empty(reports[6].Phases);
        }
    }

    private const string T12 = "T12_mikefrobbins_2011_sql2008express_backup_taillog_restore_sequence.txt";
}
