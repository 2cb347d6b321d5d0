using System.Runtime.InteropServices;
using System.Text;
using BackupXe.Sources.Errorlog;
using FsCheck;
using FsCheck.Fluent;
using Xunit;

namespace BackupXe.Tests.Sources.Errorlog;

public sealed class CharBlocksTests
{
    private static readonly Config Checks = Config.QuickThrowOnFailure.WithMaxTest(2000).WithReplay(20261122UL, 0x2545F4914F6CDD1DUL);

    // UTF-16LE code units, mostly ASCII, with surrogates of both halves, U+FFFD, U+FEFF and NUL often enough that
    // pairs, lone halves and halves at the end of a read all occur.
    private static readonly Gen<char> Units = Gen.Frequency(
        (8, Gen.Choose(0x20, 0x7E).Select(c => (char)c)),
        (2, Gen.Elements('\r', '\n', '\0', '\u00E9', '\u4E2D', '\uFFFD', '\uFEFF', '\uFFFF')),
        (3, Gen.Choose(0xD800, 0xDBFF).Select(c => (char)c)),
        (3, Gen.Choose(0xDC00, 0xDFFF).Select(c => (char)c)));

    // The bytes after a UTF-16LE BOM: whole code units, and now and then one byte more. Not a NUL first, which
    // would make the BOM UTF-32LE's (OtherHeads has that case).
    private static readonly Gen<byte[]> Utf16Bodies =
        (from units in Units.ArrayOf()
         from odd in Gen.Frequency((3, Gen.Constant<byte?>(null)), (1, Gen.Choose(0, 255).Select(b => (byte?)b)))
         select units.SelectMany(u => new[] { (byte)u, (byte)(u >> 8) }).Concat(odd is { } b ? [b] : []).ToArray())
        .Where(body => body is not [0, 0, ..]);

    private static readonly Gen<int[]> ReadSizes = Gen.Choose(1, 9).ArrayOf().Where(sizes => sizes.Length > 0);

    private static byte[] WithUtf16Bom(byte[] body) => [0xFF, 0xFE, .. body];

    // The code units as they are, lone surrogates included, as Encoding.Unicode would not write them.
    private static byte[] CodeUnits(ReadOnlySpan<char> text) => MemoryMarshal.AsBytes(text).ToArray();

    private static string ReadAll(CharBlocks blocks)
    {
        var text = new StringBuilder();
        using (blocks)
        {
            for (var block = blocks.Next(); block.Count > 0; block = blocks.Next())
            {
                text.Append(block.AsSpan());
            }
        }

        return text.ToString();
    }

    private static string ReadWithStreamReader(byte[] bytes) =>
        new StreamReader(new MemoryStream(bytes), new UTF8Encoding(false), detectEncodingFromByteOrderMarks: true).ReadToEnd();

    // Every line with what the reader says of it.
    private static List<(string Text, bool Truncated, long Length, bool PrintableAscii)> Lines(BoundedLineReader reader)
    {
        var lines = new List<(string, bool, long, bool)>();
        while (reader.ReadLine(out var line))
        {
            lines.Add((line.ToString(), reader.Truncated, reader.LastLineLength, reader.LastLineIsPrintableAscii));
        }

        return lines;
    }

    private static List<(string Text, bool Truncated, long Length, bool PrintableAscii)> LinesOf(CharBlocks blocks)
    {
        using (blocks)
        {
            return Lines(new BoundedLineReader(blocks));
        }
    }

    private static List<(string Text, bool Truncated, long Length, bool PrintableAscii)> DecodedLines(byte[] bytes) =>
        Lines(new BoundedLineReader(new StreamReader(new MemoryStream(bytes), new UTF8Encoding(false), detectEncodingFromByteOrderMarks: true)));

    [Fact]
    public void The_lines_of_a_utf16le_text_read_straight_are_the_lines_of_its_decoded_text_whatever_the_bytes_and_read_sizes()
    {
        // Given any bytes after a UTF-16LE BOM, served by a stream in reads of 1 to 9 bytes
        Prop.ForAll(Utf16Bodies.ToArbitrary(), ReadSizes.ToArbitrary(), (body, sizes) =>
        {
            var bytes = WithUtf16Bom(body);

            // When
            var blocks = CharBlocks.Open(new ShortReadStream(bytes, sizes), Encoding.UTF8, 4096);

            // Then it is the straight reader, and its lines are the decoder's, lone surrogates and odd byte replaced
            Assert.IsType<Utf16LittleEndianBlocks>(blocks);
            Assert.Equal(DecodedLines(bytes), LinesOf(blocks));
        }).Check(Checks);
    }

    [Fact]
    public void Lines_that_cross_blocks_larger_than_a_file_streams_buffer_keep_their_surrogate_pairs_and_lose_nothing()
    {
        // Given 300,000 code units in lines of 999, with a surrogate pair astride every 64K-character block boundary
        // and lone halves before and after it, as a file would serve them
        var units = new char[300_000];
        for (var i = 0; i < units.Length; i++)
        {
            units[i] = i % 1000 == 999 ? '\n' : (char)('a' + (i % 26));
        }

        for (var edge = 65_536; edge < units.Length; edge += 65_536)
        {
            (units[edge - 1], units[edge]) = ('\uD83D', '\uDE00');
            units[edge - 3] = '\uD800';
            units[edge + 2] = '\uDC00';
        }

        var bytes = WithUtf16Bom(CodeUnits(units));

        // When
        var lines = LinesOf(CharBlocks.Open(new MemoryStream(bytes), Encoding.UTF8, 4096));

        // Then
        Assert.Equal(DecodedLines(bytes), lines);
        Assert.Contains(lines, line => line.Text.Contains("\uD83D\uDE00", StringComparison.Ordinal));
    }

    // Code units as numbers: xunit passes a theory's strings through a serializer that makes lone surrogates U+FFFD.
    public static TheoryData<string, int[]> CutLines => new()
    {
        { "a pair astride the cut", [0xD83D, 0xDE00] },
        { "a lone high surrogate at the cut", [0xD83D, 'x'] },
        { "a lone low surrogate after the cut", ['x', 0xDE00] },
        { "a lone high surrogate as the last character kept", [0xD83D] },
    };

    [Theory]
    [MemberData(nameof(CutLines))]
    public void A_line_cut_at_the_length_limit_keeps_what_its_decoded_text_keeps(string name, int[] atTheCut)
    {
        // Given lines longer than the limit with surrogates where the cut falls, whole in a block and across blocks
        foreach (var lead in new[] { 0, 40_000 })
        {
            var line = new string('a', BoundedLineReader.MaxLineChars - 1) + new string([.. atTheCut.Select(c => (char)c)]) + "tail";
            var text = new string('b', lead) + "\r\n" + line + "\r\nnext\r\n";
            var bytes = WithUtf16Bom(CodeUnits(text));

            // When
            var lines = LinesOf(CharBlocks.Open(new MemoryStream(bytes), Encoding.UTF8, 4096));

            // Then
            Assert.True(lines[1].Truncated, name);
            Assert.Equal(DecodedLines(bytes), lines);
        }
    }

    public static TheoryData<string, byte[]> OtherHeads => new()
    {
        { "UTF-32LE BOM", [0xFF, 0xFE, 0x00, 0x00, 0x41, 0x00, 0x00, 0x00] },
        { "UTF-16BE BOM", [0xFE, 0xFF, 0x00, 0x41] },
        { "UTF-8 BOM", [0xEF, 0xBB, 0xBF, 0x41] },
        { "no BOM", [0x41, 0x42, 0x43] },
        { "one byte", [0xFF] },
        { "empty", [] },
    };

    [Theory]
    [MemberData(nameof(OtherHeads))]
    public void Any_other_start_is_decoded_by_a_stream_reader_from_its_first_byte(string head, byte[] bytes)
    {
        // When
        var blocks = CharBlocks.Open(new MemoryStream(bytes), Encoding.UTF8, 4096);

        // Then
        Assert.False(blocks is Utf16LittleEndianBlocks, head);
        Assert.Equal(ReadWithStreamReader(bytes), ReadAll(blocks));
    }

    [Theory]
    [InlineData(new byte[] { 0xFF, 0xFE })]
    [InlineData(new byte[] { 0xFF, 0xFE, 0x41 })]
    [InlineData(new byte[] { 0xFF, 0xFE, 0x00, 0x00 })]
    public void A_text_that_is_a_bom_or_a_bom_and_one_byte_reads_as_a_stream_reader_reads_it(byte[] bytes)
    {
        // When
        var text = ReadAll(CharBlocks.Open(new MemoryStream(bytes), Encoding.UTF8, 4096));

        // Then
        Assert.Equal(ReadWithStreamReader(bytes), text);
    }

    [Fact]
    public void A_stream_is_read_from_its_first_byte_whichever_reader_is_chosen_and_without_seeking()
    {
        // Given a raw ERRORLOG and a UTF-8 export, from a pipe that serves a byte or two at a time
        var line = "2014-09-10 18:10:48.95 spid51      Backup(db): started\r\n";
        foreach (var bytes in new[] { WithUtf16Bom(Encoding.Unicode.GetBytes(line)), Encoding.UTF8.GetBytes(line) })
        {
            // When
            var blocks = CharBlocks.Open(new ShortReadStream(bytes, [1, 2], canSeek: false), Encoding.UTF8, 4096);

            // Then
            Assert.Equal(bytes[0] == 0xFF, blocks is Utf16LittleEndianBlocks);
            Assert.Equal(line, ReadAll(blocks));
        }
    }

    [Fact]
    public void A_line_is_called_printable_ascii_only_when_it_is_and_always_when_it_is()
    {
        // Given texts of lines that mix printable ASCII with tabs, controls, U+FFFD and other characters
        var chars = Gen.Frequency(
            (20, Gen.Choose(0x20, 0x7E).Select(c => (char)c)),
            (2, Gen.Elements('\r', '\n')),
            (1, Gen.Elements('\t', '\0', '\u0001', '\u007F', '\u0080', '\u00E9', '\uFFFD')));
        Prop.ForAll(chars.ArrayOf().Select(c => new string(c)).ToArbitrary(), ReadSizes.ToArbitrary(), (text, sizes) =>
        {
            // When its lines are read in blocks of any size
            var reader = new BoundedLineReader(new ShortReadTextReader(text, sizes));
            var expected = text.ReplaceLineEndings("\n").Split('\n');
            var i = 0;
            while (reader.ReadLine(out var line))
            {
                // Then each line, cut where the text has a line end, says it is printable ASCII exactly when it is
                Assert.Equal(expected[i], line.ToString());
                Assert.Equal(expected[i].All(c => c is >= ' ' and <= '~'), reader.LastLineIsPrintableAscii);
                i++;
            }

            Assert.True(i == expected.Length || (i == expected.Length - 1 && expected[^1].Length == 0));
        }).Check(Checks);
    }

    /// <summary>A stream that serves at most the next of its read sizes per call, as a pipe or socket may.</summary>
    private sealed class ShortReadStream(byte[] bytes, int[] sizes, bool canSeek = true) : MemoryStream(bytes)
    {
        private int _read;

        public override bool CanSeek => canSeek && base.CanSeek;

        // MemoryStream's span overload, in a derived type, goes through the array one: the cut is made there alone.
        public override int Read(byte[] buffer, int offset, int count) =>
            base.Read(buffer, offset, Math.Min(count, sizes[_read++ % sizes.Length]));
    }

    /// <summary>Text served in reads of at most the next of its sizes.</summary>
    private sealed class ShortReadTextReader(string text, int[] sizes) : TextReader
    {
        private int _at;
        private int _read;

        public override int Read(Span<char> buffer)
        {
            var count = Math.Min(Math.Min(buffer.Length, sizes[_read++ % sizes.Length]), text.Length - _at);
            text.AsSpan(_at, count).CopyTo(buffer);
            _at += count;
            return count;
        }
    }
}
