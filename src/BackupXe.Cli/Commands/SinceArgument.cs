using System.Globalization;

namespace BackupXe.Cli.Commands;

/// <summary>"30d", "12h" or "2024-05-01": the start of a time range, range-checked (at most 100 years back).</summary>
internal static class SinceArgument
{
    public static DateTime? Parse(string text, DateTime now)
    {
        text = text.Trim();
        if (text.Length >= 2 && (text[^1] is 'd' or 'h')
            && int.TryParse(text.AsSpan(0, text.Length - 1), NumberStyles.None, CultureInfo.InvariantCulture, out var count)
            && count > 0 && count <= 36_500)
        {
            return text[^1] == 'd' ? now.AddDays(-count) : now.AddHours(-count);
        }

        return DateTime.TryParseExact(text, ["yyyy-MM-dd", "yyyy-MM-dd HH:mm", "yyyy-MM-ddTHH:mm:ss"], CultureInfo.InvariantCulture, DateTimeStyles.None, out var date)
               && date.Year >= 1753 && date <= now
            ? date
            : null;
    }
}
