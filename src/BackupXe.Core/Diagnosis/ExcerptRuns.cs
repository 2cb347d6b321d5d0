using System.Globalization;
using BackupXe.Core.Formatting;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Diagnosis;

/// <summary>
/// Groups the timed runs of a published excerpt (<see cref="ElidedCompletion"/> lines) the way their author laid
/// them out: consecutive runs form a group, a blank or other line ends it, and the short line just before a group
/// ("SSD", "USB" in real-world S04a) is its label. Each closed group is compared run by run.
/// </summary>
/// <remarks>Memory is one group, at most <see cref="MaxRunsPerGroup"/> runs; any beyond are counted only.</remarks>
public sealed class ExcerptRuns(double quickOperationSeconds)
{
    /// <summary>Excerpts compare a handful of runs; a longer run of elided lines is compared on its first ones.</summary>
    public const int MaxRunsPerGroup = 1000;

    /// <summary>A label is a caption ("SSD"), not a sentence.</summary>
    private const int MaxLabelLength = 60;

    private readonly List<TimedRun> _runs = [];
    private string? _label;
    private string? _groupLabel;
    private int _skipped;

    /// <summary>Adds one line and its meaning; returns the group it closes, else null.</summary>
    public ExcerptGroup? Add(int line, string text, TraceMessage? message)
    {
        ArgumentNullException.ThrowIfNull(text);
        if (message is ElidedCompletion run)
        {
            if (_runs.Count == 0)
            {
                _groupLabel = _label;
            }

            if (_runs.Count < MaxRunsPerGroup)
            {
                _runs.Add(new TimedRun(line, run.Pages, run.Seconds, run.MegabytesPerSecond));
            }
            else
            {
                _skipped++;
            }

            return null;
        }

        var closed = Close();
        var trimmed = text.Trim();
        _label = trimmed.Length is > 0 and <= MaxLabelLength && message is UnknownMessage ? trimmed : null;
        return closed;
    }

    /// <summary>End of input: the last group, if any.</summary>
    public ExcerptGroup? Finish() => Close();

    private ExcerptGroup? Close()
    {
        if (_runs.Count == 0)
        {
            return null;
        }

        var group = new ExcerptGroup(_groupLabel, [.. _runs], _skipped, quickOperationSeconds);
        _runs.Clear();
        _skipped = 0;
        _groupLabel = null;
        return group;
    }
}

/// <summary>Consecutive timed runs of an excerpt, with the caption above them when there was one.</summary>
/// <param name="Skipped">Runs beyond <see cref="ExcerptRuns.MaxRunsPerGroup"/>, counted only.</param>
public sealed record ExcerptGroup(string? Label, IReadOnlyList<TimedRun> Runs, int Skipped, double QuickOperationSeconds)
{
    /// <summary>"line 2" or "lines 2-3".</summary>
    public string Location => Runs.Count == 1 ? $"line {Runs[0].Line}" : $"lines {Runs[0].Line}-{Runs[^1].Line}";

    /// <summary>Each run against the one before it.</summary>
    public IReadOnlyList<RunComparison> Comparisons =>
        Runs.Zip(Runs.Skip(1), (first, second) => new RunComparison(Label, first, second, QuickOperationSeconds)).ToList();

    /// <summary>Why these lines are not operations, then what they show.</summary>
    public string Sentence()
    {
        var what = $"{(Runs.Count == 1 ? "a completion line" : "completion lines")} whose head the excerpt cut (\"...\"): "
            + "the engine's seconds and MB/sec are read, but the operation's kind and database were cut with the head, "
            + $"so {(Runs.Count == 1 ? "it is a timed run" : "they are timed runs")}, not operations.";
        if (Runs.Count == 1)
        {
            var run = Runs[0];
            var quick = run.Seconds < QuickOperationSeconds
                ? $" Under {Figures.Seconds(QuickOperationSeconds)}: not a throughput problem."
                : "";
            return $"{what} {(Label is null ? "" : Label + ": ")}{Exact(run.Seconds)} s at {Exact(run.MegabytesPerSecond)} MB/s "
                + $"({run.Megabytes.ToString("0.0", CultureInfo.InvariantCulture)} MB).{quick}";
        }

        var skipped = Skipped > 0 ? $" {Skipped} more runs beyond {ExcerptRuns.MaxRunsPerGroup} were not compared." : "";
        return $"{what} {string.Join(" ", Comparisons.Select(c => c.Sentence()))}{skipped}";
    }

    private static string Exact(double value) => value.ToString("0.###", CultureInfo.InvariantCulture);
}
