using BackupXe.Core.Reporting;

namespace BackupXe.Core.Rendering;

/// <summary>
/// A date and time in the form <see cref="System.Text.Json.Utf8JsonWriter"/> writes one: ISO 8601 round-trip
/// ("O"), with the fraction's trailing zeros dropped and the fraction too when it is zero, then "Z" for UTC
/// (2024-06-01T00:00:00.42, 2024-06-01T00:00:05Z). UTC and unspecified times only: a local time carries the
/// machine's offset, which only the writer's own path looks up.
/// </summary>
internal static class IsoTime
{
    /// <summary>The longest result: 9999-12-31T23:59:59.9999999Z.</summary>
    public const int MaxLength = 28;

    // "yyyy-MM-ddT" and "yyyy-MM-ddTHH:mm:ss".
    private const int DateLength = 11;
    private const int SecondLength = 19;

    private const int TicksPerHundredth = (int)(TimeSpan.TicksPerSecond / 100);

    /// <summary>
    /// Writes <paramref name="value"/> to <paramref name="output"/> (at least <see cref="MaxLength"/> bytes) as ASCII
    /// and returns the length, taking the date, or the date and time to the second, from <paramref name="previousText"/>,
    /// the text of <paramref name="previous"/> (empty when there is none), when <paramref name="value"/> shares them:
    /// a backup's progress points fall on one day and several in each second, and the calendar arithmetic was the
    /// largest cost of writing them (docs/performance.md).
    /// </summary>
    public static int Format(DateTime value, Span<byte> output, DateTime previous, ReadOnlySpan<byte> previousText)
    {
        if (value.Kind == DateTimeKind.Local)
        {
            throw new ArgumentException("A local time's offset is the writer's to write.", nameof(value));
        }

        var timeOfDay = value.Ticks % TimeSpan.TicksPerDay;
        var fraction = (int)(timeOfDay % TimeSpan.TicksPerSecond);
        var known = previousText.Length < SecondLength ? 0
            : value.Ticks / TimeSpan.TicksPerSecond == previous.Ticks / TimeSpan.TicksPerSecond ? SecondLength
            : value.Ticks / TimeSpan.TicksPerDay == previous.Ticks / TimeSpan.TicksPerDay ? DateLength
            : 0;
        previousText[..known].CopyTo(output);
        if (known == 0)
        {
            value.Deconstruct(out int year, out int month, out int day);
            Two(output, 0, year / 100);
            Two(output, 2, year % 100);
            output[4] = (byte)'-';
            Two(output, 5, month);
            output[7] = (byte)'-';
            Two(output, 8, day);
            output[10] = (byte)'T';
        }

        if (known < SecondLength)
        {
            var second = (int)(timeOfDay / TimeSpan.TicksPerSecond);
            Two(output, 11, second / 3600);
            output[13] = (byte)':';
            Two(output, 14, second / 60 % 60);
            output[16] = (byte)':';
            Two(output, 17, second % 60);
        }

        var length = SecondLength;
        if (fraction != 0 && fraction % TicksPerHundredth == 0)
        {
            // An ERRORLOG's resolution, so nearly every time of a report read from one: two digits, or one.
            var hundredths = fraction / TicksPerHundredth;
            output[length++] = (byte)'.';
            output[length++] = (byte)('0' + (hundredths / 10));
            if (hundredths % 10 != 0)
            {
                output[length++] = (byte)('0' + (hundredths % 10));
            }
        }
        else if (fraction != 0)
        {
            output[length++] = (byte)'.';
            var digits = 7;
            while (fraction % 10 == 0)
            {
                fraction /= 10;
                digits--;
            }

            for (var i = digits - 1; i >= 0; i--)
            {
                output[length + i] = (byte)('0' + (fraction % 10));
                fraction /= 10;
            }

            length += digits;
        }

        if (value.Kind == DateTimeKind.Utc)
        {
            output[length++] = (byte)'Z';
        }

        return length;
    }

    private static void Two(Span<byte> output, int at, int value)
    {
        output[at] = (byte)('0' + (value / 10));
        output[at + 1] = (byte)('0' + (value % 10));
    }
}
