using System.Text;
using BackupXe.Sources;
using BackupXe.Sources.Formats;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Sources.Support;
using Xunit;

namespace BackupXe.Tests.Sources;

public sealed class InputFormatsTests
{
    private const string LogLine = "2014-09-10 18:10:48.95 spid51      Backup(backuptest): BACKUP DATABASE started";

    private static string Log(int lines) =>
        string.Join("\r\n", Enumerable.Range(0, lines).Select(i => $"2014-09-10 18:10:{48 + (i / 100 % 10)}.{i % 100:00} spid51      Backup(backuptest): Estimated total size = {i} bytes")) + "\r\n";

    private static InputPrefix PrefixOf(string text, Encoding encoding) =>
        new(encoding.GetPreamble().Concat(encoding.GetBytes(text)).ToArray(), isWholeInput: true);

    public sealed class TheTable
    {
        [Fact]
        public void Names_each_format_once()
        {
            var names = InputFormats.All.Select(f => f.Name).ToList();
            Assert.Equal(names.Distinct().Count(), names.Count);
        }

        [Fact]
        public void Is_documented_format_by_format_in_docs()
        {
            // Given the page users are pointed at when an input is not recognised
            var doc = File.ReadAllText(Path.Combine(Path.GetDirectoryName(CliRun.Sample("x"))!, "..", "docs", "input-formats.md"));

            // Then every entry of the table is there with what it reads and what damage does
            foreach (var format in InputFormats.All)
            {
                Assert.Contains($"`{format.Name}`", doc);
                Assert.Contains(format.Description, doc);
                Assert.Contains(format.WhenDamaged, doc);
            }
        }

        [Fact]
        public void Given_the_json_schema_when_it_lists_input_formats_then_every_format_is_there()
        {
            // Given the row of docs/json-schema.md that says what inputs[].format holds
            var doc = File.ReadAllLines(Path.Combine(Path.GetDirectoryName(CliRun.Sample("x"))!, "..", "docs", "json-schema.md"));
            var row = Assert.Single(doc, l => l.StartsWith("| `format` |", StringComparison.Ordinal));

            // Then
            Assert.All(InputFormats.All, format => Assert.Contains($"`\"{format.Name}\"`", row));
        }
    }

    public sealed class Recognise
    {
        [Fact]
        public void An_errorlog_whose_first_line_is_damaged_is_still_an_errorlog()
        {
            // Given a control byte and a cut in the first line, then a normal log
            var prefix = PrefixOf("\u0001\u0002garbage\r\n" + Log(50), Encodings.Utf16LeWithBom);

            // When
            var recognised = InputFormats.Recognise(prefix);

            // Then
            Assert.Equal(("errorlog", MatchStrength.Weak), (recognised?.Format.Name, recognised?.Match.Strength));
        }

        [Fact]
        public void One_control_byte_in_the_first_lines_does_not_refuse_the_log()
        {
            var prefix = PrefixOf(LogLine + "\r\n" + LogLine.Replace("BACKUP", "BA\u0007CKUP", StringComparison.Ordinal) + "\r\n" + Log(20), Encodings.Utf8WithoutBom);

            var recognised = InputFormats.Recognise(prefix);

            Assert.Equal(("errorlog", MatchStrength.Strong), (recognised?.Format.Name, recognised?.Match.Strength));
        }

        [Fact]
        public void Xe_xml_with_damage_before_its_first_event_is_still_xe_xml()
        {
            var prefix = PrefixOf("\u0003#cut#" + XeXmlEvents.Progress("2024-05-01T10:00:01Z", "BACKUP DATABASE started"), Encodings.Utf8WithoutBom);

            var recognised = InputFormats.Recognise(prefix);

            Assert.Equal(("xe-xml", MatchStrength.Weak), (recognised?.Format.Name, recognised?.Match.Strength));
        }

        [Fact]
        public void A_file_of_text_lines_that_rarely_open_with_a_timestamp_is_not_a_log()
        {
            // Given prose with one dated line among many
            var prose = string.Join("\n", Enumerable.Repeat("The backup ran long again last night, see the ticket.", 20)) + "\n" + LogLine + "\n";

            Assert.Null(InputFormats.Recognise(PrefixOf(prose, Encodings.Utf8WithoutBom)));
        }
    }

    public sealed class StreamsThatCannotRewind
    {
        [Fact]
        public async Task Are_read_once_from_their_first_byte_past_the_sniffed_prefix()
        {
            // Given a log several times longer than the sniffed prefix, arriving through a pipe
            var text = Log(3000);
            var pipe = new OneWayStream(Encodings.Utf16LeWithBom.GetPreamble().Concat(Encoding.Unicode.GetBytes(text)).ToArray());
            Assert.True(pipe.Length > 4 * InputPrefix.Length);

            // When
            var run = await SourceRun.ReadAsync(InputSources.Open(InputSources.StandardInput, pipe));

            // Then not one line is lost at the joint
            Assert.Empty(run.Status.Problems);
            Assert.Equal(3000, run.Events.Count);
            Assert.Equal("Backup(backuptest): Estimated total size = 0 bytes", run.Progress[0].Message);
            Assert.Equal("Backup(backuptest): Estimated total size = 2999 bytes", run.Progress[^1].Message);
        }
    }

    public sealed class OpenAll
    {
        [Fact]
        public void Reads_a_file_named_twice_once_and_says_so()
        {
            // Given one log named directly and again through another relative spelling
            using var input = TempInput.WithText(Log(3), Encodings.Utf8WithoutBom, "ERRORLOG");
            var other = Path.Combine(Path.GetDirectoryName(input.Path)!, ".", "ERRORLOG");

            // When
            var selection = InputSources.OpenAll([input.Path, other, input.Path]);

            // Then
            Assert.Single(selection.Sources);
            Assert.Equal(2, selection.Repeats.Count);
            Assert.Contains($"the same file as {input.Path}; read once", selection.Repeats[0]);
            Assert.EndsWith("named more than once; read once", selection.Repeats[1]);
        }

        [Fact]
        public void Reads_a_byte_identical_copy_under_another_name_once_and_keeps_a_different_file_of_the_same_length()
        {
            // Given a log, its copy, and a log of the same length that differs in one byte
            using var input = TempInput.WithText(Log(3), Encodings.Utf8WithoutBom, "ERRORLOG");
            var folder = Path.GetDirectoryName(input.Path)!;
            var copy = Path.Combine(folder, "ERRORLOG.copy");
            File.Copy(input.Path, copy);
            var bytes = File.ReadAllBytes(input.Path);
            bytes[^2] ^= 1;
            var different = Path.Combine(folder, "ERRORLOG.other");
            File.WriteAllBytes(different, bytes);

            // When
            var selection = InputSources.OpenAll([input.Path, copy, different]);

            // Then the copy is read once and said so; the other file of the same length is read
            Assert.Equal(2, selection.Sources.Count);
            Assert.Equal($"{copy}: the same content as {input.Path}; read once", Assert.Single(selection.Repeats));
        }

        [Fact]
        public void Finds_a_copy_of_a_large_file_and_reads_one_that_differs_only_between_the_sampled_blocks()
        {
            // Given a 3 MB file, its copy, and a file of the same length that differs in one byte no sample reads
            var folder = Directory.CreateTempSubdirectory("backupxe-copies-").FullName;
            try
            {
                var bytes = new byte[3 * 1024 * 1024];
                new Random(7).NextBytes(bytes);
                var original = Path.Combine(folder, "capture_0_1.xel");
                File.WriteAllBytes(original, bytes);
                var copy = Path.Combine(folder, "copy_0_1.xel");
                File.Copy(original, copy);
                bytes[(64 * 1024) + 1] ^= 1;
                var different = Path.Combine(folder, "capture_0_2.xel");
                File.WriteAllBytes(different, bytes);

                // When
                var selection = InputSources.OpenAll([original, copy, different]);

                // Then the sample sent both on to a whole comparison: the copy is found, the other is read
                Assert.Equal(2, selection.Sources.Count);
                Assert.Equal($"{copy}: the same content as {original}; read once", Assert.Single(selection.Repeats));
            }
            finally
            {
                Directory.Delete(folder, recursive: true);
            }
        }
    }

    /// <summary>A pipe: reads forward only, in small chunks, and cannot seek.</summary>
    private sealed class OneWayStream(byte[] content) : Stream
    {
        private int _position;

        public override bool CanRead => true;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => content.Length;

        public override long Position
        {
            get => throw new NotSupportedException();
            set => throw new NotSupportedException();
        }

        public override int Read(byte[] buffer, int offset, int count)
        {
            var length = Math.Min(Math.Min(count, 1000), content.Length - _position);
            Array.Copy(content, _position, buffer, offset, length);
            _position += length;
            return length;
        }

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }
}
