using System.Globalization;
using BackupXe.Core.Formatting;
using BackupXe.Core.History;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Baselines;

/// <summary>The rule's settings (docs/history.md, "This run against its history"); the daemon's Regression options map onto them.</summary>
public sealed record BaselineComparisonSettings
{
    /// <summary>Ten usual runs: two weeks of nightly backups, enough for a median that shrugs off one outlier.</summary>
    public const int DefaultWindow = 10;

    public const int DefaultMinimumRuns = 5;

    /// <summary>0.7: run-to-run throughput of one backup commonly varies by 10-20% under ordinary load.</summary>
    public const double DefaultThresholdRatio = 0.7;

    /// <summary>
    /// 3 scaled MADs: the "very conservative" cut of Leys et al. (2013) for outliers around the median, so that a
    /// series that is noisy by nature needs a larger drop than the ratio alone before it is called slower.
    /// </summary>
    public const double DefaultRobustDeviations = 3;

    public int Window { get; init; } = DefaultWindow;
    public int MinimumRuns { get; init; } = DefaultMinimumRuns;
    public double ThresholdRatio { get; init; } = DefaultThresholdRatio;
    public double RobustDeviations { get; init; } = DefaultRobustDeviations;
}

/// <summary>
/// Sets one operation against the earlier runs of its series: a robust baseline (median, MAD, p10-p90) of the usual
/// runs, the verdict, since when a slowdown lasts, what changed, and what ran at the same time. The one regression
/// rule: the daemon's warning, <c>analyze --history</c> and <c>watch --history</c> all come from here.
/// </summary>
public static class BaselineComparer
{
    /// <summary>MAD x 1.4826 estimates the standard deviation of normally distributed data (Rousseeuw and Croux, 1993).</summary>
    public const double MadScale = 1.4826;

    /// <summary>A full backup's log part is called much larger than usual from twice the usual median and 1 GB more.</summary>
    public const double LogPartRatio = 2;

    public const long LogPartMinimumExtraBytes = 1L << 30;

    /// <param name="current">The run to judge.</param>
    /// <param name="instance">The instance whose history <paramref name="history"/> is.</param>
    /// <param name="history">Runs of that instance, any database; the current run may be among them (it is recognised and left out).</param>
    public static BaselineComparisonReport Compare(
        ComparableRun current, string instance, IReadOnlyList<ComparableRun> history, BaselineComparisonSettings settings)
    {
        var others = history.Where(r => !HistoryMerge.SameOperation(r.Record, current.Record)).ToList();
        var seriesName = SeriesName(current);
        var concurrent = Concurrent(current, others);
        var blank = new BaselineComparisonReport
        {
            Instance = instance,
            Series = seriesName,
            TargetType = current.TargetType,
            Verdict = BaselineVerdict.CannotTell,
            Summary = string.Empty,
            ThroughputMBps = current.ThroughputMBps,
            Concurrent = concurrent,
            Targets = current.Targets,
        };

        if (WhyNotJudged(current) is { } unjudged)
        {
            return CannotTell(blank, unjudged);
        }

        var (ranked, streakStart, usual, tooFew) = Baseline(current, others, settings);
        if (tooFew is not null)
        {
            return CannotTell(blank, tooFew);
        }

        var rates = usual.Select(r => r.ThroughputMBps!.Value).ToList();
        var median = SeriesStatistics.Percentile(rates, 0.5)!.Value;
        var mad = SeriesStatistics.Percentile(rates.Select(r => Math.Abs(r - median)).ToList(), 0.5)!.Value;
        var rate = current.ThroughputMBps!.Value;
        var spread = settings.RobustDeviations * MadScale * mad;
        var verdict = rate <= settings.ThresholdRatio * median && rate < median - spread
            ? BaselineVerdict.Slower
            : rate >= median / settings.ThresholdRatio && rate > median + spread
                ? BaselineVerdict.Faster
                : BaselineVerdict.Usual;

        var streak = verdict == BaselineVerdict.Slower ? ranked.Skip(streakStart).ToList() : [];
        var judged = streak.Append(current).ToList();
        var counts = others.Count > 0 ? usual.Concat(judged).ToDictionary<ComparableRun, ComparableRun, int>(r => r, r => ConcurrentCount(r, others), ReferenceEqualityComparer.Instance) : null;
        var changes = verdict is BaselineVerdict.Slower or BaselineVerdict.Faster ? Changes(current, usual, judged, counts) : [];
        var logPart = LogPart(current, usual);
        var report = blank with
        {
            Verdict = verdict,
            Factor = verdict switch { BaselineVerdict.Slower => median / rate, BaselineVerdict.Faster => rate / median, _ => null },
            UsualRuns = usual.Count,
            MedianMBps = median,
            MadMBps = Math.Round(mad, 3),
            P10MBps = SeriesStatistics.Percentile(rates, 0.1),
            P90MBps = SeriesStatistics.Percentile(rates, 0.9),
            Since = verdict == BaselineVerdict.Slower ? judged[0].Start : null,
            SlowRuns = verdict == BaselineVerdict.Slower ? judged.Count : 0,
            Changes = changes,
            LogPart = logPart,
            Points = [.. usual.Select(r => Point(r, "usual")), .. ranked.Skip(streakStart).Select(r => Point(r, verdict == BaselineVerdict.Slower ? "slow" : "other")), Point(current, "this")],
        };
        return report with
        {
            Summary = Summary(report),
            Findings = verdict == BaselineVerdict.Slower ? Findings(report, usual, counts, others) : [],
        };
    }

    /// <summary>
    /// The usual runs <paramref name="current"/> is set against: the ranked runs of its series that started before it
    /// (the last <see cref="BaselineComparisonSettings.Window"/> x 3), where the newest slow streak begins, and the usual
    /// runs before that streak; <c>TooFew</c> says why not when there are fewer than the minimum.
    /// </summary>
    internal static (List<ComparableRun> Ranked, int StreakStart, List<ComparableRun> Usual, string? TooFew) Baseline(
        ComparableRun current, IEnumerable<ComparableRun> others, BaselineComparisonSettings settings)
    {
        var series = others.Where(r => r.SameSeries(current) && r.Start < current.Start).OrderBy(r => r.Start).ToList();
        var ranked = series.Where(r => r.Ranked).TakeLast(settings.Window * 3).ToList();
        if (ranked.Count < settings.MinimumRuns)
        {
            return (ranked, ranked.Count, [], string.Create(
                CultureInfo.InvariantCulture,
                $"too few runs: {ranked.Count} earlier ranked runs of this series in the history ({series.Count} in all), {settings.MinimumRuns} needed"));
        }

        var streakStart = SlowStreakStart(ranked, settings);
        var usual = ranked.Skip(Math.Max(0, streakStart - settings.Window)).Take(Math.Min(streakStart, settings.Window)).ToList();
        return usual.Count < settings.MinimumRuns
            ? (ranked, streakStart, usual, string.Create(
                CultureInfo.InvariantCulture,
                $"too few usual runs: the last {ranked.Count - streakStart} runs were all slow and only {usual.Count} came before them, {settings.MinimumRuns} needed"))
            : (ranked, streakStart, usual, null);
    }

    /// <summary>"full backup of [Sales] to disk".</summary>
    public static string SeriesName(ComparableRun run)
    {
        var target = run.TargetType is { } type ? $" {(run.Record.Kind == Events.OperationKind.Restore ? "from" : "to")} {type}" : string.Empty;
        return $"{run.Describe()} of [{run.Record.Database ?? "?"}]{target}";
    }

    private static string? WhyNotJudged(ComparableRun current)
    {
        if (current.Record.Status != OperationStatus.Completed)
        {
            return $"it did not complete ({Kebab.Of(current.Record.Status)})";
        }

        if (current.Record.Snapshot)
        {
            return "it is a snapshot backup: the storage copied the data, so its MB/s is no transfer speed";
        }

        if (current.ThroughputMBps is not > 0)
        {
            return "it has no throughput (the input holds no size or no duration)";
        }

        return SeriesStatistics.Unranked(current.Record) switch
        {
            "too-short" => "it took under 10 times its timestamps' resolution, so its MB/s is not precise enough",
            "overhead" => $"it read under {Figures.Bytes(SeriesStatistics.OverheadBytes)}: fixed costs dominate its time, so its MB/s is not a transfer speed",
            _ => null,
        };
    }

    private static BaselineComparisonReport CannotTell(BaselineComparisonReport blank, string reason)
        => blank with { Reason = reason, Summary = $"cannot tell against its history: {reason}" };

    /// <summary>
    /// Where the newest run of slow ones begins: runs at the threshold of the median before them or below, counted
    /// back from the newest. Two passes, so that a long slowdown does not drag its own baseline down.
    /// </summary>
    private static int SlowStreakStart(List<ComparableRun> ranked, BaselineComparisonSettings settings)
    {
        var streakStart = ranked.Count;
        var baseline = Median(ranked.TakeLast(settings.Window));
        for (var pass = 0; pass < 2 && baseline is { } median; pass++)
        {
            streakStart = ranked.Count;
            while (streakStart > 0 && ranked[streakStart - 1].ThroughputMBps!.Value <= settings.ThresholdRatio * median)
            {
                streakStart--;
            }

            baseline = Median(ranked.Take(streakStart).TakeLast(settings.Window));
        }

        return streakStart;
    }

    private static double? Median(IEnumerable<ComparableRun> runs) => SeriesStatistics.Percentile(runs.Select(r => r.ThroughputMBps!.Value).ToList(), 0.5);

    private static SeriesPointReport Point(ComparableRun run, string role) => new(run.Start, Math.Round(run.ThroughputMBps!.Value, 3), role);

    private static IReadOnlyList<ConcurrentOperationReport> Concurrent(ComparableRun current, List<ComparableRun> others)
    {
        var targets = current.Targets.ToHashSet(StringComparer.Ordinal);
        return others
            .Select(r => (Run: r, Overlap: current.OverlapSeconds(r)))
            .Where(o => o.Overlap > 0)
            .Select(o => new ConcurrentOperationReport(
                o.Run.Record.Database, o.Run.Record.Kind, o.Run.Record.Scope, o.Run.Start, o.Run.End, o.Overlap,
                o.Run.Targets, o.Run.Targets.Any(targets.Contains)))
            .OrderByDescending(c => c.SameTarget)
            .ThenBy(c => c.Start)
            .ToList();
    }

    private static int ConcurrentCount(ComparableRun run, List<ComparableRun> others)
        => others.Count(o => !ReferenceEquals(o, run) && !HistoryMerge.SameOperation(o.Record, run.Record) && run.OverlapSeconds(o) > 0);

    /// <summary>
    /// Each factor whose value in this run differs from the usual runs' most common one, scored by how well it
    /// separates the runs judged (this one and its slow streak) from the usual ones; best first.
    /// </summary>
    private static IReadOnlyList<BaselineChangeReport> Changes(
        ComparableRun current, List<ComparableRun> usual, List<ComparableRun> judged, Dictionary<ComparableRun, int>? concurrent)
    {
        var usualBytes = SeriesStatistics.Percentile(usual.Where(r => r.Record.BytesRead is > 0).Select(r => (double)r.Record.BytesRead!.Value).ToList(), 0.5);
        var usualLog = SeriesStatistics.Percentile(usual.Where(r => r.Record.LogBytes is > 0).Select(r => (double)r.Record.LogBytes!.Value).ToList(), 0.5);
        (string Name, Func<ComparableRun, string?> Value)[] factors =
        [
            ("compression", r => r.Record.Options.Compression is { } c ? (c ? r.Record.Options.CompressionAlgorithm is { } a ? $"COMPRESSION ({a})" : "COMPRESSION" : "NO_COMPRESSION") : null),
            ("BUFFERCOUNT", r => r.Record.Options.BufferCount?.ToString(CultureInfo.InvariantCulture)),
            ("MAXTRANSFERSIZE", r => r.Record.Options.MaxTransferSizeBytes is { } m ? Figures.Bytes(m) : null),
            ("buffer memory", r => r.Record.Options.BufferCount is { } n && r.Record.Options.MaxTransferSizeBytes is { } m ? SeriesStatistics.BufferMemoryBand(n * m) : null),
            ("BLOCKSIZE", r => r.Record.Options.BlockSizeBytes is { } b ? Figures.Bytes(b) : null),
            ("encryption", r => r.Record.Options.Encryption is { } e ? (e ? "on" : "off") : null),
            ("encryption algorithm", r => r.Record.Options.EncryptionAlgorithm),
            ("server version", r => r.Record.ServerBuild),
            ("stripes", r => r.Record.Devices.Count(d => !d.IsMirror) is var n and > 0 ? n.ToString(CultureInfo.InvariantCulture) : null),
            ("target", r => r.Targets.Count > 0 ? string.Join(", ", r.Targets) : null),
            ("size", r => r.Record.BytesRead is { } b && usualBytes is > 0 and var u ? Band(b / u) : null),
            ("log part", r => r.Record.LogBytes is { } b && usualLog is > 0 and var u ? Band(b / u) : null),
            ("concurrent operations", r => concurrent?.GetValueOrDefault(r) is { } n ? n switch { 0 => "none", 1 => "1", < 4 => "2-3", _ => "4 or more" } : null),
        ];

        var changes = new List<BaselineChangeReport>();
        foreach (var (name, value) in factors)
        {
            if (value(current) is not { } mine)
            {
                continue;
            }

            var usualValues = usual.Select(value).OfType<string>().ToList();
            var judgedValues = judged.Select(value).OfType<string>().ToList();
            var mode = usualValues.GroupBy(v => v).OrderByDescending(g => g.Count()).Select(g => g.Key).FirstOrDefault();
            if (mode is null || mode == mine)
            {
                continue;
            }

            var usualWithMine = usualValues.Count(v => v == mine);
            var judgedWithMine = judgedValues.Count(v => v == mine);
            var separation = (double)judgedWithMine / judgedValues.Count * (1 - ((double)usualWithMine / usualValues.Count));
            changes.Add(new BaselineChangeReport(
                name,
                Shown(name, mode, usualBytes, usualLog, null),
                Shown(name, mine, usualBytes, usualLog, current),
                judgedWithMine, judgedValues.Count, usualWithMine, usualValues.Count, Math.Round(separation, 2)));
        }

        return changes.OrderByDescending(c => c.Separation).ThenBy(c => c.Factor, StringComparer.Ordinal).ToList();
    }

    /// <summary>Size and log part are compared in bands of the usual median; shown with the bytes themselves.</summary>
    private static string Band(double ratio) => ratio >= 1.5 ? "larger" : ratio <= 1 / 1.5 ? "smaller" : "about the same";

    private static string Shown(string factor, string value, double? usualBytes, double? usualLog, ComparableRun? run)
    {
        var (bytes, usualMedian) = factor switch
        {
            "size" => (run?.Record.BytesRead, usualBytes),
            "log part" => (run?.Record.LogBytes, usualLog),
            _ => ((long?)null, (double?)null),
        };
        if (usualMedian is not { } median)
        {
            return value;
        }

        return bytes is { } b
            ? string.Create(CultureInfo.InvariantCulture, $"{Figures.Bytes(b)} ({b / median:0.0}x the usual)")
            : $"{Figures.Bytes((long)median)} (median)";
    }

    private static LogPartReport? LogPart(ComparableRun current, List<ComparableRun> usual)
    {
        var usualLog = SeriesStatistics.Percentile(usual.Where(r => r.Record.LogBytes is > 0).Select(r => (double)r.Record.LogBytes!.Value).ToList(), 0.5);
        return current.Record.LogBytes is { } bytes && usualLog is > 0 and var median
            ? new LogPartReport(bytes, (long)median, Math.Round(bytes / median, 2))
            : null;
    }

    private static IReadOnlyList<string> Findings(
        BaselineComparisonReport report, List<ComparableRun> usual, Dictionary<ComparableRun, int>? counts, List<ComparableRun> others)
    {
        var findings = new List<string>();
        var onTarget = report.Concurrent.Where(c => c.SameTarget).ToList();
        if (onTarget.Count > 0)
        {
            var usualOnTarget = usual
                .Select(u => others.Count(o => !HistoryMerge.SameOperation(o.Record, u.Record) && u.OverlapSeconds(o) > 0 && o.Targets.Intersect(u.Targets).Any()))
                .Select(n => (double)n)
                .ToList();
            var listed = string.Join("; ", onTarget.Take(5).Select(c => string.Create(
                CultureInfo.InvariantCulture,
                $"{ComparableRun.Describe(c.Kind, c.Scope)} of [{c.Database ?? "?"}] {Figures.Time(c.Start)}-{Figures.Time(c.End)} ({Figures.Duration(c.OverlapSeconds)} together)")));
            findings.Add(string.Create(
                CultureInfo.InvariantCulture,
                $"while it ran, {onTarget.Count} other operation{(onTarget.Count == 1 ? string.Empty : "s")} wrote to {string.Join(", ", report.Targets)}: {listed}; its usual runs shared their target with a median of {SeriesStatistics.Percentile(usualOnTarget, 0.5) ?? 0:0.#}"));
        }
        else if (counts is not null && report.Concurrent.Count > 0)
        {
            var usualCounts = usual.Select(u => (double)counts[u]).ToList();
            findings.Add(string.Create(
                CultureInfo.InvariantCulture,
                $"{report.Concurrent.Count} other operation{(report.Concurrent.Count == 1 ? string.Empty : "s")} ran on the instance at the same time, none on its target (usual runs: a median of {SeriesStatistics.Percentile(usualCounts, 0.5) ?? 0:0.#})"));
        }

        if (report.LogPart is { } log && log.Ratio >= LogPartRatio && log.Bytes - log.UsualBytes >= LogPartMinimumExtraBytes)
        {
            findings.Add(string.Create(
                CultureInfo.InvariantCulture,
                $"its log part was {Figures.Bytes(log.Bytes)}, {log.Ratio:0.0}x the usual {Figures.Bytes(log.UsualBytes)}: log written while the full backup ran is copied into it"));
        }

        return findings;
    }

    private static string Summary(BaselineComparisonReport r)
    {
        var baseline = string.Create(
            CultureInfo.InvariantCulture,
            $"{Figures.Rate(r.ThroughputMBps)} against a median {Figures.Rate(r.MedianMBps)} (usually {r.P10MBps:0.#}-{r.P90MBps:0.#} MB/s over {r.UsualRuns} runs)");
        return r.Verdict switch
        {
            BaselineVerdict.Slower => string.Create(
                CultureInfo.InvariantCulture,
                $"{r.Factor:0.0}x slower than usual: {baseline}; slow since {Figures.Timestamp(r.Since)} ({r.SlowRuns} run{(r.SlowRuns == 1 ? string.Empty : "s")}){Changed(r)}"),
            BaselineVerdict.Faster => string.Create(CultureInfo.InvariantCulture, $"{r.Factor:0.0}x faster than usual: {baseline}{Changed(r)}"),
            _ => $"as usual: {baseline}",
        };
    }

    private static string Changed(BaselineComparisonReport r)
        => r.Changes.Count == 0
            ? "; what changed: nothing the history recorded"
            : "; what changed: " + string.Join(", ", r.Changes.Take(3).Select(c => $"{c.Factor} (usually {c.Usual}, here {c.This})"));
}
