using System.Globalization;

namespace BackupXe.Core.Formatting;

/// <summary>
/// How every human format prints a number, size, duration or time: invariant culture, the units a DBA reads, and
/// sizes in binary units (SQL Server's MB is 1,048,576 bytes).
/// </summary>
public static class Figures
{
    private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;

    /// <summary>"5,600": grouped as the report's tables group counts.</summary>
    public static string Count(long count) => count.ToString("N0", Invariant);

    /// <summary>A number the engine printed, quoted as it printed it ("292894 pages"), so it can be found in the input.</summary>
    public static string AsPrinted(long value) => value.ToString(Invariant);

    public static string Plural(long count, string one, string many) => Count(count) + " " + (count == 1 ? one : many);

    public static string Percent(double share) => Math.Round(share * 100).ToString("0", Invariant) + "%";

    /// <summary>"2.7x".</summary>
    public static string Ratio(double ratio) => ratio.ToString("0.0", Invariant) + "x";

    /// <summary>A span within an operation, as evidence sentences print it: "12.9 s".</summary>
    public static string Seconds(double seconds) => seconds.ToString("0.0", Invariant) + " s";

    /// <summary>An operation's own duration in evidence: under a second to the millisecond the engine prints (0.045 s, not 0.0 s).</summary>
    public static string PreciseSeconds(double seconds)
        => seconds < 1 ? seconds.ToString("0.0##", Invariant) + " s" : Seconds(seconds);

    /// <summary>An average wait: "2.3 ms".</summary>
    public static string AverageMilliseconds(double ms) => ms.ToString("0.0", Invariant) + " ms";

    /// <summary>A total of waits: milliseconds up to 10 s, seconds beyond.</summary>
    public static string Milliseconds(long ms)
        => ms >= 10_000 ? string.Create(Invariant, $"{ms / 1000.0:0.#} s") : string.Create(Invariant, $"{ms} ms");

    /// <summary>A duration in tables and titles: "12.39 s", "3 min 05 s", "2 h 10 min".</summary>
    public static string Duration(double? seconds)
    {
        if (seconds is not { } s)
        {
            return "?";
        }

        var span = TimeSpan.FromSeconds(s);
        return s switch
        {
            < 60 => string.Create(Invariant, $"{s:0.##} s"),
            < 3600 => string.Create(Invariant, $"{(int)span.TotalMinutes} min {span.Seconds:00} s"),
            _ => string.Create(Invariant, $"{(int)span.TotalHours} h {span.Minutes:00} min"),
        };
    }

    public static string Rate(double? megabytesPerSecond)
        => megabytesPerSecond is { } r ? string.Create(Invariant, $"{r:0.#} MB/s") : "?";

    /// <summary>A size of data: the largest binary unit that keeps the figure at or above 1.</summary>
    public static string Bytes(long? bytes)
    {
        if (bytes is not { } b)
        {
            return "?";
        }

        string[] names = ["bytes", "KB", "MB", "GB", "TB"];
        double value = b;
        var unit = 0;
        while (value >= 1024 && unit < names.Length - 1)
        {
            value /= 1024;
            unit++;
        }

        return unit == 0
            ? string.Create(Invariant, $"{b} bytes")
            : string.Create(Invariant, $"{(value >= 100 || value % 1 == 0 ? value.ToString("0", Invariant) : value.ToString("0.#", Invariant))} {names[unit]}");
    }

    /// <summary>
    /// Buffer space and memory limits in KB or MB, never GB: the unit SQL Server prints them in ("Memory limit: 16383
    /// MB") and BUFFERCOUNT x MAXTRANSFERSIZE is reckoned in, so the engine's figure and ours read alike.
    /// </summary>
    public static string Memory(long? bytes) => bytes switch
    {
        null => "?",
        >= 1024 * 1024 => string.Create(Invariant, $"{bytes.Value / 1048576.0:0.#} MB"),
        >= 1024 => string.Create(Invariant, $"{bytes.Value / 1024.0:0.#} KB"),
        _ => string.Create(Invariant, $"{bytes.Value} bytes"),
    };

    /// <summary>Timestamps keep their own precision up to milliseconds, and a Z only when the source was UTC.</summary>
    public static string Timestamp(DateTime? at)
        => at is { } t
            ? t.ToString(t.Kind == DateTimeKind.Utc ? "yyyy-MM-dd HH:mm:ss.fff'Z'" : "yyyy-MM-dd HH:mm:ss.fff", Invariant)
            : "?";

    public static string Time(DateTime? at) => at is { } t ? t.ToString("HH:mm:ss.fff", Invariant) : "?";
}
