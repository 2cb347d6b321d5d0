using System.Text;
using BackupXe.Core.Events;
using BackupXe.Sources.Errorlog;
using BackupXe.Tests.Sources.Support;
using Xunit;

namespace BackupXe.Tests.Sources.Errorlog;

public sealed class ErrorlogEventSourceTests
{
    private static DateTime Local(int hour, int minute, int second, int millisecond) =>
        new(2014, 9, 10, hour, minute, second, millisecond, DateTimeKind.Unspecified);

    private static Task<SourceRun> ReadTextAsync(string text, Encoding encoding)
    {
        var bytes = encoding.GetPreamble().Concat(encoding.GetBytes(text)).ToArray();
        return SourceRun.ReadAsync(new ErrorlogEventSource("test.log", () => new MemoryStream(bytes), null));
    }

    public sealed class A_Get_DbaErrorLog_table
    {
        [Theory]
        [InlineData("PS1  MSSQLSERVER  PS1  5/6/2024 8:37:59 AM  spid52  BACKUP DATABASE successfully processed 0 pages in 0.027 seconds (0.000 MB/sec).", null)]
        [InlineData("PS1  MSSQLSERVER  PS1  13/6/2024 20:37:59  spid52  BACKUP DATABASE successfully processed 0 pages in 0.027 seconds (0.000 MB/sec).", "2024-06-13 20:37:59")]
        [InlineData("PS1  MSSQLSERVER  PS1  18.06.2024 08:37:59  spid52  BACKUP DATABASE successfully processed 0 pages in 0.027 seconds (0.000 MB/sec).", "2024-06-18 08:37:59")]
        [InlineData("PS1  MSSQLSERVER  PS1  2024-06-18 08:37:59  spid52  BACKUP DATABASE successfully processed 0 pages in 0.027 seconds (0.000 MB/sec).", "2024-06-18 08:37:59")]
        [InlineData("PS1  MSSQLSERVER  PS1  6/18/2024 12:07:59 AM  spid52  BACKUP DATABASE successfully processed 0 pages in 0.027 seconds (0.000 MB/sec).", "2024-06-18 00:07:59")]
        public async Task Takes_the_date_in_the_order_the_rows_tell_and_never_guesses_it(string row, string? logged)
        {
            // Given: a row of real-world T01b's layout in other cultures, under its heading; 5/6/2024 alone is 5 June or 6 May
            var text = "ComputerName InstanceName SqlInstance LogDate Source Text\r\n------------ ------------ ----------- ------- ------ ----\r\n" + row + "\r\n";

            // When
            var run = await ReadTextAsync(text, new UTF8Encoding(false));

            // Then
            if (logged is null)
            {
                Assert.Empty(run.Events);
                Assert.Contains(run.Status.Problems, p => p.Location == "line 3" && p.Message.Contains("reads as day/month or month/day", StringComparison.Ordinal));
            }
            else
            {
                var message = Assert.Single(run.Progress);
                Assert.Equal(DateTime.Parse(logged, System.Globalization.CultureInfo.InvariantCulture), message.Timestamp);
                Assert.Equal(52, message.SessionId);
                Assert.Equal("BACKUP DATABASE successfully processed 0 pages in 0.027 seconds (0.000 MB/sec).", message.Message);
                Assert.Empty(run.Status.Problems);
            }
        }

        [Fact]
        public async Task Leaves_out_the_mark_of_a_text_Format_Table_cut()
        {
            // Given: real-world T01b's second and third rows, cut at the console's width
            var text = "Windows1     MSSQLSERVER  Windows1    6/18/2024 8:37:59 AM Backup  Database backed up. Database: TPCC100, creation date(time): 2023/04/26(01:31:53), pages dumped: 917114, first ...\r\n"
                + "Windows1     MSSQLSERVER  Windows1    6/18/2024 8:37:59 AM Backup  BACKUP DATABASE successfully processed 0 pages in 0.027 seconds (0.000 MB/sec)....\r\n";

            // When
            var run = await ReadTextAsync(text, new UTF8Encoding(false));

            // Then
            Assert.Equal(
                ["Database backed up. Database: TPCC100, creation date(time): 2023/04/26(01:31:53), pages dumped: 917114, first ",
                 "BACKUP DATABASE successfully processed 0 pages in 0.027 seconds (0.000 MB/sec)."],
                run.Progress.Select(e => e.Message));
            Assert.All(run.Progress, e => Assert.Null(e.SessionId));
        }
    }

    public sealed class TheRawSql2014Trace3014Log
    {
        [Fact]
        public async Task Yields_one_event_per_timestamped_line()
        {
            // Given the published 72-line log, 68 lines of which carry a timestamp
            var source = new ErrorlogEventSource(Fixture.Tf3014Sql2014);

            // When
            var run = await SourceRun.ReadAsync(source);

            // Then
            Assert.Equal(68, run.Events.Count);
            Assert.Equal(68, run.Status.Events);
            Assert.Empty(run.Status.Problems);
            Assert.False(run.Status.Unusable);
            Assert.All(run.Progress, e => Assert.Equal(51, e.SessionId));
        }

        [Fact]
        public async Task Keeps_every_line_of_the_file()
        {
            // Given
            var source = new ErrorlogEventSource(Fixture.Tf3014Sql2014);

            // When
            var run = await SourceRun.ReadAsync(source);

            // Then the four untimestamped lines travel inside the messages they continue
            Assert.Equal(72, run.Progress.Sum(e => e.Message.Split('\n').Length));
        }

        [Fact]
        public async Task Reads_the_first_message_with_its_hundredths_of_a_second()
        {
            // Given
            var source = new ErrorlogEventSource(Fixture.Tf3014Sql2014);

            // When
            var first = (await SourceRun.ReadAsync(source)).Progress[0];

            // Then
            Assert.Equal(Local(18, 10, 48, 950), first.Timestamp);
            Assert.Equal(DateTimeKind.Unspecified, first.Timestamp.Kind);
            Assert.Equal("Backup(backuptest): BACKUP DATABASE started", first.Message);
            Assert.Null(first.Kind);
            Assert.Null(first.DatabaseName);
            Assert.Null(first.TraceLevel);
        }

        [Fact]
        public async Task Reads_the_last_message()
        {
            // Given
            var source = new ErrorlogEventSource(Fixture.Tf3014Sql2014);

            // When
            var last = (await SourceRun.ReadAsync(source)).Progress[^1];

            // Then
            Assert.Equal(Local(18, 10, 50, 850), last.Timestamp);
            Assert.Equal("Backup(backuptest): Calculating expected size of total data", last.Message);
        }

        [Fact]
        public async Task Keeps_the_padding_inside_a_buffer_configuration_line()
        {
            // Given
            var source = new ErrorlogEventSource(Fixture.Tf3014Sql2014);

            // When
            var run = await SourceRun.ReadAsync(source);

            // Then
            Assert.Equal("Memory limit:               2300 MB", run.Progress[7].Message);
            Assert.Equal(Local(18, 10, 49, 40), run.Progress[7].Timestamp);
        }

        [Fact]
        public async Task Appends_the_snipped_lines_to_the_percent_line_above_them()
        {
            // Given
            var source = new ErrorlogEventSource(Fixture.Tf3014Sql2014);

            // When
            var run = await SourceRun.ReadAsync(source);

            // Then
            var continued = run.Progress.Where(e => e.Message.Contains('\n')).Select(e => e.Message).ToList();
            Assert.Equal(
                [
                    "Backup(backuptest): 3 percent (3145728/95303680 bytes) processed\n(snipped)\nprocessed",
                    "Backup(backuptest): 47 percent (45023232/95303680 bytes) processed\n(snipped)\nprocessed",
                ],
                continued);
        }
    }

    public sealed class TheSql2005Trace3213Block
    {
        [Fact]
        public async Task Reads_utf8_lines_with_milliseconds()
        {
            // Given the SQL Server 2005 SP2 buffer block, UTF-8 without BOM
            var source = new ErrorlogEventSource(Fixture.Tf3213Sql2005);

            // When
            var run = await SourceRun.ReadAsync(source);

            // Then
            Assert.Equal(11, run.Events.Count);
            Assert.Empty(run.Status.Problems);
            Assert.Equal(new DateTime(2008, 2, 6, 11, 59, 31, 140), run.Progress[0].Timestamp);
            Assert.Equal("Backup/Restore buffer configuration parameters", run.Progress[0].Message);
            Assert.Equal("Memory limit: 3325MB", run.Progress[1].Message);
            Assert.Equal("Filesystem i/o alignment: 512", run.Progress[^1].Message);
            Assert.All(run.Progress, e => Assert.Equal(51, e.SessionId));
        }
    }

    public sealed class ProcessColumn
    {
        [Theory]
        [InlineData("spid51", 51)]
        [InlineData("spid7s", 7)]
        [InlineData("spid112", 112)]
        [InlineData("Backup", null)]
        [InlineData("Server", null)]
        [InlineData("Logon", null)]
        [InlineData("SPID51", 51)]
        [InlineData("spid0065535", 65535)]
        [InlineData("spid65536", null)]
        [InlineData("spid99999999999999999999", null)]
        [InlineData("spid", null)]
        [InlineData("SpId9", 9)]
        [InlineData("spic9", null)]
        [InlineData("rpid9", null)]
        [InlineData("\u017Fpid9", null)]
        [InlineData("sp\u0131d9", null)]
        [InlineData("\u00E9pid9", null)]
        public async Task Gives_the_session_id_of_spids_only(string process, int? expected)
        {
            // Given
            var text = $"2014-09-10 18:10:48.95 {process,-11} Some message\r\n";

            // When
            var run = await ReadTextAsync(text, Encodings.Utf8WithoutBom);

            // Then
            var only = Assert.Single(run.Progress);
            Assert.Equal(expected, only.SessionId);
            Assert.Equal("Some message", only.Message);
        }
    }

    public sealed class TextEncodings
    {
        private const string TwoLines =
            "2014-09-10 18:10:48.95 spid51      Backup(backuptest): BACKUP DATABASE started\r\n" +
            "2014-09-10 18:10:48.95 Backup      BACKUP DATABASE successfully processed 8042633 pages in 43.967 seconds (1429.096 MB/sec).\r\n";

        public static TheoryData<string> Names => ["utf-8", "utf-8 with BOM", "utf-16le with BOM"];

        [Theory]
        [MemberData(nameof(Names))]
        public async Task Read_the_same_messages(string name)
        {
            // Given
            var encoding = name switch
            {
                "utf-8" => Encodings.Utf8WithoutBom,
                "utf-8 with BOM" => Encodings.Utf8WithBom,
                _ => Encodings.Utf16LeWithBom,
            };

            // When
            var run = await ReadTextAsync(TwoLines, encoding);

            // Then
            Assert.Equal(
                ["Backup(backuptest): BACKUP DATABASE started", "BACKUP DATABASE successfully processed 8042633 pages in 43.967 seconds (1429.096 MB/sec)."],
                run.Progress.Select(e => e.Message));
            Assert.Equal([51, null], run.Progress.Select(e => e.SessionId));
        }
    }

    public sealed class SpReadErrorlogExports
    {
        [Fact]
        public async Task Read_a_tab_separated_export_and_skip_its_header()
        {
            // Given sp_readerrorlog saved from SSMS: LogDate, ProcessInfo, Text with milliseconds
            const string text =
                "LogDate\tProcessInfo\tText\r\n" +
                "2014-09-10 18:10:48.950\tspid51\tBackup(backuptest): BACKUP DATABASE started\r\n" +
                "2014-09-10 18:10:49.040\tspid51\tMemory limit:               2300 MB\r\n" +
                "2014-09-10 18:10:50.850\tBackup\tDatabase backed up. Database: backuptest, pages dumped: 3100\r\n";

            // When
            var run = await ReadTextAsync(text, Encodings.Utf8WithBom);

            // Then
            Assert.Empty(run.Status.Problems);
            Assert.Equal(3, run.Events.Count);
            Assert.Equal("Memory limit:               2300 MB", run.Progress[1].Message);
            Assert.Equal(Local(18, 10, 49, 40), run.Progress[1].Timestamp);
            Assert.Equal("Database backed up. Database: backuptest, pages dumped: 3100", run.Progress[2].Message);
            Assert.Null(run.Progress[2].SessionId);
        }

        [Fact]
        public async Task Read_a_text_mode_export_with_its_underline_and_row_count()
        {
            // Given results-to-text output: space-padded columns, a dashed underline, a row count
            const string text =
                "LogDate                 ProcessInfo Text\n" +
                "----------------------- ----------- ----------------------------------------\n" +
                "2014-09-10 18:10:48.950 spid51      Backup(backuptest): BACKUP DATABASE started\n" +
                "2014-09-10 18:10:49.040 spid51      Backup(backuptest): Opening the backup media set\n" +
                "\n" +
                "(2 rows affected)\n";

            // When
            var run = await ReadTextAsync(text, Encodings.Utf8WithoutBom);

            // Then
            Assert.Empty(run.Status.Problems);
            Assert.Equal(
                ["Backup(backuptest): BACKUP DATABASE started", "Backup(backuptest): Opening the backup media set"],
                run.Progress.Select(e => e.Message));
        }
    }

    public sealed class ReadBlocks
    {
        // UTF-16LE with a BOM is read straight into 64K-character blocks, anything else through a StreamReader into
        // 16K-character ones.
        public static TheoryData<string> BlockKinds => ["utf-16le", "utf-8"];

        [Theory]
        [MemberData(nameof(BlockKinds))]
        public async Task Lines_that_cross_read_blocks_come_out_whole_whatever_their_endings(string encoding)
        {
            // Given logs of ~1500 messages (several read blocks), two of them 20,000 characters long, with CR LF, LF
            // and CR endings in turn, shifted by 0 to 39 characters so that line ends, and the two halves of a CR LF,
            // fall on every side of the block boundaries
            for (var shift = 0; shift < 40; shift++)
            {
                var expected = new List<string>();
                var text = new StringBuilder(new string(' ', shift)).Append('\n');
                for (var i = 0; i < 1500; i++)
                {
                    var message = i is 250 or 1000
                        ? "Backup(db): " + new string('p', 20_000)
                        : $"Backup(db): message {i} {new string('x', i * 37 % 180)}";
                    expected.Add(message);
                    text.Append("2014-09-10 18:10:48.95 spid51      ").Append(message).Append((i % 3) switch { 0 => "\r\n", 1 => "\n", _ => "\r" });
                }

                // When
                var run = await ReadTextAsync(text.ToString(), encoding == "utf-8" ? Encoding.UTF8 : Encoding.Unicode);

                // Then
                Assert.Equal(expected, run.Progress.Select(e => e.Message));
                Assert.Empty(run.Status.Problems);
            }
        }
    }

    public sealed class DamagedLines
    {
        [Fact]
        public async Task A_binary_line_is_reported_by_number_and_reading_goes_on()
        {
            // Given
            const string text =
                "2014-09-10 18:10:48.95 spid51      Backup(backuptest): BACKUP DATABASE started\n" +
                "\u0001\u0002\0\u0003garbage\n" +
                "2014-09-10 18:10:49.04 spid51      Backup(backuptest): Opening the backup media set\n";

            // When
            var run = await ReadTextAsync(text, Encodings.Utf8WithoutBom);

            // Then
            var problem = Assert.Single(run.Status.Problems);
            Assert.Equal("line 2", problem.Location);
            Assert.Contains("binary", problem.Message);
            Assert.Equal(
                ["Backup(backuptest): BACKUP DATABASE started", "Backup(backuptest): Opening the backup media set"],
                run.Progress.Select(e => e.Message));
        }

        [Fact]
        public async Task Text_before_the_first_timestamp_is_reported()
        {
            // Given
            const string text =
                "orphan continuation\n" +
                "2014-09-10 18:10:48.95 spid51      Backup(backuptest): BACKUP DATABASE started\n";

            // When
            var run = await ReadTextAsync(text, Encodings.Utf8WithoutBom);

            // Then
            Assert.Equal("line 1", Assert.Single(run.Status.Problems).Location);
            Assert.Single(run.Events);
        }

        [Theory]
        [InlineData("2014-13-10 18:10:48.95")]
        [InlineData("2024-02-30 18:10:48.95")]
        [InlineData("2024-02-10 25:10:48.95")]
        [InlineData("0001-02-10 10:10:48.95")]
        public async Task An_impossible_date_is_reported_on_its_line_and_not_glued_to_the_message_above(string stamp)
        {
            // Given a timestamp-shaped line that no clock writes (month 13, February 30th, hour 25, year 1)
            var text =
                "2014-09-10 18:10:48.95 spid51      first\n" +
                $"{stamp} spid51      second\n";

            // When
            var run = await ReadTextAsync(text, Encodings.Utf8WithoutBom);

            // Then the message above stays whole, the damaged line is named, and its message is kept at the time above
            Assert.Equal(["first", "second"], run.Progress.Select(p => p.Message));
            Assert.Equal(run.Progress[0].Timestamp, run.Progress[1].Timestamp);
            Assert.Equal(51, run.Progress[1].SessionId);
            var problem = Assert.Single(run.Status.Problems);
            Assert.Equal("line 2", problem.Location);
            Assert.Contains("not a valid date and time; read at the time of the line before", problem.Message);
        }

        [Fact]
        public async Task Lines_of_the_same_second_keep_their_own_fractions_and_a_bad_one_changes_nothing_after_it()
        {
            // Given lines sharing their date and time to the second (read once, then compared), a damaged line in
            // the same second, and lines after it in the same and the next second
            var text =
                "2014-09-10 18:10:48.95 spid51      first\n" +
                "2014-09-10 18:10:48.96 spid51      second\n" +
                "2014-09-10 18:10:48.x spid51      damaged\n" +
                "2014-09-10 18:10:48 spid51      third\n" +
                "2014-09-10 18:10:49.5 spid51      fourth\n" +
                "2014-09-30 18:10:49.5 spid51      fifth\n";

            // When
            var run = await ReadTextAsync(text, Encodings.Utf8WithoutBom);

            // Then
            Assert.Equal(
                [
                    ("first", Local(18, 10, 48, 950)),
                    ("second", Local(18, 10, 48, 960)),
                    ("third", Local(18, 10, 48, 0)),
                    ("fourth", Local(18, 10, 49, 500)),
                    ("fifth", Local(18, 10, 49, 500).AddDays(20)),
                ],
                run.Progress.Select(e => (e.Message, e.Timestamp)));
            Assert.Equal("line 3", Assert.Single(run.Status.Problems).Location);
        }

        [Fact]
        public async Task A_file_without_any_timestamp_is_unusable()
        {
            // Given
            const string text = "just\nsome\ntext\n";

            // When
            var run = await ReadTextAsync(text, Encodings.Utf8WithoutBom);

            // Then
            Assert.True(run.Status.Unusable);
            Assert.Empty(run.Events);
        }
    }
}
