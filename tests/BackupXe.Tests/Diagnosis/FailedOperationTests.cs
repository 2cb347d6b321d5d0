using BackupXe.Core.Events;
using BackupXe.Core.Reporting;
using BackupXe.Sources;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Diagnosis;

/// <summary>
/// Output of failed commands that holds only errors, in the genuine formats (SSMS's and sqlcmd's Msg blocks, SQL Agent's
/// step output and job history, the ERRORLOG of a failed backup): each is an operation with its status, root error, the
/// operating system error decoded and a remedy with its source; never a bottleneck verdict.
/// </summary>
public static partial class FailedOperationTests
{
    private static async Task<(IReadOnlyList<OperationReport> Reports, string Format)> AnalyseAsync(string text, string fileName = "output.txt")
    {
        using var input = TempInput.WithText(text, Encodings.Utf8WithoutBom, fileName);
        var source = InputSources.Open(input.Path);
        var run = await PipelineRun.OfAsync(source);
        return (run.Reports, source.Format);
    }

    private static void IsAFailureVerdict(OperationReport operation)
    {
        Assert.Equal(OperationStatus.Failed, operation.Status);
        Assert.Equal(Bottleneck.Unknown, operation.Verdict!.Bottleneck);
        Assert.Empty(operation.Recommendations);
    }

    public class The_client_messages_of_a_refused_command
    {
        [Fact]
        public async Task A_log_restore_after_the_database_was_recovered_is_a_failed_restore_with_its_remedy()
        {
            // Given: SSMS's Messages tab, a RESTORE LOG refused: no restore left the database waiting for it (an earlier one ran WITH RECOVERY, or none ran WITH NORECOVERY)
            const string text = "Msg 3117, Level 16, State 1, Line 1\r\n"
                + "The log or differential backup cannot be restored because no files are ready to rollforward.\r\n"
                + "Msg 3013, Level 16, State 1, Line 1\r\n"
                + "RESTORE LOG is terminating abnormally.\r\n";

            // When
            var (reports, format) = await AnalyseAsync(text);

            // Then
            Assert.Equal("client-output", format);
            var restore = Assert.Single(reports);
            IsAFailureVerdict(restore);
            Assert.Equal((OperationKind.Restore, OperationScope.Log), (restore.Kind, restore.Scope));
            Assert.Equal(3117, restore.FailureError!.Number);
            Assert.Equal(CopyStage.BeforeCopy, restore.FailureError.Stage);
            Assert.Equal("nothing-to-roll-forward", restore.FailureError.Remedy!.Id);
            Assert.StartsWith("The restore failed with Msg 3117 (severity 16): The log or differential backup cannot be restored", restore.Verdict!.Evidence[0]);
            Assert.Contains(restore.Verdict.Evidence, e => e.StartsWith("What to do (nothing-to-roll-forward):", StringComparison.Ordinal) && e.Contains("Source: Microsoft Learn", StringComparison.Ordinal));
        }

        [Fact]
        public async Task A_log_backup_under_simple_recovery_names_the_recovery_model()
        {
            // Given: sqlcmd's output of a BACKUP LOG of a database in the SIMPLE recovery model
            const string text = "Msg 4208, Level 16, State 1, Server SQL01, Line 1\n"
                + "The statement BACKUP LOG is not allowed while the recovery model is SIMPLE. Use BACKUP DATABASE or change the recovery model using ALTER DATABASE.\n"
                + "Msg 3013, Level 16, State 1, Server SQL01, Line 1\n"
                + "BACKUP LOG is terminating abnormally.\n";

            // When
            var backup = Assert.Single((await AnalyseAsync(text)).Reports);

            // Then
            IsAFailureVerdict(backup);
            Assert.Equal((OperationKind.Backup, OperationScope.Log), (backup.Kind, backup.Scope));
            Assert.Equal("Msg 4208: The statement BACKUP LOG is not allowed while the recovery model is SIMPLE. Use BACKUP DATABASE or change the recovery model using ALTER DATABASE.", backup.FailureReason);
            Assert.Equal("recovery-model", backup.FailureError!.Remedy!.Id);
            Assert.Equal("Microsoft Learn, 'Recovery models (SQL Server)'", backup.FailureError.Remedy.Source);
        }

        [Fact]
        public async Task A_restore_that_fails_at_99_percent_with_a_severity_24_error_failed_during_the_copy()
        {
            // Given: a restore whose STATS reached 99 percent, then a severity 24 operating system error on a data file
            const string text = "10 percent processed.\r\n50 percent processed.\r\n99 percent processed.\r\n"
                + "Msg 5159, Level 24, State 13, Line 1\r\n"
                + "Operating system error 1450(Insufficient system resources exist to complete the requested service.) on file \"F:\\Data\\Sales.mdf\" during restore.\r\n"
                + "Msg 3013, Level 16, State 1, Line 1\r\n"
                + "RESTORE DATABASE is terminating abnormally.\r\n";

            // When
            var restore = Assert.Single((await AnalyseAsync(text)).Reports);

            // Then
            IsAFailureVerdict(restore);
            var error = restore.FailureError!;
            Assert.Equal((5159, 24, CopyStage.DuringCopy), (error.Number, error.Severity, error.Stage));
            Assert.Equal(new OsErrorReport(1450, "Insufficient system resources exist to complete the requested service."), error.OsError);
            Assert.Equal("F:\\Data\\Sales.mdf", error.Target);
            Assert.Equal("system-resources", error.Remedy!.Id);
            Assert.Contains("Operating system error 1450: Insufficient system resources exist to complete the requested service.", restore.Verdict!.Evidence[0], StringComparison.Ordinal);
        }
    }

    public class SQL_Agent_output
    {
        [Fact]
        public async Task The_step_output_form_with_Sev_and_SQLSTATE_is_a_failed_backup_whose_network_share_dropped()
        {
            // Given: a T-SQL job step's output file
            const string text = "Msg 3271, Sev 16, State 1, Line 1: A nonrecoverable I/O error occurred on file \"\\\\backup01\\sql\\Sales.bak:\" 64(The specified network name is no longer available.). [SQLSTATE 42000]\r\n"
                + "Msg 3013, Sev 16, State 1, Line 1: BACKUP DATABASE is terminating abnormally. [SQLSTATE 42000]\r\n";

            // When
            var (reports, format) = await AnalyseAsync(text);

            // Then
            Assert.Equal("client-output", format);
            var backup = Assert.Single(reports);
            IsAFailureVerdict(backup);
            Assert.Equal((OperationKind.Backup, OperationScope.Database), (backup.Kind, backup.Scope));
            Assert.Equal((3271, 16), (backup.FailureError!.Number, backup.FailureError.Severity));
            Assert.Equal(new OsErrorReport(64, "The specified network name is no longer available."), backup.FailureError.OsError);
            Assert.Equal("\\\\backup01\\sql\\Sales.bak", backup.FailureError.Target);
            Assert.Equal("network-share", backup.FailureError.Remedy!.Id);
        }

        [Fact]
        public async Task The_job_history_line_holds_the_whole_step_and_names_the_denied_service_account()
        {
            // Given: the step's one line of job history
            const string text = "Executed as user: NT SERVICE\\SQLSERVERAGENT. Cannot open backup device 'D:\\Backups\\Sales.bak'. Operating system error 5(Access is denied.). [SQLSTATE 42000] (Error 3201)  "
                + "BACKUP DATABASE is terminating abnormally. [SQLSTATE 42000] (Error 3013).  The step failed.\r\n";

            // When
            var backup = Assert.Single((await AnalyseAsync(text)).Reports);

            // Then
            IsAFailureVerdict(backup);
            Assert.Equal(3201, backup.FailureError!.Number);
            Assert.Equal(5, backup.FailureError.OsError!.Code);
            Assert.Equal("D:\\Backups\\Sales.bak", backup.FailureError.Target);
            Assert.Equal("service-account-permissions", backup.FailureError.Remedy!.Id);
        }
    }

    public class The_ERRORLOG_of_a_failed_backup
    {
        [Fact]
        public async Task A_VDI_backup_aborted_by_its_application_is_a_failed_backup_with_OS_error_995()
        {
            // Given: default logging of a third-party (VDI) backup its application aborted
            const string text = "2023-02-14 02:00:05.12 spid55      Error: 18210, Severity: 16, State: 1.\r\n"
                + "2023-02-14 02:00:05.12 spid55      BackupVirtualDeviceFile::RequestDurableMedia: Flush failure on backup device '{7C1F2D3E-0000-4B4C-9A1E-3C2B1A0F9E8D}1'. Operating system error 995(The I/O operation has been aborted because of either a thread exit or an application request.).\r\n"
                + "2023-02-14 02:00:05.13 Backup      Error: 3041, Severity: 16, State: 1.\r\n"
                + "2023-02-14 02:00:05.13 Backup      BACKUP failed to complete the command BACKUP DATABASE Sales. Check the backup application log for detailed messages.\r\n";

            // When
            var (reports, format) = await AnalyseAsync(text, "ERRORLOG");

            // Then
            Assert.Equal("errorlog", format);
            var backup = Assert.Single(reports);
            IsAFailureVerdict(backup);
            Assert.Equal((OperationKind.Backup, OperationScope.Database, "Sales"), (backup.Kind, backup.Scope, backup.Database));
            Assert.Equal(18210, backup.FailureError!.Number);
            Assert.Equal(995, backup.FailureError.OsError!.Code);
            Assert.Equal("{7C1F2D3E-0000-4B4C-9A1E-3C2B1A0F9E8D}1", backup.FailureError.Target);
            Assert.Equal("aborted-by-application", backup.FailureError.Remedy!.Id);
        }

        [Fact]
        public async Task A_backup_to_URL_whose_endpoint_timed_out_names_the_URL_and_its_credential()
        {
            // Given
            const string text = "2024-03-02 01:15:40.55 spid72      Error: 18210, Severity: 16, State: 1.\r\n"
                + "2024-03-02 01:15:40.55 spid72      BackupIoRequest::ReportIoError: write failure on backup device 'https://acct.blob.core.windows.net/sql/Sales_FULL.bak'. Operating system error Backup to URL received an exception from the remote endpoint. Exception Message: The operation has timed out..\r\n"
                + "2024-03-02 01:15:41.02 Backup      Error: 3041, Severity: 16, State: 1.\r\n"
                + "2024-03-02 01:15:41.02 Backup      BACKUP failed to complete the command BACKUP DATABASE Sales. Check the backup application log for detailed messages.\r\n";

            // When
            var backup = Assert.Single((await AnalyseAsync(text, "ERRORLOG")).Reports);

            // Then
            IsAFailureVerdict(backup);
            Assert.Equal("https://acct.blob.core.windows.net/sql/Sales_FULL.bak", backup.FailureError!.Target);
            Assert.Equal(new OsErrorReport(null, "The operation has timed out"), backup.FailureError.OsError);
            Assert.Equal("url-endpoint", backup.FailureError.Remedy!.Id);
        }

        [Fact]
        public async Task A_failure_with_only_its_generic_lines_is_still_the_failed_backup_with_low_confidence()
        {
            // Given: the ERRORLOG's 3041 alone
            const string text = "2023-02-14 02:00:05.13 Backup      Error: 3041, Severity: 16, State: 1.\r\n"
                + "2023-02-14 02:00:05.13 Backup      BACKUP failed to complete the command BACKUP LOG Sales. Check the backup application log for detailed messages.\r\n";

            // When
            var backup = Assert.Single((await AnalyseAsync(text, "ERRORLOG")).Reports);

            // Then
            IsAFailureVerdict(backup);
            Assert.Equal((OperationScope.Log, "Sales"), (backup.Scope, backup.Database));
            Assert.Equal(Confidence.Low, backup.Verdict!.Confidence);
        }
    }
}
