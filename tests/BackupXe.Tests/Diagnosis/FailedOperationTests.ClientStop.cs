using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using Xunit;

namespace BackupXe.Tests.Diagnosis;

public static partial class FailedOperationTests
{
    public class A_failure_inside_a_powershell_record_folded_at_a_width
    {
        [Fact]
        public async Task Is_read_whole_at_another_width_than_the_genuine_one()
        {
            // Given: a dbatools warning as realworld4 V25 prints it, folded at 80 columns instead of 120 (the device name
            // and the OS error's text both cut), then the failure line
            const string text = "WARNING: [10:00:00][Restore-DbaDatabase] Failure on SQL01 | Cannot open backup d\n"
                + "evice 'D:\\Backups\\Sales_FULL_20240101_010000.bak'. Operating system error 5(Acce\n"
                + "ss is denied.).\n"
                + "\n"
                + "RESTORE DATABASE is terminating abnormally.\n";

            // When
            var (reports, format) = await AnalyseAsync(text);

            // Then: the 3201 inside the record, numbered by its template, is the root error
            Assert.Equal("client-output", format);
            var restore = Assert.Single(reports);
            IsAFailureVerdict(restore);
            var error = Assert.IsType<FailureErrorReport>(restore.FailureError);
            Assert.Equal((3201, 5, "service-account-permissions"), (error.Number, error.OsError?.Code, error.Remedy?.Id));
            Assert.Equal("D:\\Backups\\Sales_FULL_20240101_010000.bak", error.Target);
        }
    }

    public class An_error_in_another_language_than_english
    {
        [Fact]
        public async Task Is_read_by_its_number_and_its_operating_system_errors_code()
        {
            // Given: sqlcmd's header of 3201 (the engine's number and shape in every language) over the German text realworld4
            // V23 shows, then the 3013 block (kept in English here, to hold the kind)
            var german = File.ReadLines(BackupXe.Tests.Sources.Support.Fixture.RealWorld4("V23_dbatools_2026_copy_dbadatabase_german_os_error_2.txt")).First();
            german = german[german.IndexOf("Das Sicherungsmedium", StringComparison.Ordinal)..];
            var text = "Msg 3201, Level 16, State 2, Line 1\n" + german + "\nMsg 3013, Level 16, State 1, Line 1\nRESTORE DATABASE is terminating abnormally.\n";

            // When
            var (reports, _) = await AnalyseAsync(text);

            // Then: the root error by its number; the OS error by its code, with Microsoft's English meaning
            var restore = Assert.Single(reports);
            IsAFailureVerdict(restore);
            Assert.Equal((OperationKind.Restore, OperationStatus.Failed), (restore.Kind, restore.Status));
            Assert.Equal((3201, 2, "The system cannot find the file specified.", "path-not-found"),
                (restore.FailureError?.Number, restore.FailureError?.OsError?.Code, restore.FailureError?.OsError?.Meaning, restore.FailureError?.Remedy?.Id));
            Assert.Contains("read by its number", restore.Verdict!.Evidence[0], StringComparison.Ordinal);
        }
    }

    public class A_command_the_clients_time_out_stopped
    {
        [Fact]
        public async Task Is_the_client_that_stopped_waiting_and_the_server_line_after_it_says_how_it_ended()
        {
            // Given: Microsoft.Data.SqlClient's time-out (its own resources' wording), then sqlcmd's Msg blocks of 3204 and 3013
            const string text = "Execution Timeout Expired.  The timeout period elapsed prior to completion of the operation or the server is not responding.\n"
                + "Msg 3204, Level 16, State 1, Line 1\n"
                + "The backup or restore was aborted.\n"
                + "Msg 3013, Level 16, State 1, Line 1\n"
                + "BACKUP DATABASE is terminating abnormally.\n";

            // When
            var (reports, _) = await AnalyseAsync(text);

            // Then: the kind is 3013's; the root is the client's time-out, not the server's 3204
            var backup = Assert.Single(reports);
            IsAFailureVerdict(backup);
            Assert.Equal((OperationKind.Backup, OperationScope.Database), (backup.Kind, backup.Scope));
            Assert.Equal((EngineMessageCatalog.ClientTimedOut, "client-timeout"), (backup.FailureError?.Number, backup.FailureError?.Remedy?.Id));
            var said = backup.Verdict!.Evidence[0];
            Assert.StartsWith("The client stopped waiting: its command time-out expired", said, StringComparison.Ordinal);
            Assert.EndsWith("SQL Server then ended it ('BACKUP DATABASE is terminating abnormally.'): it did not complete.", said, StringComparison.Ordinal);
        }

        [Fact]
        public async Task Is_not_a_connection_pools_time_out()
        {
            // Given: the pool's time-out, the same driver's other "Timeout expired." sentence, then a failure line
            const string text = "Timeout expired.  The timeout period elapsed prior to obtaining a connection from the pool.  This may have occurred because all pooled connections were in use and max pool size was reached.\n"
                + "Msg 3013, Level 16, State 1, Line 1\n"
                + "BACKUP DATABASE is terminating abnormally.\n";

            // When
            var (reports, _) = await AnalyseAsync(text);

            // Then: no root error is taken from it
            var backup = Assert.Single(reports);
            Assert.NotEqual(EngineMessageCatalog.ClientTimedOut, backup.FailureError?.Number);
        }
    }
}
