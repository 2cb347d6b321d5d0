using System.Globalization;
using System.Text.RegularExpressions;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
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
            Assert.Equal("TEMPRESTORE", restore.Database);
            Assert.Equal("Msg 845: Time-out occurred while waiting for buffer latch type 3 for page (1:0), database ID 27.", restore.FailureReason);
            Assert.Equal(new FailureErrorReport(845, 17, "Time-out occurred while waiting for buffer latch type 3 for page (1:0), database ID 27.", CopyStage.AfterCopy),
                restore.FailureError);
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
            Assert.Contains("The restore copied no data (0 pages): all of its 289.8 s went to the upgrade of the database from an older version (11 upgrade steps) "
                + "and recovery, none to copying; its 0 MB/s is not a copy rate, and no BUFFERCOUNT, MAXTRANSFERSIZE or device changes it.", verdict.Evidence);
            Assert.DoesNotContain(verdict.Evidence, e => e.Contains("not measured by it", StringComparison.Ordinal));
            Assert.Empty(restore.Recommendations);
        }
    }

    private const string T12 = "T12_mikefrobbins_2011_sql2008express_backup_taillog_restore_sequence.txt";
}
