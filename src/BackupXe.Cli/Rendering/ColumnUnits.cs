using System.Globalization;

namespace BackupXe.Cli.Rendering;

/// <summary>
/// One unit for a whole table column, chosen from its largest value, so that rows compare at a glance
/// ("12.9" beside "3.5" seconds, never "12.9 s" beside "3524 ms").
/// </summary>
internal readonly record struct ColumnUnits(string Name, double Divisor)
{
    private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;

    /// <summary>
    /// Milliseconds, grouped ("12,919"), unless the column's largest value passes three hours: a wait's milliseconds
    /// stay readable beside a phase's seconds, and a short wait is never rounded to "0.0 s".
    /// </summary>
    public static ColumnUnits For(double largestMilliseconds) =>
        largestMilliseconds >= 10_800_000 ? new("s", 1000) : new("ms", 1);

    public string Format(double milliseconds, bool fractionalMilliseconds = false) =>
        Divisor == 1
            ? milliseconds.ToString(fractionalMilliseconds ? "N1" : "N0", Invariant)
            : (milliseconds / Divisor).ToString("N1", Invariant);

    /// <summary>Seconds with two decimals for a column under a minute; clock time (h:mm:ss or m:ss) for longer ones.</summary>
    public static string Duration(double seconds, double longestSeconds)
    {
        if (longestSeconds < 60)
        {
            return seconds.ToString("0.00", Invariant);
        }

        var span = TimeSpan.FromSeconds(Math.Round(seconds, 1));
        return longestSeconds < 3600
            ? string.Create(Invariant, $"{(int)span.TotalMinutes}:{span.Seconds:00}.{span.Milliseconds / 100}")
            : string.Create(Invariant, $"{(int)span.TotalHours}:{span.Minutes:00}:{span.Seconds:00}");
    }
}
