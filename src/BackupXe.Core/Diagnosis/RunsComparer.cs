using System.Collections.Immutable;
using System.Globalization;
using BackupXe.Core.Correlation;
using BackupXe.Core.Events;
using BackupXe.Core.Formatting;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Diagnosis;

/// <summary>
/// The completed runs of each series (same database, kind and scope) across every input of a run, set side by side at
/// the end (docs/diagnosis.md, "Runs compared"). A pair whose runs differ in one setting alone (buffers, stripes,
/// compression or target) measures that setting; runs with the same settings measure how much the runs vary anyway,
/// which is what a setting's ratio must clear to be believed. Memory: a few numbers per run, at most
/// <see cref="MaxRunsPerSeries"/> runs of <see cref="MaxSeries"/> series.
/// </summary>
internal sealed class RunsComparer(double quickOperationSeconds)
{
    /// <summary>A night's job output holds a few runs of a database; more are counted, not kept.</summary>
    public const int MaxRunsPerSeries = 50;

    public const int MaxSeries = 1000;

    /// <summary>Runs whose sizes are further apart than this (a tenth) are not the same work: they are not compared.</summary>
    public const double SizeTolerance = 0.10;

    /// <summary>From this ratio one run is called faster (the same cut as <see cref="OperationRuns.SlowerRatio"/>).</summary>
    public const double FasterRatio = OperationRuns.SlowerRatio;

    private static readonly ImmutableArray<string> Factors = ["buffers", "stripes", "compression", "target"];

    private readonly Dictionary<(OperationKind, OperationScope?, string), Series> _series = [];

    /// <summary>Keeps <paramref name="report"/> when it is a completed run with a time; <paramref name="input"/> is its input's index.</summary>
    public void Add(OperationReport report, int input)
    {
        ArgumentNullException.ThrowIfNull(report);
        if (report.Status != OperationStatus.Completed || report.Kind == OperationKind.Unknown || report.Snapshot is not null || report.Database is null)
        {
            return;
        }

        double seconds;
        string from;
        if (report.DurationSeconds is { } engine and > 0)
        {
            (seconds, from) = (engine, "engine");
        }
        else if (report.ClientCommand is { Seconds: > 0 } span)
        {
            (seconds, from) = (span.Seconds, "client");
        }
        else
        {
            return;
        }

        var key = (report.Kind, report.Scope, report.Database.ToUpperInvariant());
        if (!_series.TryGetValue(key, out var series))
        {
            if (_series.Count >= MaxSeries)
            {
                return;
            }

            series = new Series(report.Kind, report.Scope, report.Database);
            _series[key] = series;
        }

        if (series.Runs.Count >= MaxRunsPerSeries)
        {
            series.Skipped++;
            return;
        }

        series.Runs.Add(new Run(input, RunOf(report, seconds, from)));
    }

    /// <summary>Each series with two runs or more and something to say, its runs named by their inputs.</summary>
    public IReadOnlyList<RunsComparedReport> Conclude(Func<int, string> inputName)
    {
        ArgumentNullException.ThrowIfNull(inputName);
        var reports = new List<RunsComparedReport>();
        foreach (var series in _series.Values.Where(s => s.Runs.Count >= 2))
        {
            var runs = series.Runs.Select(r => r.Report with { Input = inputName(r.Input) }).ToList();
            var conclusions = Conclusions(series, runs);
            if (conclusions.Count > 0)
            {
                reports.Add(new RunsComparedReport
                {
                    Series = $"{Describe(series.Kind, series.Scope)} of [{series.Database}]",
                    Kind = series.Kind,
                    Scope = series.Scope,
                    Database = series.Database,
                    Runs = runs,
                    Conclusions = conclusions,
                    Skipped = series.Skipped,
                });
            }
        }

        return reports;
    }

    private List<RunsConclusionReport> Conclusions(Series series, List<ComparedRunReport> runs)
    {
        // One pass over the pairs keeps what the conclusions read: up to 1,225 pairs a series, most of which differ in
        // nothing, and a list of them all was most of the time a long input spent after its last event
        // (docs/performance.md, "ERRORLOG decisions"). The first of equal ratios is kept, as MaxBy keeps it.
        var byRatio = Comparer<double>.Default;
        Pair? widest = null;
        var sameCount = 0;
        Pair? several = null;
        Dictionary<string, List<Pair>>? alone = null;
        for (var j = 1; j < runs.Count; j++)
        {
            for (var i = 0; i < j; i++)
            {
                if (Pair.Of(i, j, runs[i], runs[j]) is not { } pair)
                {
                    continue;
                }

                if (pair.Differences.Count == 0)
                {
                    if (pair.SettingsKnown)
                    {
                        sameCount++;
                        if (widest is null || byRatio.Compare(pair.Ratio, widest.Ratio) > 0)
                        {
                            widest = pair;
                        }
                    }

                    continue;
                }

                if (several is null || byRatio.Compare(pair.Ratio, several.Ratio) > 0)
                {
                    several = pair;
                }

                if (pair.OnlyFactor is { } only)
                {
                    alone ??= new(StringComparer.Ordinal);
                    if (!alone.TryGetValue(only, out var ofFactor))
                    {
                        alone[only] = ofFactor = [];
                    }

                    ofFactor.Add(pair);
                }
            }
        }

        // How far runs with the same settings drift apart anyway: a setting's ratio must clear it to be believed.
        var spread = widest?.Ratio;
        var conclusions = new List<RunsConclusionReport>();
        foreach (var factor in Factors)
        {
            if (alone is null || !alone.TryGetValue(factor, out var pairs))
            {
                continue;
            }

            // The closest runs in the input: the least else can have changed between them.
            var chosen = pairs.OrderBy(p => p.Second - p.First).ThenByDescending(p => p.Second).First();
            var others = pairs.Where(p => !ReferenceEquals(p, chosen)).ToList();
            conclusions.Add(Alone(series, runs, chosen, others, spread));
        }

        if (spread is { } drift && widest is not null)
        {
            if (drift >= FasterRatio || conclusions.Count == 0)
            {
                conclusions.Add(Same(runs, widest, sameCount));
            }
        }

        if (conclusions.Count == 0 && several is not null)
        {
            conclusions.Add(Several(runs, several));
        }

        return conclusions.OrderByDescending(c => c.Confidence).ThenByDescending(c => c.Ratio).ToList();
    }

    private RunsConclusionReport Alone(Series series, List<ComparedRunReport> runs, Pair pair, List<Pair> others, double? spread)
    {
        var factor = pair.Differences[0].Factor;
        var (fast, slow) = (pair.Fast, pair.Slow);
        var what = string.Join("; ", pair.Differences.Select(d => d.Text));
        var head = string.Create(CultureInfo.InvariantCulture,
            $"Only the {Noun(factor)} differed between run {pair.First + 1} and run {pair.Second + 1} ({what}): "
            + $"run {fast + 1} took {Exact(runs[fast].Seconds)} s, run {slow + 1} {Exact(runs[slow].Seconds)} s");
        var ratio = string.Create(CultureInfo.InvariantCulture, $"{pair.Ratio:0.00}x");
        var range = others.Count == 0
            ? ""
            : string.Create(CultureInfo.InvariantCulture,
                $" Against the other {others.Count} run pair{(others.Count == 1 ? "" : "s")} that differ in the {Noun(factor)} alone: {others.Min(p => p.Ratio):0.00}x-{others.Max(p => p.Ratio):0.00}x.");
        var quick = Math.Max(runs[fast].Seconds, runs[slow].Seconds) < quickOperationSeconds;
        if (quick)
        {
            return Conclusion(pair, factor, $"{head}, {ratio} apart. Both ran under {Figures.Seconds(quickOperationSeconds)}: not a throughput problem, "
                + "whatever the setting.", Confidence.High, null);
        }

        if (pair.Ratio < FasterRatio)
        {
            return Conclusion(pair, factor, $"{head}: {ratio} apart, within {FasterRatio:0.00}x, so the {Noun(factor)} did not limit these runs.{range}",
                pair.SameData ? Confidence.Medium : Confidence.Low, null);
        }

        // Believed when it clears the drift of runs with the same settings; confirmed (high) when that drift was measured.
        var confidence = spread is { } drift && pair.Ratio < drift * FasterRatio
            ? Confidence.Low
            : pair.SameData && spread is not null ? Confidence.High : Confidence.Medium;
        var driftText = " No two runs with the same settings show how much the runs vary anyway.";
        if (spread is { } d)
        {
            var meaning = confidence == Confidence.Low ? "this is within how much the runs vary anyway" : "the setting, not chance, made the difference";
            driftText = string.Create(CultureInfo.InvariantCulture, $" Runs with the same settings were at most {d:0.00}x apart, so {meaning}.");
        }

        var byWhat = pair.SameData ? "by time (the same data)" : pair.SizesKnown ? "by rate (their sizes differ)" : "by time (the input gives no sizes)";
        var (advice, id) = Advice(series.Kind, factor, fast + 1, runs[fast], ratio);
        return Conclusion(pair, factor, $"{head}: run {fast + 1} was {ratio} faster {byWhat}.{driftText}{range} {advice}".TrimEnd(), confidence, id);
    }

    private static RunsConclusionReport Same(List<ComparedRunReport> runs, Pair pair, int pairs)
    {
        var (fast, slow) = (pair.Fast, pair.Slow);
        var sentence = pair.Ratio >= FasterRatio
            ? string.Create(CultureInfo.InvariantCulture,
                $"Runs {pair.First + 1} and {pair.Second + 1} had the same recorded settings and were {pair.Ratio:0.00}x apart ({Exact(runs[fast].Seconds)} s and {Exact(runs[slow].Seconds)} s): "
                + $"what set them apart is not in the input (the server's load, the storage, the data at the time).")
            : string.Create(CultureInfo.InvariantCulture,
                $"Runs with the same recorded settings went alike: at most {pair.Ratio:0.00}x apart over {pairs} pair{(pairs == 1 ? "" : "s")}.");
        return Conclusion(pair, "none-recorded", sentence, pair.Ratio >= FasterRatio ? Confidence.Low : Confidence.Medium, null);
    }

    private static RunsConclusionReport Several(List<ComparedRunReport> runs, Pair pair)
    {
        var (fast, slow) = (pair.Fast, pair.Slow);
        var sentence = string.Create(CultureInfo.InvariantCulture,
            $"Run {fast + 1} was {pair.Ratio:0.00}x faster than run {slow + 1} ({Exact(runs[fast].Seconds)} s against {Exact(runs[slow].Seconds)} s), "
            + $"but several settings differed ({string.Join("; ", pair.Differences.Select(d => d.Text))}): the input cannot tell which of them made the difference.");
        return Conclusion(pair, "several", sentence, Confidence.Low, null);
    }

    private static RunsConclusionReport Conclusion(Pair pair, string factor, string sentence, Confidence confidence, string? id) => new()
    {
        FasterRun = pair.Fast + 1,
        SlowerRun = pair.Slow + 1,
        Ratio = Math.Round(pair.Ratio, 2),
        RatioOf = pair.SameData || !pair.SizesKnown ? "time" : "rate",
        Factor = factor,
        Differed = pair.Differences.Select(d => d.Text).ToList(),
        Sentence = sentence,
        Confidence = confidence,
        RecommendationId = id,
    };

    // What the faster run's setting supports, in the DBA's terms (docs/diagnosis.md, "Runs compared").
    private static (string Text, string? Id) Advice(OperationKind kind, string factor, int number, ComparedRunReport fast, string ratio)
    {
        var noun = kind == OperationKind.Restore ? "restore" : "backup";
        return factor switch
        {
            "buffers" => ($"Buffer advice: run the {noun} with {Buffers(fast)}, as run {number} did: {ratio} faster, measured on this database.", RecommendationIds.RaiseBuffers),
            "stripes" => ($"Stripe advice: {fast.Stripes} stripes as in the faster run; each stripe is a writer of its own, so the {noun} was limited per device.", null),
            "compression" => fast.Compression == true
                ? ($"Compression advice: keep COMPRESSION; writing fewer bytes was worth more than the CPU it costs, so the {noun} was limited by what it wrote to.", null)
                : ($"Compression advice: the run without compression was faster, so the {noun} was limited by the CPU that compresses.", null),
            "target" => ($"Target advice: {fast.Target} was the faster target; the slower one limited the {noun}.", null),
            _ => ("", null),
        };
    }

    private static string Buffers(ComparedRunReport run)
    {
        var parts = new List<string>();
        if (run.BufferCount is { } count)
        {
            parts.Add(string.Create(CultureInfo.InvariantCulture, $"BUFFERCOUNT {count}"));
        }

        if (run.MaxTransferSizeBytes is { } size)
        {
            parts.Add($"MAXTRANSFERSIZE {Figures.Memory(size)}");
        }

        return parts.Count == 0 ? "the server's default buffers" : string.Join(" and ", parts);
    }

    private static string Noun(string factor) => factor switch
    {
        "buffers" => "buffers",
        "stripes" => "number of stripes",
        "compression" => "compression",
        _ => "target",
    };

    private static ComparedRunReport RunOf(OperationReport report, double seconds, string from)
    {
        var settingsFrom = report.BufferConfig is not null || report.Devices.Count > 0 ? "the server's messages" : report.Requested?.Source;
        var devices = report.DevicePaths();
        var targets = devices.Select(Folder).Distinct(StringComparer.OrdinalIgnoreCase).ToList();
        return new ComparedRunReport
        {
            Input = string.Empty,
            Start = report.Start ?? report.ClientCommand?.Start,
            Seconds = seconds,
            SecondsFrom = from,
            Bytes = report.BytesProcessed,
            ThroughputMBps = report.ThroughputMBps ?? (report.BytesProcessed is { } bytes ? bytes / OperationReportBuilder.BytesPerMegabyte / seconds : null),
            SettingsFrom = settingsFrom,
            BufferCount = report.BufferConfig?.BufferCount ?? report.Requested?.BufferCount,
            MaxTransferSizeBytes = report.BufferConfig?.MaxTransferSizeBytes ?? report.Requested?.MaxTransferSizeBytes,
            Compression = report.Options?.Compression ?? report.Requested?.Compression,
            Stripes = devices.Count > 0 ? devices.Count : null,
            Target = targets.Count > 0 ? string.Join(", ", targets) : null,
        };
    }

    /// <summary>The folder of a file path, the container of a URL: the place written to, without the file's dated name.</summary>
    private static string Folder(string path)
    {
        var cut = path.LastIndexOfAny(['\\', '/']);
        return cut > 0 ? path[..cut] : path;
    }

    private static string Describe(OperationKind kind, OperationScope? scope)
        => $"{scope switch { OperationScope.Log => "log", OperationScope.Differential => "differential", OperationScope.File => "file", _ => "full" }} {Kebab.Of(kind)}";

    private static string Exact(double value) => value.ToString("0.###", CultureInfo.InvariantCulture);

    private sealed class Series(OperationKind kind, OperationScope? scope, string database)
    {
        public OperationKind Kind { get; } = kind;
        public OperationScope? Scope { get; } = scope;
        public string Database { get; } = database;
        public List<Run> Runs { get; } = [];
        public int Skipped { get; set; }
    }

    private sealed record Run(int Input, ComparedRunReport Report);

    /// <summary>
    /// A setting two runs differ in. Its sentence is written only when a conclusion quotes it: every pair of a series is
    /// compared, up to 1,225 pairs a series, and few of them are quoted.
    /// </summary>
    private sealed class Difference(string factor, Func<ComparedRunReport, ComparedRunReport, string> describe, ComparedRunReport a, ComparedRunReport b)
    {
        private string? _text;

        public string Factor => factor;

        public string Text => _text ??= describe(a, b);
    }

    /// <summary>Two runs that did the same work (sizes within <see cref="SizeTolerance"/>, or neither known), and what differed.</summary>
    private sealed record Pair(int First, int Second, double Ratio, int Fast, int Slow, bool SameData, bool SizesKnown, bool SettingsKnown, IReadOnlyList<Difference> Differences)
    {
        /// <summary>The one factor every difference is of; null when none differed or several did. Asked of every pair once per factor.</summary>
        public string? OnlyFactor { get; } = Differences.Count > 0 && Differences.All(d => d.Factor == Differences[0].Factor) ? Differences[0].Factor : null;

        public static Pair? Of(int i, int j, ComparedRunReport a, ComparedRunReport b)
        {
            var sizesKnown = a.Bytes is > 0 && b.Bytes is > 0;
            if (a.Bytes is > 0 != b.Bytes is > 0)
            {
                return null;
            }

            var apart = sizesKnown ? Math.Abs(a.Bytes!.Value - b.Bytes!.Value) / (double)Math.Max(a.Bytes.Value, b.Bytes.Value) : 0;
            if (apart > SizeTolerance)
            {
                return null;
            }

            var sameData = sizesKnown && apart <= RunComparison.SameDataTolerance;
            double ratio;
            bool aFaster;
            if (sizesKnown && !sameData)
            {
                ratio = Math.Max(a.ThroughputMBps!.Value, b.ThroughputMBps!.Value) / Math.Min(a.ThroughputMBps.Value, b.ThroughputMBps.Value);
                aFaster = a.ThroughputMBps.Value >= b.ThroughputMBps.Value;
            }
            else
            {
                ratio = Math.Max(a.Seconds, b.Seconds) / Math.Min(a.Seconds, b.Seconds);
                aFaster = a.Seconds <= b.Seconds;
            }

            var known = a.SettingsFrom is not null && b.SettingsFrom is not null;
            return new Pair(i, j, ratio, aFaster ? i : j, aFaster ? j : i, sameData, sizesKnown, known, known ? Differed(a, b) : []);
        }

        // Unstated settings of a known command are the server's defaults, a value like any other; unknown ones compare with nothing.
        private static IReadOnlyList<Difference> Differed(ComparedRunReport a, ComparedRunReport b)
        {
            // Most pairs of a series differ in nothing: they share one empty list.
            List<Difference>? differed = null;
            if (a.BufferCount != b.BufferCount)
            {
                (differed ??= []).Add(new("buffers", static (a, b) => $"BUFFERCOUNT {Count(a.BufferCount)} then {Count(b.BufferCount)}", a, b));
            }

            if (a.MaxTransferSizeBytes != b.MaxTransferSizeBytes)
            {
                (differed ??= []).Add(new("buffers", static (a, b) => $"MAXTRANSFERSIZE {Size(a.MaxTransferSizeBytes)} then {Size(b.MaxTransferSizeBytes)}", a, b));
            }

            if (a.Stripes is { } s && b.Stripes is { } t && s != t)
            {
                (differed ??= []).Add(new("stripes", static (a, b) => string.Create(CultureInfo.InvariantCulture, $"{a.Stripes} then {b.Stripes} stripes"), a, b));
            }

            if (a.Compression != b.Compression)
            {
                (differed ??= []).Add(new("compression", static (a, b) => $"compression {Flag(a.Compression)} then {Flag(b.Compression)}", a, b));
            }

            if (a.Target is { } x && b.Target is { } y && !string.Equals(x, y, StringComparison.OrdinalIgnoreCase))
            {
                (differed ??= []).Add(new("target", static (a, b) => $"target {a.Target} then {b.Target}", a, b));
            }

            return differed ?? (IReadOnlyList<Difference>)[];
        }

        private static string Count(int? value) => value?.ToString(CultureInfo.InvariantCulture) ?? "default";

        private static string Size(long? value) => value is { } v ? Figures.Memory(v) : "default";

        private static string Flag(bool? value) => value switch { true => "on", false => "off", null => "the server's default" };
    }
}
