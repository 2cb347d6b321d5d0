using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
using BackupXe.Core.Reporting;
using Xunit;

namespace BackupXe.Tests.Diagnosis;

/// <summary>
/// The files of the fourth set that gave no operation before the engine-message layer read them by what SQL Server writes
/// (issue 39): ERRORLOG messages quoted without their date and process columns, a failed command inside a script's own
/// lines, SQL Agent's step output of an Ola job cut before its Command: line, and the databases the messages name.
/// </summary>
public static partial class RealWorld4DiagnosisTests
{
    private const string V01 = "V01_bbtsoftware_2022_container_backup_script_os_error_5.txt";
    private const string V08a = "V08a_ola_2018_errorlog_backup_to_url_timeout_18210.txt";
    private const string V08b = "V08b_ola_2018_backuptourl_log_timeout.txt";
    private const string V11 = "V11_firstresponderkit_2020_restore_log_file_as_database_3117.txt";
    private const string V12 = "V12_firstresponderkit_2020_recovery_of_recovered_database_3153.txt";
    private const string V13 = "V13_keisler_2016_restore_over_other_database_3154.txt";
    private const string V14 = "V14_troubleshootingsql_2011_errorlog_18204_os_error_3_and_3041.txt";
    private const string V15 = "V15_kehayias_2009_errorlog_vdi_flush_failure_995.txt";
    private const string V16 = "V16_ola_2022_agent_job_output_diff_3035_no_full_backup.txt";
    private const string V17 = "V17_ola_2022_agent_job_output_diff_backup_12201_pages_and_verify.txt";
    private const string V23 = "V23_dbatools_2026_copy_dbadatabase_german_os_error_2.txt";
    private const string V25 = "V25_dbatools_2023_restore_headeronly_os_error_32_azure_files.txt";
    private const string V26 = "V26_troubleshootingsql_2011_errorlog_database_backed_up_17291_pages.txt";
    private const string V27 = "V27_roundhouse_2013_15GB_restore_aborted_by_client_timeout.txt";

    public class V14_errorlog_lines_of_a_failed_backup_quoted_without_their_columns
    {
        [Fact]
        public async Task Are_read_as_a_log_without_clocks_whose_root_error_is_18204_with_operating_system_error_3()
        {
            // Given / When: Error: 18204 ... CreateMedia ... 'R:\adventureworks.bak' failed to create. / Operating system
            // error 3(...) on the next line as the page wrapped it / Error: 3041 ... BACKUP DATABASE adventureworks.
            var (reports, inputs) = await AnalyseAsync(V14);

            // Then: the ERRORLOG's messages, without a clock, and the failed backup 3041 names, with 18204 as its root
            var input = Assert.Single(inputs);
            Assert.Equal(("errorlog", 4), (input.Source.Format, input.Status.Events));
            Assert.Empty(input.Status.Problems);
            var backup = Assert.Single(reports);
            Assert.Equal((OperationKind.Backup, OperationScope.Database, "adventureworks", OperationStatus.Failed), (backup.Kind, backup.Scope, backup.Database, backup.Status));
            var error = Assert.IsType<FailureErrorReport>(backup.FailureError);
            Assert.Equal(18204, error.Number);
            Assert.Equal((3, "The system cannot find the path specified."), (error.OsError?.Code, error.OsError?.Meaning));
            Assert.Equal("R:\\adventureworks.bak", error.Target);
            Assert.Equal("path-not-found", error.Remedy?.Id);
            Assert.Null(backup.DurationSeconds);
            Assert.Equal(Bottleneck.Unknown, backup.Verdict!.Bottleneck);
        }
    }

    public class V15_an_errorlog_vdi_flush_failure_quoted_on_two_lines
    {
        [Fact]
        public async Task Is_a_failed_backup_through_a_virtual_device_with_operating_system_error_995()
        {
            // Given / When: the device failure without its Error header, its OS error on the next line
            var backup = Assert.Single((await AnalyseAsync(V15)).Reports);

            // Then: known by the 18210 template; flushing a device is a backup's
            Assert.Equal((OperationKind.Backup, OperationStatus.Failed), (backup.Kind, backup.Status));
            var error = Assert.IsType<FailureErrorReport>(backup.FailureError);
            Assert.Equal(18210, error.Number);
            Assert.Equal(995, error.OsError?.Code);
            Assert.Equal("RVX-{58702BA0-C160-4125-952E-CC21954404B7}", error.Target);
            Assert.Equal(Bottleneck.Unknown, backup.Verdict!.Bottleneck);
        }
    }

    public class V08a_an_errorlog_backup_to_url_time_out_quoted_with_doubled_spaces
    {
        [Fact]
        public async Task Is_a_failed_backup_to_the_url_whose_endpoint_timed_out()
        {
            // Given / When: Error: 18210 and "Flush   failure on backup device   'https://...'" as the page spaced it
            var backup = Assert.Single((await AnalyseAsync(V08a)).Reports);

            // Then
            Assert.Equal((OperationKind.Backup, OperationStatus.Failed), (backup.Kind, backup.Status));
            var error = Assert.IsType<FailureErrorReport>(backup.FailureError);
            Assert.Equal(18210, error.Number);
            Assert.StartsWith("https://", error.Target, StringComparison.Ordinal);
            Assert.EndsWith("_LOG_20180509_003000.trn", error.Target, StringComparison.Ordinal);
            Assert.Contains("could not finish the operation within specified timeout", error.OsError?.Meaning, StringComparison.Ordinal);
        }

        [Fact]
        public async Task Is_not_titled_a_database_backup_which_its_lines_do_not_say()
        {
            // Given / When: 18210 names a device, not what was backed up (the file name says a log backup)
            var backup = Assert.Single((await AnalyseAsync(V08a)).Reports);

            // Then: the title says what the input does not tell
            Assert.Null(backup.Scope);
            Assert.Equal("BACKUP (DATABASE or LOG: the input does not say)", OperationText.Title(backup));
        }
    }

    public class V26_an_errorlog_backup_record_quoted_without_its_columns
    {
        [Fact]
        public async Task Is_a_completed_full_backup_of_17291_pages_whose_speed_cannot_be_told()
        {
            // Given / When: one "Database backed up." line, no timestamp
            var backup = Assert.Single((await AnalyseAsync(V26)).Reports);

            // Then
            Assert.Equal((OperationKind.Backup, OperationScope.Database, "adventureworks", OperationStatus.Completed), (backup.Kind, backup.Scope, backup.Database, backup.Status));
            Assert.Equal(17291L * 8192, backup.BytesProcessed);
            Assert.Null(backup.DurationSeconds);
            Assert.Null(backup.ThroughputMBps);
            Assert.Equal(Bottleneck.CannotTell, backup.Verdict!.Bottleneck);
        }
    }

    public class V01_a_backup_scripts_output_around_one_failed_sqlcmd_backup
    {
        [Fact]
        public async Task Is_client_output_whose_failed_backup_has_root_error_3201_with_operating_system_error_5()
        {
            // Given / When: the script's own lines, then sqlcmd's Msg 3201 (with its Server field) and 3013, then more script
            var (reports, inputs) = await AnalyseAsync(V01);

            // Then: the failure line closes the command as a completion line would
            Assert.Equal("client-output", Assert.Single(inputs).Source.Format);
            var backup = Assert.Single(reports);
            Assert.Equal((OperationKind.Backup, OperationStatus.Failed), (backup.Kind, backup.Status));
            var error = Assert.IsType<FailureErrorReport>(backup.FailureError);
            Assert.Equal((3201, 5), (error.Number, error.OsError?.Code));
            Assert.Equal("/backup/202208190100/202208190100.***.bak", error.Target);
            Assert.Equal("service-account-permissions", error.Remedy?.Id);
        }
    }

    public class V16_agent_logged_ola_output_of_a_differential_without_its_base
    {
        [Fact]
        public async Task Is_a_failed_backup_of_Archive_Tables_whose_root_error_is_3035()
        {
            // Given / When: Msg 3035 and 3013 in Agent's Sev form, then Ola's Outcome lines and the next database's header
            var backup = Assert.Single((await AnalyseAsync(V16)).Reports);

            // Then: the database is the one 3035's text names
            Assert.Equal((OperationKind.Backup, "Archive_Tables", OperationStatus.Failed), (backup.Kind, backup.Database, backup.Status));
            Assert.Equal(3035, backup.FailureError?.Number);
            Assert.Equal(Bottleneck.Unknown, backup.Verdict!.Bottleneck);
        }
    }

    public class V17_agent_logged_ola_output_cut_before_its_command_line
    {
        [Fact]
        public async Task Is_the_completed_differential_of_ReportServer_its_completion_line_gives()
        {
            // Given / When: Processed lines and the completion line of a command whose Command: line was cut, then a VERIFYONLY
            var (reports, inputs) = await AnalyseAsync(V17);

            // Then: one completed differential at the engine's figures; the verify is no operation
            var backup = Assert.Single(reports);
            Assert.Equal((OperationKind.Backup, OperationScope.Differential, "ReportServer", OperationStatus.Completed), (backup.Kind, backup.Scope, backup.Database, backup.Status));
            Assert.Equal(new EngineSummaryReport(12201, 4.096, 23.271), backup.EngineSummary);
            Assert.Equal(12201L * 8192, backup.BytesProcessed);
            Assert.Equal(Bottleneck.NotAThroughputProblem, backup.Verdict!.Bottleneck);

            // And the cut is said at its first engine message
            var input = Assert.Single(inputs);
            Assert.Equal("ola-output", input.Source.Format);
            Assert.Contains(input.Status.Problems, p => p.Location == "line 1" && p.Message.StartsWith("the output starts inside a command", StringComparison.Ordinal));
        }
    }

    public class Databases_the_messages_name
    {
        [Theory]
        [InlineData(V11, "db")]
        [InlineData(V12, "db")]
        [InlineData(V13, "AdventureWorks2012")]
        public async Task Are_the_failed_restores_database(string file, string database)
        {
            // Given / When: V11 and V12 echo the RESTORE before its messages (sp_DatabaseRestore); 3154 names the existing database
            var restore = Assert.Single((await AnalyseAsync(file)).Reports);

            // Then
            Assert.Equal((OperationKind.Restore, database, OperationStatus.Failed), (restore.Kind, restore.Database, restore.Status));
        }
    }

    public class V25_a_dbatools_warning_whose_only_engine_line_is_the_failure
    {
        [Fact]
        public async Task Is_a_failed_restore_of_the_header()
        {
            // Given / When: a WARNING wrapped at 120 columns, then "RESTORE HEADERONLY is terminating abnormally."
            var restore = Assert.Single((await AnalyseAsync(V25)).Reports);

            // Then: the failure line alone is the failed operation; never a bottleneck verdict
            Assert.Equal((OperationKind.Restore, OperationStatus.Failed), (restore.Kind, restore.Status));
            Assert.Equal(Bottleneck.Unknown, restore.Verdict!.Bottleneck);
        }

        [Fact]
        public async Task Is_named_by_its_statement_a_read_of_the_header_not_a_restore_of_a_database()
        {
            // Given / When: 3013's "%hs" is RESTORE HEADERONLY
            var read = Assert.Single((await AnalyseAsync(V25)).Reports);

            // Then
            Assert.Equal(OperationScope.HeaderOnly, read.Scope);
            Assert.Equal("RESTORE HEADERONLY", OperationText.Title(read));
            Assert.StartsWith("The RESTORE HEADERONLY failed with Msg 3201", read.Verdict!.Evidence[0], StringComparison.Ordinal);
        }
    }

    public class V23_a_german_sql_error_in_a_dbatools_warning
    {
        [Fact]
        public async Task Is_a_failed_command_whose_root_error_is_3201_with_operating_system_error_2_read_by_its_number()
        {
            // Given / When: "Microsoft.Data.SqlClient.SqlError: Das Sicherungsmedium \"...\" kann nicht geöffnet werden.
            // Betriebssystemfehler 2(...)." inside a WARNING, then dbatools' VERBOSE line; no 3013
            var (reports, inputs) = await AnalyseAsync(V23);

            // Then: the failed command; the engine's lines do not say backup or restore (dbatools' own words do)
            Assert.Equal("client-output", Assert.Single(inputs).Source.Format);
            var failed = Assert.Single(reports);
            Assert.Equal((OperationKind.Unknown, OperationStatus.Failed), (failed.Kind, failed.Status));
            var error = Assert.IsType<FailureErrorReport>(failed.FailureError);
            Assert.Equal((3201, 2, "The system cannot find the file specified."), (error.Number, error.OsError?.Code, error.OsError?.Meaning));
            Assert.Equal((CopyStage.BeforeCopy, "path-not-found"), (error.Stage, error.Remedy?.Id));
            Assert.Contains("Its text is SQL Server's German wording of Msg 3201, not the English one", failed.Verdict!.Evidence[0], StringComparison.Ordinal);
            Assert.Equal(Bottleneck.Unknown, failed.Verdict.Bottleneck);
        }
    }

    public class Files_that_cannot_give_an_operation
    {
        [Fact]
        public async Task Refuse_another_programs_log_as_not_a_recognised_format()
        {
            // Given / When: V08b is the BackupToUrl tool's own trace, not SQL Server's messages
            var (_, inputs) = await AnalyseAsync(V08b);

            // Then
            Assert.StartsWith("not a recognised format", Assert.Single(Assert.Single(inputs).Status.Problems).Message, StringComparison.Ordinal);
        }
    }
}
