using System.Globalization;

namespace BackupXe.Core.Reporting;

/// <summary>
/// How many upgrade steps the output shows, said so that a count from an excerpt is never read as the whole upgrade: when
/// the versions of consecutive steps jump, the steps in between were left out of the output (real-world T09b prints 11 of
/// them around a line of dots standing for the steps from version 672 to 700).
/// </summary>
internal static class UpgradeStepsText
{
    /// <summary>
    /// "11 upgrade steps", or "11 upgrade steps shown; the output leaves out those from version 672 to 700, so the upgrade
    /// ran more steps than that".
    /// </summary>
    public static string Of(int steps, IReadOnlyList<VersionGap> gaps)
    {
        var count = string.Create(CultureInfo.InvariantCulture, $"{steps:N0} upgrade {(steps == 1 ? "step" : "steps")}");
        if (gaps.Count == 0)
        {
            return count;
        }

        var left = string.Join(", ", gaps.Select(g => string.Create(CultureInfo.InvariantCulture, $"from version {g.FromVersion} to {g.ToVersion}")));
        return $"{count} shown; the output leaves out those {left}, so the upgrade ran more steps than that";
    }
}
