using BackupXe.Sources.XeEvents;
using Xunit;

namespace BackupXe.Tests.Sources.XeEvents;

public sealed class XeNumberTests
{
    [Theory]
    [InlineData("0", true, 0L)]
    [InlineData("187", true, 187L)]
    [InlineData("9223372036854775807", true, long.MaxValue)]
    [InlineData("-5", true, -5L)]
    [InlineData("+5", true, 5L)]
    [InlineData(" 5 ", true, 5L)]
    [InlineData("007", true, 7L)]
    [InlineData("9223372036854775808", false, 0L)]
    [InlineData("", false, 0L)]
    [InlineData("1e3", false, 0L)]
    public void Characters_and_a_string_give_the_same_number_and_the_text_as_written(string written, bool isInteger, long value)
    {
        // When
        var fromChars = XeNumber.From(written.AsSpan());
        var fromString = XeNumber.From(written);

        // Then
        foreach (var number in new[] { fromChars, fromString })
        {
            Assert.True(number.IsPresent);
            Assert.Equal(isInteger, number.IsInteger);
            Assert.Equal(written, number.Text);
            if (isInteger)
            {
                Assert.Equal(value, number.Value);
            }
        }
    }

    [Theory]
    [InlineData("0", 0L, true)]
    [InlineData("1", 1L, true)]
    [InlineData("00", 0L, false)]
    [InlineData(" 0", 0L, false)]
    [InlineData("+1", 1L, false)]
    [InlineData("-0", 0L, false)]
    public void Is_exactly_a_key_only_when_written_in_its_plain_form(string written, long key, bool expected)
    {
        Assert.Equal(expected, XeNumber.From(written.AsSpan()).IsExactly(key));
        Assert.Equal(expected, XeNumber.From(written).IsExactly(key));
    }

    [Fact]
    public void An_absent_number_has_no_text_and_no_value()
    {
        var absent = XeNumber.From((string?)null);

        Assert.False(absent.IsPresent);
        Assert.Null(absent.Text);
        Assert.Null(absent.AsInt32);
    }

    [Theory]
    [InlineData("2147483647", 2147483647)]
    [InlineData("2147483648", null)]
    [InlineData("-2147483648", -2147483648)]
    [InlineData("x", null)]
    public void As_int32_only_when_it_fits(string written, int? expected) =>
        Assert.Equal(expected, XeNumber.From(written.AsSpan()).AsInt32);
}
