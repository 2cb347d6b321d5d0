using BackupXe.Core.Parsing;
using Xunit;

namespace BackupXe.Tests.Parsing;

public sealed class CharRangeTests
{
    [Theory]
    [InlineData(' ', '\uFFFC')]
    [InlineData('\uD800', '\uDFFF')]
    [InlineData('a', 'a')]
    [InlineData('\0', '\uFFFF')]
    public void A_range_holds_its_two_ends_and_everything_between_and_nothing_else(char first, char last)
    {
        // Given the range's search values
        var range = CharRange.Of(first, last);

        // Then every character is in it exactly when it lies between the ends, both included
        for (var c = 0; c <= char.MaxValue; c++)
        {
            Assert.Equal(c >= first && c <= last, range.Contains((char)c));
        }
    }

    [Fact]
    public void A_scan_with_a_range_finds_the_first_character_outside_it_as_the_generic_range_scan_does()
    {
        // Given lines with characters just inside and just outside ' '..U+FFFC at every position of a long line
        var range = CharRange.Of(' ', '\uFFFC');
        foreach (var outside in new[] { '\u001F', '\uFFFD', '\uFFFF', '\t' })
        {
            for (var at = 0; at < 100; at++)
            {
                var line = new string('x', 100).ToCharArray();
                line[at] = outside;

                // Then both scans name the same place
                Assert.Equal(line.AsSpan().IndexOfAnyExceptInRange(' ', '\uFFFC'), line.AsSpan().IndexOfAnyExcept(range));
                Assert.Equal(at, line.AsSpan().IndexOfAnyExcept(range));
            }
        }
    }

    [Fact]
    public void Reversed_ends_are_refused()
        => Assert.Throws<ArgumentOutOfRangeException>(() => CharRange.Of('z', 'a'));
}
