using System.Globalization;
using BackupXe.Core.Formatting;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Rendering;

/// <summary>The history comparison as the console, Markdown and HTML reports print it: one heading, then lines.</summary>
public static class BaselineLines
{
    /// <summary>"Against its history (full backup of [Sales] to disk on SQL1): slower".</summary>
    public static string Heading(BaselineComparisonReport history)
        => $"Against its history ({history.Series}{(history.Instance is { } instance ? $" on {instance}" : string.Empty)}): {Kebab.Of(history.Verdict)}";

    public static IReadOnlyList<string> Of(BaselineComparisonReport history)
    {
        var lines = new List<string> { history.Summary };
        foreach (var change in history.Changes)
        {
            lines.Add(string.Create(
                CultureInfo.InvariantCulture,
                $"changed: {change.Factor}, usually {change.Usual}, here {change.This} ({change.SlowWithThis} of {change.Slow} judged runs have it, {change.UsualWithThis} of {change.UsualKnown} usual runs; separation {change.Separation:0.00})"));
        }

        lines.AddRange(history.Findings);
        if (history.LastTune is { } tune)
        {
            lines.Add(tune.Against(history.ThroughputMBps));
        }

        if (history.Concurrent.Count > 0)
        {
            var target = history.Targets.Count > 0 ? string.Join(", ", history.Targets) : "its target (not in the input)";
            lines.Add(string.Create(
                CultureInfo.InvariantCulture,
                $"ran alongside {history.Concurrent.Count} operation{(history.Concurrent.Count == 1 ? string.Empty : "s")} on the instance, {history.Concurrent.Count(c => c.SameTarget)} on {target}:"));
            foreach (var other in history.Concurrent.Take(10))
            {
                lines.Add(string.Create(
                    CultureInfo.InvariantCulture,
                    $"  {(other.SameTarget ? "same target" : "elsewhere")}: {Describe(other)} of [{other.Database ?? "?"}] {Figures.Timestamp(other.Start)} to {Figures.Time(other.End)}, {Figures.Duration(other.OverlapSeconds)} together{(other.Targets.Count > 0 ? $", to {string.Join(", ", other.Targets)}" : string.Empty)}"));
            }

            if (history.Concurrent.Count > 10)
            {
                lines.Add(string.Create(CultureInfo.InvariantCulture, $"  and {history.Concurrent.Count - 10} more"));
            }
        }

        return lines;
    }

    private static string Describe(ConcurrentOperationReport other)
        => Baselines.ComparableRun.Describe(other.Kind, other.Scope);
}
