using System.Globalization;

namespace BackupXe.Core.Diagnosis;

/// <summary>Numbers as evidence sentences print them: invariant culture, units a DBA reads.</summary>
internal static class Figures
{
    public static string Seconds(double seconds) => seconds.ToString("0.0", CultureInfo.InvariantCulture) + " s";

    /// <summary>An operation's own duration: under a second to the millisecond the engine prints (0.045 s, not 0.0 s).</summary>
    public static string Duration(double seconds)
        => seconds < 1 ? seconds.ToString("0.0##", CultureInfo.InvariantCulture) + " s" : Seconds(seconds);

    public static string Milliseconds(double ms) => ms.ToString("0.0", CultureInfo.InvariantCulture) + " ms";

    public static string Percent(double share) =>
        Math.Round(share * 100).ToString("0", CultureInfo.InvariantCulture) + "%";

    /// <summary>"2.7x".</summary>
    public static string Ratio(double ratio) => ratio.ToString("0.0", CultureInfo.InvariantCulture) + "x";

    /// <summary>"5,600": grouped as the report's tables group counts.</summary>
    public static string Count(long count) => count.ToString("N0", CultureInfo.InvariantCulture);

    /// <summary>A number the engine printed, quoted as it printed it ("292894 pages"), so it can be found in the input.</summary>
    public static string AsPrinted(long value) => value.ToString(CultureInfo.InvariantCulture);

    public static string Rate(double mbPerSecond) => mbPerSecond.ToString("0.#", CultureInfo.InvariantCulture) + " MB/s";

    /// <summary>Buffer sizes and memory, in the unit the engine prints them in (MB at most), as the report's facts print them.</summary>
    public static string Size(long bytes) => Reporting.Units.Memory(bytes);

    public static string Plural(long count, string one, string many) => Count(count) + " " + (count == 1 ? one : many);
}
