using System.Globalization;
using System.Text.RegularExpressions;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Parsing;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Parsing;

/// <summary>
/// The catalog of the messages SQL Server writes about backups and restores: every number a reader or a rule acts on
/// has a row, each row's template reads its own text and the genuine wording of the fixtures, and docs/message-catalog.md
/// lists the rows with where each was checked.
/// </summary>
public static partial class EngineMessageCatalogTests
{
    // The numbers the readers and rules act on, by where they act: the failure reasons and stages, the remedies, the
    // generic endings, and the lines the parser reads by phrase.
    private static readonly int[] ActedOn =
    [
        3013, 3041, 3014, 3211, 4035, 18264, 18265, 18267, 18268, 18271,
        845, 3201, 3202, 3203, 3241, 3266, 3271, 4305, 4326, 18204, 18210,
        4208, 4214, 3117, 3153, 3101, 3154, 3159, 3257,
    ];

    public partial class Its_rows
    {
        [Fact]
        public void Cover_every_number_a_reader_or_a_rule_acts_on()
        {
            // Given the numbers the parser, the failure stages and the remedies act on
            var numbers = ActedOn.Concat(FailureRemedies.ErrorNumbers).Distinct();

            // When each is looked up
            var missing = numbers.Where(n => EngineMessageCatalog.Find(n) is null).ToList();

            // Then none is missing
            Assert.Empty(missing);
        }

        [Fact]
        public void Are_one_per_number_in_order()
        {
            // Given / When
            var numbers = EngineMessageCatalog.All.Select(r => r.Number).ToList();

            // Then
            Assert.Equal(numbers.Order().Distinct(), numbers);
        }

        [Fact]
        public void Each_read_their_own_template_filled_in()
        {
            // Given each template with its placeholders filled as the engine would
            foreach (var row in EngineMessageCatalog.All)
            {
                var text = Placeholder().Replace(row.Template, "7");

                // When it is identified
                var found = EngineMessageCatalog.Identify(text);

                // Then it is that row (or one with the same opening wording earlier in the list, never none)
                Assert.True(found is not null && found.Matches(text), $"{row.Number}: '{text}'");
                Assert.Equal(row.Number, found!.Number);
            }
        }

        [GeneratedRegex(@"%[-#0-9.*]*(I64)?(S_[A-Z]+|ls|hs|d|u|x|s)", RegexOptions.CultureInvariant)]
        private static partial Regex Placeholder();
    }

    // dbatools issue 10064 (realworld4 SOURCES.md): the sentence of a Backup-DbaDatabase run's SqlError, which drops the
    // message's closing period; only the sentence is genuine, so it is an input here, not a fixture.
    private const string DbatoolsIssue10064 = "The server principal \"usernama\" is not able to access the database \"dbname\" under the current security context";

    public class The_genuine_wording
    {
        [Theory]
        [InlineData("realworld2", "T09a_lessthandot_2013_sql2012_restore_fails_buffer_latch_timeout.txt", "Time-out occurred while waiting for buffer latch", 845)]
        [InlineData("realworld2", "T09a_lessthandot_2013_sql2012_restore_fails_buffer_latch_timeout.txt", "RESTORE DATABASE is terminating abnormally.", 3013)]
        [InlineData("realworld2", "T03_msdocs_sql2017_container_wwi_restore_sqlcmd.txt", "RESTORE DATABASE successfully processed", 3014)]
        [InlineData("realworld2", "T03_msdocs_sql2017_container_wwi_restore_sqlcmd.txt", "Processed 1464 pages for database", 4035)]
        [InlineData("realworld2", "T04_msdocs_sql2017_container_wwi_backup_sqlcmd.txt", "10 percent processed.", 3211)]
        [InlineData("realworld", "S15_mssqltrek_2008r2_tf3014_backup.txt", "Database backed up. Database: 3014_demo", 18264)]
        [InlineData("realworld", "S12_psssql_2008_restore_errorlog_default_logging.txt", "Database was restored: Database: dbPerf_MAIN", 18267)]
        [InlineData("realworld4", "V10_sqlworkshops_2022_backup_to_s3_url_3078_invalid_name.txt", "The file name \"s3:/", 3078)]
        [InlineData("realworld4", "V27_roundhouse_2013_15GB_restore_aborted_by_client_timeout.txt", "The backup or restore was aborted.", 3204)]
        [InlineData("realworld4", "V27_roundhouse_2013_15GB_restore_aborted_by_client_timeout.txt", "Timeout expired.", EngineMessageCatalog.ClientTimedOut)]
        [InlineData("realworld4", "V28_ola_2026_ssms_databasebackup_924_single_user.txt", "Database 'configwizard252stage' is already open", 924)]
        [InlineData("realworld4", "V29_ola_2019_924_single_user_not_skipped.txt", "Database 'SingleUser' is already open", 924)]
        public void Is_identified_by_its_template(string set, string file, string opening, int number)
        {
            // Given the genuine line that holds the wording
            var path = set switch { "realworld" => Fixture.RealWorld(file), "realworld4" => Fixture.RealWorld4(file), _ => Fixture.RealWorld2(file) };
            var line = File.ReadLines(path).First(l => l.Contains(opening, StringComparison.Ordinal));
            var text = line[line.IndexOf(opening, StringComparison.Ordinal)..];

            // When
            var found = EngineMessageCatalog.Identify(text);

            // Then
            Assert.Equal(number, found?.Number);
        }

        [Theory]
        [InlineData("The statement BACKUP LOG is not allowed while the recovery model is SIMPLE. Use BACKUP DATABASE or change the recovery model using ALTER DATABASE.", 4208)]
        [InlineData("Cannot open backup device 'D:\\Backups\\Sales.bak'. Operating system error 5(Access is denied.).", 3201)]
        [InlineData("BACKUP failed to complete the command BACKUP DATABASE Sales. Check the backup application log for detailed messages.", 3041)]
        [InlineData("The log or differential backup cannot be restored because no files are ready to rollforward.", 3117)]
        [InlineData("A Sales line no template has", null)]
        [InlineData(DbatoolsIssue10064, 916)]
        [InlineData("Execution Timeout Expired.  The timeout period elapsed prior to completion of the operation or the server is not responding.", EngineMessageCatalog.ClientTimedOut)]
        [InlineData("Timeout expired.  The timeout period elapsed prior to obtaining a connection from the pool.", null)]
        [InlineData("BackupVirtualDeviceFile::RequestDurableMedia: Flush failure on backup device 'RVX-{1}'.\nOperating system error 995(The I/O operation has been aborted.)", 18210)]
        [InlineData("BackupDiskFile::CreateMedia: Backup device \u2018R:\\aw.bak\u2019 failed to create. Operating system error 3(The system cannot find the path specified.).", 18204)]
        [InlineData("BackupVirtualDeviceFile::RequestDurableMedia: Flush   failure on backup device   'https://a/b.trn'.   Operating system error Backup to URL received an exception.", 18210)]
        public void Of_an_error_without_its_number_is_identified_by_template(string text, int? number)
        {
            // Given / When: a line that carries no number (a PowerShell error record, a message quoted on its own)
            var found = EngineMessageCatalog.Identify(text);

            // Then
            Assert.Equal(number, found?.Number);
        }
    }

    public class A_failure_quoted_in_another_programs_record
    {
        [Theory]
        [InlineData("[11:23:56][Get-DbaBackupInformation] Failure on S | Cannot open backup device 'X.bak'. Operating system error 32(The process cannot access the file because it is being used by another process.).", 3201, 52)]
        [InlineData("[11:23:56][Get-DbaBackupInformation] Failure on S | Cannot open backup device 'X.b", null, 0)]
        [InlineData("Backup of Sales finished", null, 0)]
        [InlineData("Microsoft.Data.SqlClient.SqlError: " + DbatoolsIssue10064, 916, 35)]
        public void Is_found_where_its_template_begins_and_only_when_it_is_whole(string record, int? number, int start)
        {
            // Given / When
            var found = EngineMessageCatalog.Quoted(record);

            // Then
            Assert.Equal(number, found?.Row.Number);
            Assert.Equal(start, found?.Start ?? 0);
        }
    }

    public class A_wording_in_another_language
    {
        [Fact]
        public void Is_found_in_the_record_of_the_genuine_output_that_shows_it()
        {
            // Given realworld4 V23's record: dbatools' words, then a German server's 3201
            var line = File.ReadLines(Fixture.RealWorld4("V23_dbatools_2026_copy_dbadatabase_german_os_error_2.txt")).First();

            // When
            var found = EngineMessageCatalog.Quoted(line);

            // Then: 3201, where "Das Sicherungsmedium" starts
            Assert.Equal((3201, "German"), (found?.Row.Number, found?.Row.Language));
            Assert.Equal(line.IndexOf("Das Sicherungsmedium", StringComparison.Ordinal), found?.Start);
            Assert.Equal("German", EngineMessageCatalog.OtherWordingOf(3201, line[found!.Value.Start..]));
        }

        [Theory]
        [InlineData("Cannot open backup device 'D:\\b.bak'. Operating system error 5(Access is denied.).")]
        [InlineData("[SQLSTATE 42000] Cannot open backup device 'D:\\b.bak'. Operating system error 5(Access is denied.) (Error 3201)")]
        public void Is_not_said_of_an_english_text_even_one_another_program_wrapped(string text)
            => Assert.Null(EngineMessageCatalog.OtherWordingOf(3201, text));
    }

    public class The_database_an_error_names
    {
        [Theory]
        [InlineData(3035, "Cannot perform a differential backup for database \"Archive_Tables\", because a current database backup does not exist. Perform a full database backup by reissuing BACKUP DATABASE, omitting the WITH DIFFERENTIAL option.", "Archive_Tables")]
        [InlineData(3154, "The backup set holds a backup of a database other than the existing 'AdventureWorks2012' database.", "AdventureWorks2012")]
        [InlineData(3183, "RESTORE detected an error on page (1:153) in database \"Sales\" as read from the backup set.", "Sales")]
        [InlineData(3201, "Cannot open backup device '/var/opt/mssql/backup/Sales.bak'. Operating system error 2(The system cannot find the file specified.).", null)]
        [InlineData(3154, "The backup set holds something else.", null)]
        [InlineData(924, "Database 'configwizard252stage' is already open and can only have one user at a time.", "configwizard252stage")]
        [InlineData(911, "Database 'Sales2' does not exist. Make sure that the name is entered correctly.", "Sales2")]
        [InlineData(916, DbatoolsIssue10064, "dbname")]
        [InlineData(916, DbatoolsIssue10064 + ".", "dbname")]
        [InlineData(262, "BACKUP DATABASE permission denied in database 'Sales'.", "Sales")]
        [InlineData(262, "BACKUP LOG permission denied in database 'Sales'.", "Sales")]
        [InlineData(262, "CREATE DATABASE permission denied in database 'master'.", null)]
        public void Is_read_at_its_rows_database_placeholder_and_nowhere_else(int number, string text, string? database)
        {
            // Given / When / Then: a file name is never taken for a database (3201 names none)
            Assert.Equal(database, EngineMessageCatalog.DatabaseOf(number, text));
        }
    }

    public partial class The_documentation
    {
        [Fact]
        public void Lists_every_wording_in_another_language_with_its_genuine_source()
        {
            // Given docs/message-catalog.md
            var page = File.ReadAllText(Path.Combine(Repository.Root, "docs", "message-catalog.md"));

            // When / Then: each wording, in its language's row, from a genuine output
            foreach (var row in EngineMessageCatalog.Localised)
            {
                var line = page.Split('\n').Single(l => l.StartsWith($"| {row.Language} | {row.Number} |", StringComparison.Ordinal));
                Assert.Contains($"`{row.Template}`", line, StringComparison.Ordinal);
                Assert.Contains("genuine output", line, StringComparison.Ordinal);
            }
        }

        [GeneratedRegex(@"^\| (-?\d+) \|", RegexOptions.Multiline | RegexOptions.CultureInvariant)]
        private static partial Regex Row();

        [Fact]
        public void Lists_every_row_with_its_source()
        {
            // Given docs/message-catalog.md's table
            var page = File.ReadAllText(Path.Combine(Repository.Root, "docs", "message-catalog.md"));
            var listed = Row().Matches(page).Select(m => int.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture)).ToList();

            // When / Then: every row of the catalog, once, and nothing else
            Assert.Equal(EngineMessageCatalog.All.Select(r => r.Number), listed);
            foreach (var row in EngineMessageCatalog.All)
            {
                var line = page.Split('\n').Single(l => l.StartsWith($"| {row.Number} |", StringComparison.Ordinal));
                Assert.Contains(row.Source switch
                {
                    CatalogSource.MicrosoftPage => "Microsoft page",
                    CatalogSource.GenuineOutput => "genuine output",
                    _ => throw new InvalidOperationException($"No source text for {row.Source}."),
                }, line, StringComparison.Ordinal);
            }
        }
    }
}
