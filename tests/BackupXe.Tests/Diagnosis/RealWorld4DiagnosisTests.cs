using System.Globalization;
using System.Text.RegularExpressions;
using BackupXe.Core.Analysis;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
using BackupXe.Core.Pipeline;
using BackupXe.Core.Reporting;
using BackupXe.Sources;
using BackupXe.Tests.Sources.Support;
using Xunit;

namespace BackupXe.Tests.Diagnosis;

/// <summary>
/// The fourth set of genuine output (Fixtures/realworld4/SOURCES.md): what BackupXe already reads right in it. The files
/// it reads wrong today are listed in SOURCES.md with the conclusion they should give; they get their tests with the
/// engine-message layer, not here.
/// </summary>
public static partial class RealWorld4DiagnosisTests
{
    private const string V04 = "V04_bitwarden_2019_container_errorlog_createmedia_os_error_2.txt";
    private const string V05b = "V05b_mssqldocker_2018_macos_restore_read_failure_31_errorlog.txt";
    private const string V07 = "V07_ola_2019_job_output_backup_3202_disk_full_after_processed.txt";
    private const string V19 = "V19_mssqldocker_2024_container_restore_completion_then_sqlcmd_hang.txt";

    private static IEnumerable<string> Files() =>
        Directory.GetFiles(Path.GetDirectoryName(Fixture.RealWorld4(V07))!, "V*.txt").Select(Path.GetFileName).Order(StringComparer.Ordinal)!;

    private static async Task<(IReadOnlyList<OperationReport> Reports, IReadOnlyList<AnalysisInput> Inputs)> AnalyseAsync(params string[] files)
    {
        var inputs = files.Select(f => new AnalysisInput(InputSources.Open(Fixture.RealWorld4(f)))).ToList();
        var collector = new Collector();
        await new AnalysisSession(inputs, new AnalysisOptions { CompareRuns = true }).RunAsync(collector, CancellationToken.None);
        return (collector.Reports, inputs);
    }

    private sealed class Collector : IOperationSink
    {
        public List<OperationReport> Reports { get; } = [];

        public void OnOperationCompleted(OperationReport report) => Reports.Add(report);
    }

    public class Every_file
    {
        public static TheoryData<string> All()
        {
            var data = new TheoryData<string>();
            foreach (var file in Files())
            {
                data.Add(file);
            }

            return data;
        }

        [Fact]
        public void Of_the_set_is_here()
        {
            // Given / When: the files SOURCES.md describes
            var files = Files().ToList();

            // Then: 31 files from 26 sources (V05 and V08 are two pieces of one source each, as are V11/V12, V14/V26 and V16/V17)
            Assert.Equal(31, files.Count);
        }

        [Theory]
        [MemberData(nameof(All))]
        public async Task Is_analysed_to_the_end_and_each_problem_it_meets_names_where(string file)
        {
            // Given / When: failures, wrappers and formats BackupXe does not know yet among them
            var (_, inputs) = await AnalyseAsync(file);

            // Then: no exception, and every problem is located and said
            var input = Assert.Single(inputs);
            Assert.All(input.Status.Problems, p =>
            {
                Assert.False(string.IsNullOrWhiteSpace(p.Location), file);
                Assert.False(string.IsNullOrWhiteSpace(p.Message), file);
            });
        }

        [Fact]
        public async Task Gives_the_same_operations_alone_as_in_the_whole_set()
        {
            // Given
            var files = Files().ToArray();
            var alone = new List<string>();
            foreach (var file in files)
            {
                alone.AddRange((await AnalyseAsync(file)).Reports.Select(Shape));
            }

            // When
            var together = (await AnalyseAsync(files)).Reports.Select(Shape);

            // Then: no input lends a line to another (issue 39, "inputs kept apart")
            Assert.Equal(alone.Order(StringComparer.Ordinal), together.Order(StringComparer.Ordinal));
        }

        private static string Shape(OperationReport r) =>
            FormattableString.Invariant($"{r.Kind} {r.Scope} {r.Database} {r.Status} {r.DurationSeconds} {r.BytesProcessed} {r.ThroughputMBps} {r.FailureError}");
    }

    public partial class Completion_lines
    {
        [GeneratedRegex(@"(\d+) pages in (\d+\.\d+) seconds \((\d+\.\d+) MB/sec\)", RegexOptions.CultureInvariant)]
        private static partial Regex CompletionFigures();

        public static TheoryData<string, int> EveryLine()
        {
            var data = new TheoryData<string, int>();
            foreach (var (file, line) in Lines())
            {
                data.Add(file, line);
            }

            return data;
        }

        private static IEnumerable<(string File, int Line)> Lines()
        {
            foreach (var file in Files())
            {
                var number = 0;
                foreach (var line in File.ReadLines(Fixture.RealWorld4(file)))
                {
                    number++;
                    if (CompletionFigures().IsMatch(line))
                    {
                        yield return (file, number);
                    }
                }
            }
        }

        [Fact]
        public void Are_the_two_the_set_holds()
        {
            // Given / When / Then: V17 (an Ola differential under SQL Agent) and V19 (a restore in a container)
            Assert.Equal(new[] { ("V17_ola_2022_agent_job_output_diff_backup_12201_pages_and_verify.txt", 3), (V19, 1) }, Lines());
        }

        [Theory]
        [MemberData(nameof(EveryLine))]
        public void Fit_the_engine_arithmetic(string file, int line)
        {
            // Given
            var figures = CompletionFigures().Match(File.ReadLines(Fixture.RealWorld4(file)).ElementAt(line - 1)).Groups;
            var pages = long.Parse(figures[1].Value, CultureInfo.InvariantCulture);
            var seconds = double.Parse(figures[2].Value, CultureInfo.InvariantCulture);
            var rate = double.Parse(figures[3].Value, CultureInfo.InvariantCulture);

            // When / Then
            Assert.True(EngineArithmetic.Agrees(pages, seconds, rate), $"{file}:{line}");
        }
    }

    public class V04_a_container_errorlog_line_of_a_backup_device_that_failed_to_create
    {
        [Fact]
        public async Task Is_a_failed_backup_before_any_copy_whose_root_error_is_18204_with_operating_system_error_2()
        {
            // Given / When: one ERRORLOG line, BackupDiskFile::CreateMedia ... failed to create ... error 2, without its
            // "Error: 18204" header and without a closing 3041
            var backup = Assert.Single((await AnalyseAsync(V04)).Reports);

            // Then: a failed backup; the line names no database, so none is given
            Assert.Equal((OperationKind.Backup, (string?)null, OperationStatus.Failed), (backup.Kind, backup.Database, backup.Status));
            var error = Assert.IsType<FailureErrorReport>(backup.FailureError);
            Assert.Equal((18204, CopyStage.BeforeCopy), (error.Number, error.Stage));
            Assert.Equal((2, "The system cannot find the file specified."), (error.OsError?.Code, error.OsError?.Meaning));
            Assert.Equal("/etc/bitwarden/mssql/backups/vault_FULL_20191017_235901.BAK", error.Target);
            Assert.Equal("path-not-found", error.Remedy?.Id);
            Assert.Equal(Bottleneck.Unknown, backup.Verdict!.Bottleneck);
        }
    }

    public class V05b_an_errorlog_read_failure_of_a_restore_on_a_host_shared_folder
    {
        [Fact]
        public async Task Is_a_failed_restore_whose_root_error_is_18210_with_operating_system_error_31()
        {
            // Given / When: the failed I/O request dump (no timestamp: located and skipped), then Error: 18210 and its
            // "read failure on backup device" text, with no closing 3041
            var (reports, inputs) = await AnalyseAsync(V05b);
            var restore = Assert.Single(reports);

            // Then: reading a backup device is a restore; the lines name no database
            Assert.Equal((OperationKind.Restore, (string?)null, OperationStatus.Failed), (restore.Kind, restore.Database, restore.Status));
            var error = Assert.IsType<FailureErrorReport>(restore.FailureError);
            Assert.Equal(18210, error.Number);
            Assert.Equal((31, "A device attached to the system is not functioning."), (error.OsError?.Code, error.OsError?.Meaning));
            Assert.Equal("/app/backup/DBTEST.bak", error.Target);

            // And what the timestamped lines cannot tell stays untold: the stage (the position-0 read is in the skipped
            // dump line) and a remedy for error 31, which the catalog has none for
            Assert.Null(error.Stage);
            Assert.Null(error.Remedy);
            Assert.Equal("line 1", Assert.Single(Assert.Single(inputs).Status.Problems).Location);
        }
    }

    public class V07_an_Ola_backup_that_fails_with_the_disk_full_after_its_pages_were_read
    {
        [Fact]
        public async Task Is_a_failed_backup_whose_root_error_is_3202_with_operating_system_error_112()
        {
            // Given / When: Processed 304 + 2 pages, then Msg 3202 ... 112(There is not enough space on the disk.), then 3013
            var backup = Assert.Single((await AnalyseAsync(V07)).Reports);

            // Then: the root error, not the closing 3013
            Assert.Equal((OperationKind.Backup, OperationScope.Database, "Database1"), (backup.Kind, backup.Scope, backup.Database));
            Assert.Equal(OperationStatus.Failed, backup.Status);
            var error = Assert.IsType<FailureErrorReport>(backup.FailureError);
            Assert.Equal(
                (3202, 16, "Write on \"e:\\SQLBackups\\Database1_FULL\\Database1_FULL_20190909_213411.bak\" failed: 112(There is not enough space on the disk.)", CopyStage.AfterCopy),
                (error.Number, error.Severity, error.Text, error.Stage));
            Assert.Equal(306L * 8192, backup.BytesProcessed);

            // And what the message says in parts: the OS error decoded, the file it wrote, and what to do about it
            Assert.Equal((112, "There is not enough space on the disk."), (error.OsError?.Code, error.OsError?.Meaning));
            Assert.Equal("e:\\SQLBackups\\Database1_FULL\\Database1_FULL_20190909_213411.bak", error.Target);
            Assert.Equal("disk-space", error.Remedy?.Id);
        }

        [Fact]
        public async Task Says_the_write_to_the_device_failed_because_the_disk_is_full_once_the_data_was_copied()
        {
            // Given / When
            var backup = Assert.Single((await AnalyseAsync(V07)).Reports);

            // Then
            var failure = backup.Verdict!.Evidence[0];
            Assert.StartsWith("The backup failed with Msg 3202 (severity 16)", failure, StringComparison.Ordinal);
            Assert.Contains("not while copying", failure, StringComparison.Ordinal);
            Assert.Contains("112: the disk is full", failure, StringComparison.Ordinal);
            Assert.DoesNotContain(backup.Verdict.Evidence, e => e.Contains("terminating abnormally", StringComparison.Ordinal));
        }
    }

    public class V19_a_container_restore_whose_client_hung_after_it_finished
    {
        [Fact]
        public async Task Is_a_restore_of_58496_pages_in_1_332_s_at_the_engines_rate()
        {
            // Given / When: the one completion line the reporter quotes
            var restore = Assert.Single((await AnalyseAsync(V19)).Reports);

            // Then
            Assert.Equal(OperationKind.Restore, restore.Kind);
            Assert.Equal(OperationStatus.Completed, restore.Status);
            Assert.Equal(new EngineSummaryReport(58496, 1.332, 343.088), restore.EngineSummary);
            Assert.Equal(1.332, restore.DurationSeconds);
            Assert.Equal(343.088, restore.ThroughputMBps);
            Assert.Equal(58496L * 8192, restore.BytesProcessed);
        }

        [Fact]
        public async Task Is_not_a_throughput_problem()
        {
            // Given / When: the ten minutes the reporter waited were the client's, after this line
            var restore = Assert.Single((await AnalyseAsync(V19)).Reports);

            // Then
            Assert.Equal(Bottleneck.NotAThroughputProblem, restore.Verdict!.Bottleneck);
            Assert.Contains("The engine's completion line is consistent: 58496 pages x 8 KB in 1.332 s = 343.093 MB/s, as reported (343.088 MB/sec).", restore.Verdict.Evidence);
        }
    }

    public class V05b_an_errorlog_excerpt_that_opens_with_a_dump_line
    {
        [Fact]
        public async Task Names_the_line_before_the_first_timestamp_and_reads_the_three_after_it()
        {
            // Given / When: a stack-dump line pasted above three errorlog lines
            var (_, inputs) = await AnalyseAsync(V05b);

            // Then: one located problem, the rest still read
            var input = Assert.Single(inputs);
            Assert.Equal("errorlog", input.Source.Format);
            Assert.Equal([new InputProblem("line 1", "text before the first timestamped line; line skipped")], input.Status.Problems);
            Assert.Equal(3, input.Status.Events);
        }
    }
}
