using System.Globalization;
using BackupXe.Core.Events;
using BackupXe.Core.Formatting;
using BackupXe.Core.History;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Baselines;

/// <summary><c>backupxe history --format json</c>: the listed operations, then each series' statistics.</summary>
public sealed record SeriesListing(IEnumerable<SeriesListingEntry> Operations, IReadOnlyList<SeriesFigures> Series);

/// <summary>One listed operation and the instance that ran it.</summary>
public sealed record SeriesListingEntry(string Instance, OperationReport Operation);

/// <summary>Backups of one database that are comparable with each other: same instance, kind and scope.</summary>
public sealed record SeriesKey(string Instance, string? Database, OperationKind Kind, OperationScope Scope);

/// <summary>A series' figures, and what it is safe to say about them.</summary>
public sealed record SeriesFigures
{
    public required SeriesKey Key { get; init; }
    public required int Count { get; init; }
    public required int Failed { get; init; }

    /// <summary>Completed runs whose MB/s means something: long enough for their time resolution, big enough not to be overhead.</summary>
    public required int Ranked { get; init; }

    public DateTime? First { get; init; }
    public DateTime? Last { get; init; }
    public double? MedianMBps { get; init; }
    public double? P10MBps { get; init; }
    public double? P90MBps { get; init; }
    public double? MinMBps { get; init; }
    public double? MaxMBps { get; init; }
    public double? MedianSeconds { get; init; }

    /// <summary>Median duration of the later half of the ranked runs over that of the earlier half (1.5 = 50% longer).</summary>
    public double? DurationTrend { get; init; }

    /// <summary>Bytes read by the last run with a size over those of the first.</summary>
    public double? SizeTrend { get; init; }

    /// <summary>Snapshot backups of the series: counted here, never ranked nor part of any MB/s figure.</summary>
    public int Snapshots { get; init; }

    /// <summary>The coarsest time resolution among the runs, in seconds.</summary>
    public required double ResolutionSeconds { get; init; }

    public IReadOnlyList<HistorySource> Sources { get; init; } = [];
    public SeriesSlowdown? Regression { get; init; }
    public IReadOnlyList<SettingsSpeed> SettingsVsSpeed { get; init; } = [];

    /// <summary>One option at a time: the median speed of the runs with each of its values, for a series run over a grid of settings.</summary>
    public IReadOnlyList<OptionSpeed> OptionSpeeds { get; init; } = [];

    /// <summary>Sentences on the precision of the figures: why runs were left out of the ranking.</summary>
    public IReadOnlyList<string> Notes { get; init; } = [];
}

/// <summary>The latest runs at half their series' median speed or worse, since <see cref="Since"/>.</summary>
public sealed record SeriesSlowdown(DateTime Since, int Runs, double MedianMBps, double BaselineMedianMBps, int BaselineRuns, double Factor);

/// <summary>One combination of settings and the speed of the runs that used it.</summary>
public sealed record SettingsSpeed(string Settings, int Runs, double MedianMBps);

/// <summary>The values one option (BUFFERCOUNT, MAXTRANSFERSIZE...) took over a series, fastest first.</summary>
public sealed record OptionSpeed(string Option, IReadOnlyList<SettingsSpeed> Values);

/// <summary>
/// Per-series statistics of an imported history (docs/history.md, "Statistics and their resolution"). Every
/// figure is over the ranked runs only; the notes say what was left out and why.
/// </summary>
public static class SeriesStatistics
{
    /// <summary>A run's elapsed time must be this many times its time resolution: at 1-second timestamps a 10-second backup's MB/s is within about 10%.</summary>
    public const double ResolutionMultiple = 10;

    /// <summary>
    /// Below this a backup's fixed costs (checkpoint, opening the devices, the log tail and the media
    /// headers; commonly a second or more) are a large part of its time, so its MB/s says little about transfer speed.
    /// </summary>
    public const long OverheadBytes = 1L << 30;

    public static IReadOnlyList<SeriesFigures> Compute(IEnumerable<InstanceOperation> records)
        => records
            .GroupBy(r => new SeriesKey(r.Instance, r.Record.Database, r.Record.Kind, r.Record.Scope), KeyComparer.Instance)
            .Select(group => Series(group.Key, group.Select(r => r.Record).OrderBy(r => r.Start).ToList()))
            .OrderBy(s => s.Key.Instance, StringComparer.OrdinalIgnoreCase)
            .ThenBy(s => s.Key.Database, StringComparer.OrdinalIgnoreCase)
            .ThenBy(s => s.Key.Kind)
            .ThenBy(s => s.Key.Scope)
            .ToList();

    /// <summary>Why a completed run with a throughput is not ranked, or null when it is.</summary>
    public static string? Unranked(HistoryOperation record)
    {
        if (record.Snapshot)
        {
            return "snapshot";
        }

        if (record.DurationSeconds is { } seconds && seconds < ResolutionMultiple * record.DurationResolutionSeconds)
        {
            return "too-short";
        }

        return record.BytesRead is { } bytes && bytes < OverheadBytes ? "overhead" : null;
    }

    private static SeriesFigures Series(SeriesKey key, List<HistoryOperation> runs)
    {
        var completed = runs.Where(r => r.Status == OperationStatus.Completed && r.ThroughputMBps is not null).ToList();
        var ranked = completed.Where(r => Unranked(r) is null).ToList();
        var rates = ranked.Select(r => r.ThroughputMBps!.Value).ToList();
        var sized = runs.Where(r => r.BytesRead is > 0).ToList();
        var resolution = runs.Max(r => r.DurationResolutionSeconds);
        return new SeriesFigures
        {
            Key = key,
            Count = runs.Count,
            Failed = runs.Count(r => r.Status == OperationStatus.Failed),
            Ranked = ranked.Count,
            Snapshots = runs.Count(r => r.Snapshot),
            First = runs[0].Start,
            Last = runs[^1].Start,
            MedianMBps = Percentile(rates, 0.5),
            P10MBps = Percentile(rates, 0.1),
            P90MBps = Percentile(rates, 0.9),
            MinMBps = rates.Count > 0 ? rates.Min() : null,
            MaxMBps = rates.Count > 0 ? rates.Max() : null,
            MedianSeconds = Percentile(ranked.Select(r => r.DurationSeconds!.Value).ToList(), 0.5),
            DurationTrend = ranked.Count >= 4
                ? Ratio(Percentile(ranked.Skip(ranked.Count / 2).Select(r => r.DurationSeconds!.Value).ToList(), 0.5),
                        Percentile(ranked.Take(ranked.Count / 2).Select(r => r.DurationSeconds!.Value).ToList(), 0.5))
                : null,
            SizeTrend = sized.Count >= 2 ? (double)sized[^1].BytesRead!.Value / sized[0].BytesRead!.Value : null,
            ResolutionSeconds = resolution,
            Sources = runs.SelectMany(r => r.Sources).Distinct().Order().ToList(),
            Regression = Regression(key.Instance, runs, ranked),
            SettingsVsSpeed = SettingsVsSpeed(ranked),
            OptionSpeeds = OptionSpeeds(ranked),
            Notes = Notes(runs, completed),
        };
    }

    /// <summary>
    /// The series' newest ranked run set against the runs before it by <see cref="BaselineComparer"/>, the one regression
    /// rule (docs/history.md, "This run against its history"), with its default settings: a slowdown only when the
    /// rule calls that run slower, since the first run of its slow streak.
    /// </summary>
    private static SeriesSlowdown? Regression(string instance, List<HistoryOperation> runs, List<HistoryOperation> ranked)
    {
        if (ranked.Count == 0)
        {
            return null;
        }

        var report = BaselineComparer.Compare(ComparableRun.Of(ranked[^1]), instance, runs.Select(ComparableRun.Of).ToList(), new BaselineComparisonSettings());
        if (report.Verdict != BaselineVerdict.Slower || report.Since is not { } since || report.MedianMBps is not { } baseline || report.Factor is not { } factor)
        {
            return null;
        }

        var slow = report.Points.Where(p => p.Role is "slow" or "this").Select(p => p.ThroughputMBps).ToList();
        return new SeriesSlowdown(since, report.SlowRuns, Percentile(slow, 0.5)!.Value, baseline, report.UsualRuns, factor);
    }

    /// <summary>
    /// For a series run with different settings over time: the median speed of each combination, fastest
    /// first. Only when at least two combinations have two ranked runs each: one run per setting is an anecdote.
    /// </summary>
    private static IReadOnlyList<SettingsSpeed> SettingsVsSpeed(List<HistoryOperation> ranked)
    {
        var groups = ranked
            .GroupBy(Settings)
            .Select(g => new SettingsSpeed(g.Key, g.Count(), Percentile(g.Select(r => r.ThroughputMBps!.Value).ToList(), 0.5)!.Value))
            .Where(s => s.Runs >= 2)
            .OrderByDescending(s => s.MedianMBps)
            .ToList();
        return groups.Count >= 2 ? groups : [];
    }

    /// <summary>
    /// Each option on its own: the median speed per value, when at least two values have two ranked runs
    /// each. An option a run's sources did not record is left out for that run; one its command text left
    /// out is the server default ("default").
    /// </summary>
    private static IReadOnlyList<OptionSpeed> OptionSpeeds(List<HistoryOperation> ranked)
    {
        (string Name, Func<HistoryOperation, string?> Value)[] options =
        [
            ("compression", r => r.Options.Compression is { } c ? (c ? r.Options.CompressionAlgorithm ?? "COMPRESSION" : "NO_COMPRESSION") : Default(r)),
            ("BUFFERCOUNT", r => r.Options.BufferCount?.ToString(CultureInfo.InvariantCulture) ?? Default(r)),
            ("MAXTRANSFERSIZE", r => r.Options.MaxTransferSizeBytes is { } m ? Figures.Bytes(m) : Default(r)),
            ("BLOCKSIZE", r => r.Options.BlockSizeBytes is { } b ? Figures.Bytes(b) : Default(r)),
            ("stripes", r => r.Devices.Count(d => !d.IsMirror) is var n and > 0 ? n.ToString(CultureInfo.InvariantCulture) : null),
            ("buffer memory", r => r.Options.BufferCount is { } count && r.Options.MaxTransferSizeBytes is { } size ? BufferMemoryBand((long)count * size) : null),
        ];
        var speeds = new List<OptionSpeed>();
        foreach (var (name, value) in options)
        {
            var values = ranked
                .Select(r => (Value: value(r), Rate: r.ThroughputMBps!.Value))
                .Where(v => v.Value is not null)
                .GroupBy(v => v.Value!)
                .Select(g => new SettingsSpeed(g.Key, g.Count(), Percentile(g.Select(v => v.Rate).ToList(), 0.5)!.Value))
                .Where(v => v.Runs >= 2)
                .OrderByDescending(v => v.MedianMBps)
                .ToList();
            if (values.Count >= 2)
            {
                speeds.Add(new OptionSpeed(name, values));
            }
        }

        return speeds;
    }

    /// <summary>
    /// BUFFERCOUNT x MAXTRANSFERSIZE in power-of-two bands ("128 MB to 256 MB"): a grid rarely repeats one product,
    /// but the speed follows the memory, not the two options apart (real-world S08: SO2013_50GB ran about 0.36 GB/s
    /// with under 8 MB and 0.5 GB/s from 512 MB; the BAC databases level off near 0.5 GB/s from roughly 64-256 MB).
    /// The product is what the options ask for; the server's reported total can be several times more (S03).
    /// </summary>
    public static string? BufferMemoryBand(long bytes)
    {
        if (bytes <= 0)
        {
            return null;
        }

        var band = 1L << (63 - System.Numerics.BitOperations.LeadingZeroCount((ulong)bytes));
        return $"{Figures.Bytes(band)} to {Figures.Bytes(band * 2)}";
    }

    /// <summary>"default" when the run's options come from its command text (which left this one out), else unknown.</summary>
    private static string? Default(HistoryOperation run)
        => run.Sources.Any(s => s is HistorySource.CommandLog or HistorySource.OlaOutput) ? "default" : null;

    /// <summary>"COMPRESSION, BUFFERCOUNT 50, MAXTRANSFERSIZE 4 MB, 4 stripes": what is known; an option a source did not record is left out.</summary>
    public static string Settings(HistoryOperation record)
    {
        var o = record.Options;
        var parts = new List<string>();
        if (o.Compression is { } compression)
        {
            parts.Add(compression ? (o.CompressionAlgorithm is { } algorithm ? $"COMPRESSION ({algorithm})" : "COMPRESSION") : "NO_COMPRESSION");
        }

        if (o.BufferCount is { } buffers)
        {
            parts.Add(string.Create(CultureInfo.InvariantCulture, $"BUFFERCOUNT {buffers}"));
        }

        if (o.MaxTransferSizeBytes is { } transfer)
        {
            parts.Add($"MAXTRANSFERSIZE {Figures.Bytes(transfer)}");
        }

        if (o.BlockSizeBytes is { } block)
        {
            parts.Add($"BLOCKSIZE {Figures.Bytes(block)}");
        }

        if (o.Encryption is true)
        {
            parts.Add("ENCRYPTION");
        }

        var stripes = record.Devices.Count(d => !d.IsMirror);
        if (stripes > 0)
        {
            var kinds = record.Devices.Where(d => !d.IsMirror).Select(d => d.Kind).Distinct().ToList();
            var target = kinds.Count == 1 && kinds[0] == DeviceKind.Url ? " to URL" : string.Empty;
            parts.Add(stripes == 1 ? $"1 stripe{target}" : string.Create(CultureInfo.InvariantCulture, $"{stripes} stripes{target}"));
        }

        return parts.Count > 0 ? string.Join(", ", parts) : "settings not recorded";
    }

    private static IReadOnlyList<string> Notes(List<HistoryOperation> runs, List<HistoryOperation> completed)
    {
        var notes = new List<string>();
        var resolutions = runs.GroupBy(r => r.DurationResolutionSeconds).OrderByDescending(g => g.Key).ToList();
        foreach (var group in resolutions)
        {
            var how = group.All(r => r.Sources is [HistorySource.Capture])
                ? "captured event times"
                : group.Key <= 0.001 && group.All(r => r.EngineSeconds is not null)
                    ? "the engine's own elapsed time"
                    : "their start and end timestamps";
            notes.Add(string.Create(
                CultureInfo.InvariantCulture,
                $"{group.Count()} of {runs.Count} runs: durations to {Resolution(group.Key)}, from {how} ({string.Join(", ", group.SelectMany(r => r.Sources).Distinct().Order().Select(Kebab.Of))})"));
        }

        var snapshots = runs.Count(r => r.Snapshot);
        if (snapshots > 0)
        {
            notes.Add(string.Create(
                CultureInfo.InvariantCulture,
                $"{snapshots} snapshot backups, counted apart: the storage copied their data while the database's writes were frozen, so their size over their time is no transfer speed and they are not ranked"));
        }

        var tooShort = completed.Count(r => Unranked(r) == "too-short");
        if (tooShort > 0)
        {
            notes.Add(string.Create(
                CultureInfo.InvariantCulture,
                $"{tooShort} runs took under {ResolutionMultiple:0} times their timestamps' resolution: their MB/s could be off by more than 10%, so they are not ranked"));
        }

        var overhead = completed.Count(r => Unranked(r) == "overhead");
        if (overhead > 0)
        {
            notes.Add(string.Create(
                CultureInfo.InvariantCulture,
                $"{overhead} runs read under {Figures.Bytes(OverheadBytes)}: fixed costs dominate their time, so their MB/s is not a transfer speed and they are not ranked"));
        }

        var unsized = runs.Count(r => r.Status == OperationStatus.Completed && r.BytesRead is null);
        if (unsized > 0)
        {
            notes.Add(string.Create(
                CultureInfo.InvariantCulture,
                $"{unsized} completed runs have no size (no msdb row and no engine message): duration only"));
        }

        return notes;
    }

    private static string Resolution(double seconds)
        => seconds >= 1 ? string.Create(CultureInfo.InvariantCulture, $"{seconds:0.###} s") : string.Create(CultureInfo.InvariantCulture, $"{seconds * 1000:0.###} ms");

    /// <summary>Linear interpolation between closest ranks; null for an empty list.</summary>
    public static double? Percentile(IReadOnlyList<double> values, double fraction)
    {
        if (values.Count == 0)
        {
            return null;
        }

        var sorted = values.Order().ToList();
        var position = fraction * (sorted.Count - 1);
        var lower = (int)Math.Floor(position);
        var upper = (int)Math.Ceiling(position);
        return sorted[lower] + ((sorted[upper] - sorted[lower]) * (position - lower));
    }

    private static double? Ratio(double? a, double? b) => a is { } x && b is { } y && y > 0 ? x / y : null;

    /// <summary>Database names compare case-insensitively, as they do on a server with the default collation.</summary>
    private sealed class KeyComparer : IEqualityComparer<SeriesKey>
    {
        public static readonly KeyComparer Instance = new();

        public bool Equals(SeriesKey? x, SeriesKey? y)
            => x is not null && y is not null
               && string.Equals(x.Instance, y.Instance, StringComparison.OrdinalIgnoreCase)
               && string.Equals(x.Database, y.Database, StringComparison.OrdinalIgnoreCase)
               && x.Kind == y.Kind && x.Scope == y.Scope;

        public int GetHashCode(SeriesKey key)
            => HashCode.Combine(key.Instance.ToUpperInvariant(), key.Database?.ToUpperInvariant(), key.Kind, key.Scope);
    }
}
