using BackupXe.Sources.Errorlog;
using FsCheck;
using FsCheck.Fluent;
using Xunit;

namespace BackupXe.Tests.Sources;

public sealed class ErrorlogLineTests
{
    [Fact]
    public void A_line_looks_binary_exactly_when_it_holds_a_control_character_other_than_tab_cr_lf_or_the_replacement_character()
    {
        // Given lines of text with, now and then, every character near the edges of the quick range check
        var rare = Gen.Elements(
            '\t', '\n', '\r', '\0', '\u0001', '\u0008', '\u000B', '\u000C', '\u000E', '\u001F', ' ', '\u007F', '\u0085',
            '\u00A0', '\uD800', '\uDC00', '\uFFFC', '\uFFFD', '\uFFFE', '\uFFFF');
        var common = Gen.Choose(0x20, 0x7E).Select(c => (char)c);
        var line = Gen.Frequency((12, common), (1, rare)).ArrayOf().Select(chars => new string(chars));

        // Then the check says what the definition says
        Prop.ForAll(line.ToArbitrary(), text =>
        {
            var expected = text.Any(c => (c < ' ' && c is not ('\t' or '\n' or '\r')) || c == '\uFFFD');
            Assert.Equal(expected, ErrorlogLine.LooksBinary(text));
        }).Check(Config.QuickThrowOnFailure.WithMaxTest(3000).WithReplay(20261122UL, 0x9E3779B97F4A7C15UL));
    }
}
