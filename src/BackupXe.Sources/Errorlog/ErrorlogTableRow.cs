using System.Collections.Immutable;
using System.Globalization;
using System.Text.RegularExpressions;
using BackupXe.Core.Events;

namespace BackupXe.Sources.Errorlog;

/// <summary>
/// One row of dbatools' <c>Get-DbaErrorLog | Format-Table</c>: <c>ComputerName InstanceName SqlInstance LogDate
/// Source Text</c>, the date in the client's culture to the second (<c>6/18/2024 8:37:59 AM</c>), and a text that
/// Format-Table cut at the console's width ends with <c>...</c> (PowerShell 5) or <c>…</c> (PowerShell 7).
/// </summary>
internal static partial class ErrorlogTableRow
{
    /// <summary>What Format-Table appends where it cut a column.</summary>
    private static readonly ImmutableArray<string> CutMarks = ["...", "…"];

    /// <summary>The column headings, a line that is no message.</summary>
    public static bool IsHeading(ReadOnlySpan<char> line)
        => line.TrimStart().StartsWith("ComputerName", StringComparison.OrdinalIgnoreCase)
            && line.Contains("LogDate", StringComparison.OrdinalIgnoreCase);

    /// <summary>A row's date and time, source and text; <paramref name="order"/> carries what earlier rows told of the date's order.</summary>
    /// <param name="problem">Set when the line is a row whose date cannot be read (out of range, or day and month undecidable).</param>
    public static bool TryParse(string line, DateOrder order, out ErrorlogLine parsed, out int textEnd, out string? problem)
    {
        parsed = default;
        textEnd = line.Length;
        problem = null;
        var match = Row().Match(line);
        if (!match.Success)
        {
            return false;
        }

        if (!TryDate(match, order, out var timestamp, out problem))
        {
            return true;
        }

        var text = match.Groups["text"];
        foreach (var mark in CutMarks)
        {
            if (line.AsSpan(text.Index, text.Length).TrimEnd().EndsWith(mark, StringComparison.Ordinal))
            {
                textEnd = line.AsSpan(0, text.Index + text.Length).TrimEnd().Length - mark.Length;
                break;
            }
        }

        parsed = new ErrorlogLine(timestamp, ErrorlogLine.SessionOf(match.Groups["source"].ValueSpan), text.Index);
        return true;
    }

    private static bool TryDate(Match match, DateOrder order, out DateTime timestamp, out string? problem)
    {
        timestamp = default;
        problem = null;
        var date = match.Groups["date"].Value;
        var parts = date.Split('/', '.', '-');
        var numbers = parts.Select(p => int.Parse(p, NumberStyles.None, CultureInfo.InvariantCulture)).ToArray();
        int year, month, day;
        if (parts[0].Length == 4)
        {
            (year, month, day) = (numbers[0], numbers[1], numbers[2]);
        }
        else
        {
            year = numbers[2];

            // German and other cultures write d.M.yyyy; with '/' or '-' a field above 12 tells the day, and once one
            // row told it the file's order is known. A date no row has yet decided is not guessed.
            var dayFirst = date.Contains('.', StringComparison.Ordinal) || numbers[0] > 12
                ? true
                : numbers[1] > 12 ? false : order.DayFirst;
            if (numbers[0] != numbers[1] && (numbers[0] > 12 || numbers[1] > 12))
            {
                order.DayFirst = dayFirst;
            }

            if (dayFirst is null && numbers[0] != numbers[1])
            {
                problem = $"the date {date} reads as day/month or month/day, and no row before it has a day above 12 to tell which; line skipped";
                return false;
            }

            (month, day) = dayFirst == true ? (numbers[1], numbers[0]) : (numbers[0], numbers[1]);
        }

        var time = match.Groups["time"].Value.Split(':').Select(p => int.Parse(p, NumberStyles.None, CultureInfo.InvariantCulture)).ToArray();
        var hour = time[0];
        if (match.Groups["half"].Success)
        {
            var pm = char.ToUpperInvariant(match.Groups["half"].Value[0]) == 'P';
            hour = hour is < 1 or > 12 ? -1 : (hour % 12) + (pm ? 12 : 0);
        }

        if (year < ServerRanges.EarliestYear || year > ServerRanges.LatestYear || month is < 1 or > 12 || day < 1
            || day > DateTime.DaysInMonth(year, month) || hour is < 0 or > 23 || time[1] > 59 || time[2] > 59)
        {
            problem = $"'{date} {match.Groups["time"].Value}{(match.Groups["half"].Success ? " " + match.Groups["half"].Value : "")}' is not a valid date and time; line skipped";
            return false;
        }

        timestamp = new DateTime(year, month, day, hour, time[1], time[2], DateTimeKind.Unspecified);
        return true;
    }

    // Computer, instance and SQL instance names hold no blank (and the last ends in no colon, as "Date and time:" of a
    // job's output does); the source is "spid149", "Backup", "Server", "Logon".
    [GeneratedRegex(
        @"^\s*\S+ +\S+ +\S*[^\s:] +(?<date>\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[/.-]\d{1,2}[/.-]\d{4}) +(?<time>\d{1,2}:\d{2}:\d{2})(?: ?(?<half>[AaPp]\.?[Mm]\.?))? +(?<source>spid\d+[sS]?|[A-Z][A-Za-z]*) +(?<text>\S.*)$",
        RegexOptions.CultureInvariant | RegexOptions.ExplicitCapture)]
    private static partial Regex Row();

    /// <summary>The day/month order one file's rows told so far; null until a day above 12 decided it.</summary>
    public sealed class DateOrder
    {
        public bool? DayFirst { get; set; }
    }
}
