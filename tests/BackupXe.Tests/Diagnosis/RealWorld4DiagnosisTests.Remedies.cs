using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using Xunit;

namespace BackupXe.Tests.Diagnosis;

/// <summary>
/// The fourth set's failures read to their cause by what SQL Server (or the client's driver) writes (issue 39): the
/// remedy where the message or a cited page gives one, the stage only where the output shows it, the scope the refusing
/// error names, a failure quoted in a PowerShell record folded at the console's width, and a client's time-out told
/// apart from a failure inside the server.
/// </summary>
public static partial class RealWorld4DiagnosisTests
{
    private const string V05a = "V05a_mssqldocker_2018_macos_restore_read_failure_31_sqlcmd.txt";
    private const string V09 = "V09_ola_2019_backup_to_url_3271_blob_exists_without_format.txt";
    private const string V10 = "V10_sqlworkshops_2022_backup_to_s3_url_3078_invalid_name.txt";
    private const string V20 = "V20_gosqlcmd_2024_linux_restore_master_3168_other_build.txt";
    private const string V24 = "V24_dbatools_2018_backup_dbadatabase_result_object.txt";

    public class Failures_read_to_their_remedy
    {
        [Theory]
        [InlineData(V09, 3271, "blob-exists", CopyStage.BeforeCopy)]
        [InlineData(V10, 3078, "invalid-device-name", CopyStage.BeforeCopy)]
        [InlineData(V16, 3035, "no-full-backup", CopyStage.BeforeCopy)]
        [InlineData(V11, 3117, "nothing-to-roll-forward", CopyStage.BeforeCopy)]
        [InlineData(V25, 3201, "file-in-use", CopyStage.BeforeCopy)]
        [InlineData(V20, 3168, "other-server-version", CopyStage.BeforeCopy)]
        public async Task Give_the_remedy_their_root_error_names(string file, int number, string remedy, CopyStage stage)
        {
            // Given / When
            var operation = Assert.Single((await AnalyseAsync(file)).Reports);

            // Then: failed, its root error, where it stood and what to do; never a bottleneck verdict
            Assert.Equal(OperationStatus.Failed, operation.Status);
            var error = Assert.IsType<FailureErrorReport>(operation.FailureError);
            Assert.Equal((number, remedy, stage), (error.Number, error.Remedy?.Id, error.Stage));
            Assert.Equal(Bottleneck.Unknown, operation.Verdict!.Bottleneck);
        }

        [Fact]
        public async Task V16_is_a_differential_as_3035_says_not_the_full_backup_3013s_wording_reads_as()
        {
            // Given / When: "BACKUP DATABASE is terminating abnormally." closes a full and a differential alike
            var backup = Assert.Single((await AnalyseAsync(V16)).Reports);

            // Then
            Assert.Equal(OperationScope.Differential, backup.Scope);
        }

        [Fact]
        public async Task V10_names_the_device_name_3078_refuses()
        {
            // Given / When: "The file name \"s3:/10.191.80.74:9000/backups/wwi.bak\" is invalid as a backup device name ..."
            var backup = Assert.Single((await AnalyseAsync(V10)).Reports);

            // Then
            Assert.Equal("s3:/10.191.80.74:9000/backups/wwi.bak", backup.FailureError?.Target);
        }

        [Fact]
        public async Task V25_reads_the_3201_a_dbatools_warning_folds_over_three_lines()
        {
            // Given / When: the WARNING wrapped at 120 columns, the file name broken as ".b" / "ak'"
            var restore = Assert.Single((await AnalyseAsync(V25)).Reports);

            // Then: the whole device name and its OS error, read from the one message the fold undone gives
            var error = Assert.IsType<FailureErrorReport>(restore.FailureError);
            Assert.Equal(32, error.OsError?.Code);
            Assert.EndsWith("FLTMELESQL01_ProdBC14_DIFF_20231114_112051.bak", error.Target, StringComparison.Ordinal);
        }

        [Fact]
        public async Task V05a_a_failed_read_with_a_device_error_is_not_placed_in_the_copy_nor_called_a_damaged_backup()
        {
            // Given / When: Msg 3203, "failed: 31(A device attached to the system is not functioning.)", no progress line
            var restore = Assert.Single((await AnalyseAsync(V05a)).Reports);

            // Then: the OS error is the cause; where the copy stood and a remedy for 31 are not in the output
            var error = Assert.IsType<FailureErrorReport>(restore.FailureError);
            Assert.Equal((3203, 31), (error.Number, error.OsError?.Code));
            Assert.Null(error.Stage);
            Assert.Null(error.Remedy);
        }
    }

    public class V27_a_restore_the_client_stopped_waiting_for
    {
        [Fact]
        public async Task Is_ended_by_the_clients_time_out_and_then_aborted_by_sql_server()
        {
            // Given / When: RoundhousE's lines, the driver's "Timeout expired." and the engine's "The backup or restore was aborted."
            var (reports, inputs) = await AnalyseAsync(V27);

            // Then: one stopped command; its root is the client's time-out
            Assert.Equal("client-output", Assert.Single(inputs).Source.Format);
            var operation = Assert.Single(reports);
            Assert.Equal(OperationStatus.Failed, operation.Status);
            var error = Assert.IsType<FailureErrorReport>(operation.FailureError);
            Assert.Equal((EngineMessageCatalog.ClientTimedOut, "client-timeout"), (error.Number, error.Remedy?.Id));
            var said = operation.Verdict!.Evidence[0];
            Assert.StartsWith("The client stopped waiting", said, StringComparison.Ordinal);
            Assert.Contains("not a failure inside SQL Server", said, StringComparison.Ordinal);
            Assert.Contains("SQL Server then aborted", said, StringComparison.Ordinal);
        }

        [Fact]
        public async Task Is_a_restore_by_the_restoring_state_sql_server_named_before_it()
        {
            // Given / When: "ALTER DATABASE is not permitted while a database is in the Restoring state." (line 2), then the
            // time-out and the abort, which names "backup or restore"
            var (reports, inputs) = await AnalyseAsync(V27);

            // Then: a restore, and the report says which line told it
            var restore = Assert.Single(reports);
            Assert.Equal(OperationKind.Restore, restore.Kind);
            Assert.Equal("RESTORE (DATABASE or LOG: the input does not say)", OperationText.Title(restore));
            Assert.Contains("cancelled the restore", restore.Verdict!.Evidence[0], StringComparison.Ordinal);
            var finding = Assert.Single(Assert.Single(inputs).Status.Findings, f => f.Message.StartsWith("the aborted command was a restore", StringComparison.Ordinal));
            Assert.Equal("line 2", finding.Location);
            Assert.Contains("'ALTER DATABASE is not permitted while a database is in the Restoring state.'", finding.Message, StringComparison.Ordinal);
        }

        [Fact]
        public async Task Left_the_database_restoring_as_sql_server_says_after_it()
        {
            // Given / When: the same refusal again at line 10, after the abort
            var (_, inputs) = await AnalyseAsync(V27);

            // Then: why every later step of the tool fails
            var left = Assert.Single(Assert.Single(inputs).Status.Findings, f => f.Location == "line 10");
            Assert.StartsWith("after the aborted restore SQL Server still says the database is in the Restoring state", left.Message, StringComparison.Ordinal);
        }

        [Fact]
        public async Task Takes_the_percent_line_printed_after_the_abort_as_its_own_late_output()
        {
            // Given / When: "10 percent processed." at line 7, after the time-out (line 4) and the abort (line 5)
            var (reports, inputs) = await AnalyseAsync(V27);

            // Then: not an open operation at the end of the input, but the aborted one's progress: it failed during the copy
            var input = Assert.Single(inputs);
            Assert.DoesNotContain(input.Status.Problems, p => p.Message.Contains("no completion line closed", StringComparison.Ordinal));
            var late = Assert.Single(input.Status.Findings, f => f.Location == "line 7");
            Assert.StartsWith("'10 percent processed.' came after the client's time-out and SQL Server's abort", late.Message, StringComparison.Ordinal);
            var restore = Assert.Single(reports);
            Assert.Equal(CopyStage.DuringCopy, restore.FailureError?.Stage);
            Assert.Contains("It came during the copy", restore.Verdict!.Evidence[0], StringComparison.Ordinal);
        }
    }

    public class V24_a_dbatools_result_object_in_the_same_second
    {
        [Fact]
        public async Task Is_not_a_throughput_problem_by_the_clients_span_as_an_upper_bound()
        {
            // Given / When: Start and End both 6:17:26 AM, Duration 00:00:00, 2.89 MB
            var backup = Assert.Single((await AnalyseAsync(V24)).Reports);

            // Then: under a second by dbatools' clock, whatever the server's own part was
            Assert.Equal(OperationStatus.Completed, backup.Status);
            Assert.Equal(Bottleneck.NotAThroughputProblem, backup.Verdict!.Bottleneck);
            Assert.Equal("the client's span as an upper bound", backup.Verdict.DecidedBy);
        }
    }
}
