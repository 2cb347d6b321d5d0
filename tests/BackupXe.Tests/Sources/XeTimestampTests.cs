using System.Globalization;
using BackupXe.Sources.XeXml;
using FsCheck;
using FsCheck.Fluent;
using Xunit;

namespace BackupXe.Tests.Sources;

/// <summary>
/// The direct reading of an XE timestamp must give what <see cref="DateTime.TryParse(string, IFormatProvider, DateTimeStyles, out DateTime)"/>
/// gave before it, or decline and leave the text to it.
/// </summary>
public sealed class XeTimestampTests
{
    private static Config Seeded(ulong seed) => Config.QuickThrowOnFailure.WithMaxTest(500).WithReplay(seed, 0x9E3779B97F4A7C15UL);

    private static (bool Ok, DateTime Value) General(string text) =>
        (DateTime.TryParse(text, CultureInfo.InvariantCulture, DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal, out var value), value);

    [Theory]
    [InlineData("2024-06-01T00:00:00.000Z")]
    [InlineData("2024-02-29T23:59:59.9999999Z")]
    [InlineData("2024-05-01T01:30:00Z")]
    [InlineData("0001-01-01T00:00:00.1Z")]
    [InlineData("9999-12-31T23:59:59.9999999Z")]
    public void Reads_the_server_shape_as_the_general_parser_does(string text)
    {
        // When
        var direct = XeEventParser.TryParseRoundTrip(text, out var value);

        // Then
        Assert.True(direct);
        Assert.Equal(General(text), (true, value));
        Assert.Equal(DateTimeKind.Utc, value.Kind);
    }

    [Theory]
    [InlineData("2023-02-29T00:00:00Z")]
    [InlineData("2024-06-01T24:00:00Z")]
    [InlineData("2024-06-01T00:00:60Z")]
    [InlineData("2024-06-01T00:00:00.Z")]
    [InlineData("2024-06-01T00:00:00.12345678Z")]
    [InlineData("2024-06-01 00:00:00Z")]
    [InlineData("2024-06-01T00:00:00+02:00")]
    [InlineData("0000-01-01T00:00:00Z")]
    [InlineData("2024-13-01T00:00:00Z")]
    [InlineData("")]
    public void Declines_anything_else(string text) => Assert.False(XeEventParser.TryParseRoundTrip(text, out _));

    [Fact]
    public void Any_instant_with_up_to_seven_fraction_digits_reads_back_exactly()
    {
        var instants =
            from ticks in Gen.Choose(0, int.MaxValue).Select(t => (long)(t / (double)int.MaxValue * (DateTime.MaxValue.Ticks - 1)))
            from digits in Gen.Choose(0, 7)
            select (Instant: new DateTime(ticks - (ticks % (long)Math.Pow(10, 7 - digits)), DateTimeKind.Utc), Digits: digits);

        Prop.ForAll(instants.ToArbitrary(), sample =>
        {
            // Given the instant written as the server writes it, with that many fraction digits
            var format = sample.Digits == 0 ? "yyyy-MM-dd'T'HH:mm:ss'Z'" : "yyyy-MM-dd'T'HH:mm:ss." + new string('f', sample.Digits) + "'Z'";
            var text = sample.Instant.ToString(format, CultureInfo.InvariantCulture);

            // When / Then
            Assert.True(XeEventParser.TryParseRoundTrip(text, out var value), text);
            Assert.Equal(sample.Instant, value);
            Assert.Equal(General(text), (true, value));
        }).Check(Seeded(20241122));
    }

    [Fact]
    public void A_damaged_timestamp_is_read_as_the_general_parser_reads_it_or_declined()
    {
        var damaged =
            from position in Gen.Choose(0, 23)
            from replacement in Gen.Elements('0', '9', '3', 'Z', 'T', '.', ':', '-', ' ', '+', 'x')
            select (Position: position, Replacement: replacement);

        Prop.ForAll(damaged.ToArbitrary(), damage =>
        {
            // Given one character of a real timestamp replaced
            var chars = "2024-06-01T13:45:07.123Z".ToCharArray();
            chars[damage.Position] = damage.Replacement;
            var text = new string(chars);

            // When / Then: either declined, or the same value as before
            if (XeEventParser.TryParseRoundTrip(text, out var value))
            {
                Assert.Equal(General(text), (true, value));
            }
        }).Check(Seeded(20241123));
    }
}
