using System.Text;
using BackupXe.Sources;
using BackupXe.Sources.Formats;
using BackupXe.Tests.Sources.Support;
using Xunit;

namespace BackupXe.Tests.Sources;

public sealed class InputSourcesTests
{
    public sealed class Open
    {
        [Fact]
        public void Recognises_the_raw_utf16_errorlog_by_content()
        {
            // Given / When
            var source = InputSources.Open(Fixture.Tf3014Sql2014);

            // Then
            Assert.Equal("errorlog", source.Format);
        }

        [Fact]
        public async Task Recognises_xe_xml_whatever_the_file_is_called()
        {
            // Given XE XML saved as ".log", after leading blank lines
            using var input = TempInput.WithText("\r\n  " + XeXmlEvents.Progress("2024-05-01T10:00:01Z", "x"), Encodings.Utf8WithBom, "events.log");

            // When
            var source = InputSources.Open(input.Path);
            var run = await SourceRun.ReadAsync(source);

            // Then
            Assert.Equal("xe-xml", source.Format);
            Assert.Single(run.Events);
        }

        [Fact]
        public async Task Recognises_an_errorlog_copied_without_its_bom()
        {
            // Given UTF-16LE with no BOM, named .xml
            var bytes = Encoding.Unicode.GetBytes("2014-09-10 18:10:48.95 spid51      Backup(backuptest): BACKUP DATABASE started\r\n");
            using var input = TempInput.WithBytes(bytes, "ERRORLOG.xml");

            // When
            var source = InputSources.Open(input.Path);
            var run = await SourceRun.ReadAsync(source);

            // Then
            Assert.Equal("errorlog", source.Format);
            Assert.Equal("Backup(backuptest): BACKUP DATABASE started", Assert.Single(run.Progress).Message);
        }

        [Fact]
        public void Recognises_an_sp_readerrorlog_export_by_its_header()
        {
            // Given
            using var input = TempInput.WithText("LogDate\tProcessInfo\tText\n2014-09-10 18:10:48.950\tspid51\tx\n", Encodings.Utf8WithoutBom);

            // When
            var source = InputSources.Open(input.Path);

            // Then
            Assert.Equal("errorlog", source.Format);
        }

        [Fact]
        public async Task Recognises_a_single_line_xe_xml_longer_than_the_sniffed_bytes()
        {
            // Given one line of event_data far longer than the detector reads, with multi-byte text across the cut
            var message = new string('é', InputPrefix.Length);
            using var input = TempInput.WithText(XeXmlEvents.Progress("2024-05-01T10:00:01Z", message).ReplaceLineEndings(""), Encodings.Utf8WithoutBom);

            // When
            var source = InputSources.Open(input.Path);
            var run = await SourceRun.ReadAsync(source);

            // Then
            Assert.Equal("xe-xml", source.Format);
            Assert.Equal(message, Assert.Single(run.Progress).Message);
        }
    }

    public sealed class UnreadableInputs
    {
        [Fact]
        public async Task A_missing_path_reports_file_not_found()
        {
            // Given
            using var nowhere = TempInput.Nowhere();

            // When
            var source = InputSources.Open(nowhere.Path);
            var run = await SourceRun.ReadAsync(source);

            // Then
            Assert.True(run.Status.Unusable);
            Assert.Empty(run.Events);
            Assert.Equal("file not found", Assert.Single(run.Status.Problems).Message);
        }

        [Fact]
        public async Task An_empty_file_reports_empty_file()
        {
            // Given
            using var input = TempInput.WithBytes([]);

            // When
            var run = await SourceRun.ReadAsync(InputSources.Open(input.Path));

            // Then
            Assert.True(run.Status.Unusable);
            Assert.Equal("empty file", Assert.Single(run.Status.Problems).Message);
        }

        [Fact]
        public async Task A_file_holding_only_a_bom_and_blank_lines_is_empty()
        {
            // Given
            using var input = TempInput.WithText("\r\n\r\n", Encodings.Utf16LeWithBom);

            // When
            var run = await SourceRun.ReadAsync(InputSources.Open(input.Path));

            // Then
            Assert.Equal("empty file", Assert.Single(run.Status.Problems).Message);
        }

        [Fact]
        public async Task A_binary_file_of_no_known_format_is_not_recognised()
        {
            // Given a zip header followed by noise
            using var input = TempInput.WithBytes([0x50, 0x4B, 0x03, 0x04, 0x14, 0x00, 0x00, 0x08, 0x08, 0x00, 0xFF, 0x00, 0x01, 0x02]);

            // When
            var source = InputSources.Open(input.Path);
            var run = await SourceRun.ReadAsync(source);

            // Then
            Assert.Equal("unknown", source.Format);
            Assert.True(run.Status.Unusable);
            Assert.Equal(
                "not a recognised format (expected xel, xe-xml, errorlog, ola-output, client-output, dbatools-backup-history, dbatools-backup-objects or restore-headeronly; docs/input-formats.md)",
                Assert.Single(run.Status.Problems).Message);
        }

        [Theory]
        [InlineData("Msg 208, Level 16, State 1, Line 1\r\nInvalid object name 'dbo.CommandLog'.\r\n\r\nCompletion time: 2026-06-09T10:36:16.9351954-04:00\r\n")]
        [InlineData("Database 'SingleUser' is already open and can only have one user at a time.\r\n")]
        public async Task An_error_no_catalog_row_names_or_a_catalog_error_without_its_Msg_header_is_no_operation_said_in_one_located_line(string text)
        {
            // Given: SSMS's block of an error outside the catalog, or 924's text alone (realworld4 V29 without its header)
            using var input = TempInput.WithText(text, new UTF8Encoding(false));

            // When
            var source = InputSources.Open(input.Path);
            var run = await SourceRun.ReadAsync(source);

            // Then: no format takes it and no operation is made of it; the one problem says it is SQL Server's text, at its line
            Assert.Equal("unknown", source.Format);
            Assert.True(run.Status.Unusable);
            var problem = Assert.Single(run.Status.Problems);
            Assert.StartsWith("cannot tell: SQL Server's messages are in it (line 1: ", problem.Message, StringComparison.Ordinal);
        }

        [Fact]
        public void Plain_text_that_is_not_a_log_is_not_recognised()
        {
            // Given
            var head = Encoding.UTF8.GetBytes("Dear DBA,\nplease find the backup attached.\n");

            // When
            var recognised = InputFormats.Recognise(new InputPrefix(head, isWholeInput: true));

            // Then
            Assert.Null(recognised);
        }
    }

    public sealed class XelFiles
    {
        [Fact]
        public async Task The_genuine_xel_is_detected_and_read()
        {
            // Given the genuine event_file from sqltoolsservice
            var path = Fixture.TestXel;

            // When
            var source = InputSources.Open(path);
            var run = await SourceRun.ReadAsync(source);

            // Then
            Assert.Equal("xel", source.Format);
            Assert.False(run.Status.Unusable);
            Assert.Empty(run.Status.Problems);
            Assert.Equal(149, run.Events.Count);
        }

        [Fact]
        public void A_renamed_xel_is_still_a_xel()
        {
            // Given the genuine file's bytes under a .xml name
            using var input = TempInput.WithBytes(File.ReadAllBytes(Fixture.TestXel), "events.xml");

            // When
            var source = InputSources.Open(input.Path);

            // Then
            Assert.Equal("xel", source.Format);
        }
    }
}
