using BackupXe.Sources.Errorlog;
using FsCheck;
using FsCheck.Fluent;
using Xunit;

namespace BackupXe.Tests.Sources.Errorlog;

public sealed class ErrorlogLineTests
{
    [Fact]
    public void A_line_looks_binary_exactly_when_it_holds_a_control_character_other_than_tab_cr_lf_a_c1_control_or_the_replacement_character()
    {
        // Given lines of text with, now and then, every character near the edges of the quick range check
        var rare = Gen.Elements(
            '\t', '\n', '\r', '\0', '\u0001', '\u0008', '\u000B', '\u000C', '\u000E', '\u001F', ' ', '\u007F', '\u0085', '\u0080', '\u009F',
            '\u00A0', '\uD800', '\uDC00', '\uFFFC', '\uFFFD', '\uFFFE', '\uFFFF');
        var common = Gen.Choose(0x20, 0x7E).Select(c => (char)c);
        var line = Gen.Frequency((12, common), (1, rare)).ArrayOf().Select(chars => new string(chars));

        // Then the check says what the definition says
        Prop.ForAll(line.ToArbitrary(), text =>
        {
            var expected = text.Any(c => (c < ' ' && c is not ('\t' or '\n' or '\r')) || c is >= '\u0080' and <= '\u009F' || c == '\uFFFD');
            Assert.Equal(expected, ErrorlogLine.LooksBinary(text));
        }).Check(Config.QuickThrowOnFailure.WithMaxTest(3000).WithReplay(20261122UL, 0x9E3779B97F4A7C15UL));
    }

    [Fact]
    public void A_line_read_after_others_is_read_as_it_is_read_alone()
    {
        // Given runs of lines as a log gives them: seconds that repeat or not, process columns that repeat with the
        // same padding or another, tab-separated export lines, blanks or nothing where the text would start
        var seconds = Gen.Elements("2014-09-10 18:10:48", "2014-09-10 18:10:49", "2014-09-11 18:10:48", "2014-09-10 18:10:4x");
        var fractions = Gen.Elements(".95", ".950", "", ".0");
        var columns = Gen.Elements(
            " spid51      ", " spid51     ", " spid52      ", " spid7s      ", " Backup      ", " Server      ", " spid51\t    ",
            "\tspid51\t", "\tBackup\t", " spid51", "  ", " SPID51      ", " spid65536   ");
        var texts = Gen.Elements("Backup(db): 1 percent (1/2 bytes) processed", " leading blank", "\tleading tab", "", "x");
        var line =
            from second in seconds
            from fraction in fractions
            from column in columns
            from text in texts
            select second + fraction + column + text;

        // Then
        Prop.ForAll(line.ArrayOf().ToArbitrary(), lines =>
        {
            var lastLine = new ErrorlogLine.LastLine();
            foreach (var text in lines)
            {
                var alone = ErrorlogLine.TryParse(text, null, out var expected);
                Assert.Equal(alone, ErrorlogLine.TryParse(text, lastLine, out var parsed));
                Assert.Equal(expected, parsed);
            }
        }).Check(Config.QuickThrowOnFailure.WithMaxTest(2000).WithReplay(20261122UL, 0x2545F4914F6CDD1DUL));
    }
}
