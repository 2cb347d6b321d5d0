using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
using BackupXe.Core.Reporting;
using Xunit;

namespace BackupXe.Tests.Diagnosis;

/// <summary>
/// Genuine output holding only an engine error that stopped the work before any BACKUP ran (realworld4 V28, V29: Msg 924,
/// a database in single-user mode held by another connection, met by Ola Hallengren's DatabaseBackup): the error named,
/// with "no backup ran" and the remedy.
/// </summary>
public static partial class RealWorld4DiagnosisTests
{
    private const string V28 = "V28_ola_2026_ssms_databasebackup_924_single_user.txt";
    private const string V29 = "V29_ola_2019_924_single_user_not_skipped.txt";

    public class V28_SSMS_output_of_DatabaseBackup_holding_only_Msg_924
    {
        [Fact]
        public async Task Is_a_failed_backup_of_the_database_924_names_that_never_started()
        {
            // Given / When: the header (with its procedure and SSMS's batch start line), 924's text, a blank line, Completion time
            var (reports, inputs) = await AnalyseAsync(V28);

            // Then: read as client output, whole
            var input = Assert.Single(inputs);
            Assert.Equal("client-output", input.Source.Format);
            Assert.Empty(input.Status.Problems);

            // And: a failed backup (its header names Ola's DatabaseBackup) of configwizard252stage, whose scope it does not say
            var backup = Assert.Single(reports);
            Assert.Equal((OperationKind.Backup, (OperationScope?)null, "configwizard252stage", OperationStatus.Failed), (backup.Kind, backup.Scope, backup.Database, backup.Status));
            var error = Assert.IsType<FailureErrorReport>(backup.FailureError);
            Assert.Equal((924, (int?)14, "Database 'configwizard252stage' is already open and can only have one user at a time.", (CopyStage?)CopyStage.NotStarted),
                (error.Number, error.Severity, error.Text, error.Stage));
            Assert.Null(error.OsError);
            Assert.Equal("single-user-held", error.Remedy?.Id);

            // And: no clock, bytes or speed is made up; the client's Completion time is not a duration
            Assert.Equal(((double?)null, (long?)null, (double?)null), (backup.DurationSeconds, backup.BytesProcessed, backup.ThroughputMBps));
        }

        [Fact]
        public async Task Says_no_backup_ran_and_what_to_do_and_where_the_kind_came_from()
        {
            // Given / When
            var (reports, inputs) = await AnalyseAsync(V28);
            var backup = Assert.Single(reports);

            // Then: the error named, "No backup ran", the meaning, and the remedy with its source; never a bottleneck
            Assert.Equal(Bottleneck.Unknown, backup.Verdict!.Bottleneck);
            var failure = backup.Verdict.Evidence[0];
            Assert.StartsWith("The backup failed with Msg 924 (severity 14): Database 'configwizard252stage' is already open and can only have one user at a time. No backup ran:", failure, StringComparison.Ordinal);
            Assert.Contains("single-user mode", failure, StringComparison.Ordinal);
            Assert.Contains(backup.Verdict.Evidence, e => e.StartsWith("What to do (single-user-held):", StringComparison.Ordinal)
                && e.Contains("MULTI_USER", StringComparison.Ordinal) && e.Contains("Set a database to single-user mode", StringComparison.Ordinal));
            Assert.Empty(backup.Recommendations);

            // And the kind's evidence, at the header's line
            var finding = Assert.Single(Assert.Single(inputs).Status.Findings);
            Assert.Equal("line 1", finding.Location);
            Assert.Contains("admindb.dbo.DatabaseBackup", finding.Message, StringComparison.Ordinal);
        }
    }

    public class V29_Msg_924_alone
    {
        [Fact]
        public async Task Is_a_failed_operation_of_SingleUser_that_never_started_whose_kind_is_not_concluded()
        {
            // Given / When: the header names no procedure; that DatabaseBackup ran is the reporter's prose, not the output's
            var (reports, inputs) = await AnalyseAsync(V29);

            // Then
            Assert.Empty(Assert.Single(inputs).Status.Problems);
            var operation = Assert.Single(reports);
            Assert.Equal((OperationKind.Unknown, "SingleUser", OperationStatus.Failed), (operation.Kind, operation.Database, operation.Status));
            Assert.Equal((924, (CopyStage?)CopyStage.NotStarted, "single-user-held"), (operation.FailureError!.Number, operation.FailureError.Stage, operation.FailureError.Remedy?.Id));
            Assert.Contains("No backup or restore ran:", operation.Verdict!.Evidence[0], StringComparison.Ordinal);
        }
    }
}
