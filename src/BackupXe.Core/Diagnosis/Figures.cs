using System.Globalization;

namespace BackupXe.Core.Diagnosis;

/// <summary>Numbers as evidence sentences print them: invariant culture, units a DBA reads.</summary>
internal static class Figures
{
    private const long KiloByte = 1024;
    private const long MegaByte = 1024 * 1024;

    public static string Seconds(double seconds) => seconds.ToString("0.0", CultureInfo.InvariantCulture) + " s";

    public static string Milliseconds(double ms) => ms.ToString("0.0", CultureInfo.InvariantCulture) + " ms";

    public static string Percent(double share) =>
        Math.Round(share * 100).ToString("0", CultureInfo.InvariantCulture) + "%";

    /// <summary>"2.7x".</summary>
    public static string Ratio(double ratio) => ratio.ToString("0.0", CultureInfo.InvariantCulture) + "x";

    public static string Count(long count) => count.ToString(CultureInfo.InvariantCulture);

    public static string Rate(double mbPerSecond) => mbPerSecond.ToString("0.#", CultureInfo.InvariantCulture) + " MB/s";

    public static string Size(long bytes) => bytes switch
    {
        >= MegaByte => (bytes / (double)MegaByte).ToString("0.#", CultureInfo.InvariantCulture) + " MB",
        >= KiloByte => (bytes / (double)KiloByte).ToString("0.#", CultureInfo.InvariantCulture) + " KB",
        _ => bytes.ToString(CultureInfo.InvariantCulture) + " bytes",
    };

    public static string Plural(long count, string one, string many) => Count(count) + " " + (count == 1 ? one : many);
}
