using BackupXe.Core.Events;
using BackupXe.Core.Correlation;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Rendering.Html;

/// <summary>A bar of the timeline: a phase, a data-file read or a file being zeroed, in seconds since the origin.</summary>
internal sealed record TimelineLane(string Label, string Group, string Name, DateTime Start, DateTime End, double From, double To);

/// <summary>The average copy rate between two progress readings.</summary>
internal sealed record RateStep(DateTime Start, DateTime End, double From, double To, long Bytes, double MegabytesPerSecond);

/// <summary>A wait type with what the table shows: average, and share of each thread's time.</summary>
internal sealed record WaitRow(WaitReport Wait, double AverageMs, int Threads, string ThreadRole, double? Share);

/// <summary>One bar of the buffer-memory chart.</summary>
internal sealed record MemoryBar(string Label, string Meaning, long Bytes);

/// <summary>
/// The numbers behind an operation's charts, derived once from its report so that the picture and the table
/// beside it cannot disagree. Times are seconds since the operation's start (or its first known moment).
/// </summary>
internal sealed class OperationCharts
{
    private const int LaneLabelLength = 26;

    private OperationCharts(OperationReport operation, long? memoryBudgetBytes)
    {
        var measures = OperationMeasures.Of(operation);
        Origin = operation.Start
            ?? Earliest(operation.Phases.Select(p => p.Start).Concat(operation.Files.Select(f => f.Start)).Concat(operation.Zeroing.Select(z => z.Start)))
            ?? operation.Progress?.Points.FirstOrDefault()?.At;
        Lanes = BuildLanes(operation);
        Rates = BuildRates(operation.Progress);
        var lastMoment = Lanes.Select(l => l.To).Concat(Rates.Select(r => r.To)).DefaultIfEmpty(0).Max();
        Total = Math.Max(operation.DurationSeconds ?? 0, lastMoment);
        ElapsedSeconds = measures.ElapsedSeconds;
        ElapsedName = measures.ElapsedName;
        Waits = operation.Waits.Select(w => WaitRowOf(w, measures)).ToList();
        Memory = BuildMemory(operation.BufferConfig, measures.BufferMemoryBytes, memoryBudgetBytes);
    }

    public DateTime? Origin { get; }

    /// <summary>The time axis' length: the duration, or the last moment shown when that is later.</summary>
    public double Total { get; }

    public IReadOnlyList<TimelineLane> Lanes { get; }

    public IReadOnlyList<RateStep> Rates { get; }

    public double? ElapsedSeconds { get; }

    public string ElapsedName { get; }

    public IReadOnlyList<WaitRow> Waits { get; }

    public IReadOnlyList<MemoryBar> Memory { get; }

    public static OperationCharts Of(OperationReport operation, long? memoryBudgetBytes) => new(operation, memoryBudgetBytes);

    /// <summary>Seconds from the origin; the unit every chart's x axis uses.</summary>
    public double Offset(DateTime at) => Origin is { } origin ? Math.Round((at - origin).TotalSeconds, 3) : 0;

    /// <summary>What the charts draw, as the report's JSON block: one entry per chart, null when it has nothing to draw.</summary>
    public OperationChartData Data(IReadOnlyList<PhaseReport> phases) => new(
        Lanes.Count == 0 ? null : new TimelineChartData(
            Lanes.Select(l => l.Label),
            Lanes.Select(l => l.Group),
            Lanes.Select(l => l.From),
            Lanes.Select(l => l.To),
            Total),
        Rates.Count == 0 ? null : new RateChartData(
            Rates.Select(r => r.From).Append(Rates[^1].To),
            // The last rate again at the last moment: a step needs both ends to be drawn.
            Rates.Select(r => r.MegabytesPerSecond).Append(Rates[^1].MegabytesPerSecond),
            phases.Where(p => p.Start is not null && p.End is not null)
                .Select(p => new PhaseSpanData(p.Name, Offset(p.Start!.Value), Offset(p.End!.Value))),
            Total),
        Waits.Count == 0 ? null : new WaitsChartData(
            Waits.Select(w => w.Wait.WaitType),
            Waits.Select(w => w.Wait.TotalMs / 1000.0)),
        Memory.Count == 0 ? null : new MemoryChartData(
            Memory.Select(m => m.Label),
            Memory.Select(m => m.Bytes / OperationReportBuilder.BytesPerMegabyte)));

    /// <summary>Share of each thread's time (docs/backup-internals.md#buffer-count-against-waits): BACKUPIO per device thread, BACKUPBUFFER per thread on either side of the buffers, any other type for the one thread that waited.</summary>
    private static WaitRow WaitRowOf(WaitReport wait, OperationMeasures measures)
    {
        var (threads, role) = wait.WaitType.ToUpperInvariant() switch
        {
            BackupWaitTypes.BackupIo => (measures.DeviceThreads, Plural(measures.DeviceThreads, measures.DeviceThreadRole(false), measures.DeviceThreadRole(true))),
            BackupWaitTypes.BackupBuffer => (measures.BufferThreads, Plural(measures.BufferThreads, "buffer thread", "buffer threads")),
            _ => (1, "1 thread"),
        };
        var share = measures.ElapsedSeconds is > 0 ? measures.ShareOfEachThread(wait, threads) : (double?)null;
        return new WaitRow(wait, wait.Count > 0 ? (double)wait.TotalMs / wait.Count : 0, threads, role, share);
    }

    private List<TimelineLane> BuildLanes(OperationReport operation)
    {
        var lanes = new List<TimelineLane>();
        if (Origin is null)
        {
            return lanes;
        }

        foreach (var phase in operation.Phases)
        {
            Add(lanes, Shorten(phase.Name), "phase", phase.Name, phase.Start, phase.End);
        }

        foreach (var file in operation.Files)
        {
            Add(lanes, "read " + FileName(file.Path), "read", file.Path, file.Start, file.End);
        }

        foreach (var zero in operation.Zeroing)
        {
            Add(lanes, "zero " + FileName(zero.Path), "zero", zero.Path, zero.Start, zero.End);
        }

        return lanes;
    }

    private void Add(List<TimelineLane> lanes, string label, string group, string name, DateTime? start, DateTime? end)
    {
        if (start is { } s && end is { } e && e >= s)
        {
            lanes.Add(new TimelineLane(label, group, name, s, e, Offset(s), Offset(e)));
        }
    }

    private List<RateStep> BuildRates(ProgressReport? progress)
    {
        var steps = new List<RateStep>();
        if (progress is null || Origin is null)
        {
            return steps;
        }

        for (var i = 1; i < progress.Points.Count; i++)
        {
            var (before, after) = (progress.Points[i - 1], progress.Points[i]);
            var seconds = (after.At - before.At).TotalSeconds;
            var bytes = after.Bytes - before.Bytes;
            if (seconds > 0 && bytes >= 0)
            {
                steps.Add(new RateStep(before.At, after.At, Offset(before.At), Offset(after.At), bytes, bytes / OperationReportBuilder.BytesPerMegabyte / seconds));
            }
        }

        return steps;
    }

    private static List<MemoryBar> BuildMemory(BufferConfigReport? config, long? inUse, long? budget)
    {
        var bars = new List<MemoryBar>();

        // The bar is labelled BUFFERCOUNT x MAXTRANSFERSIZE, so it shows that product; the server's own total
        // (what the diagnosis counts, docs/diagnosis.md) is the next bar when it differs.
        if (config is { BufferCount: { } count, MaxTransferSizeBytes: { } size })
        {
            inUse = ServerRanges.SaturatingMultiply(count, size);
        }

        if (inUse is { } used)
        {
            bars.Add(new MemoryBar("in use", "BUFFERCOUNT x MAXTRANSFERSIZE", used));
        }

        if (config?.TotalBufferBytes is { } total && total != inUse)
        {
            bars.Add(new MemoryBar("server total", "total buffer space the server reported (every set of buffers)", total));
        }

        if (config?.MemoryLimitBytes is { } limit)
        {
            bars.Add(new MemoryBar("memory limit", "memory limit the server reported", limit));
        }

        if (budget is { } mine)
        {
            bars.Add(new MemoryBar("budget", "--memory-budget-mb: the most a recommendation may propose", mine));
        }

        return bars;
    }

    private static DateTime? Earliest(IEnumerable<DateTime?> moments) => moments.Where(m => m is not null).Min();

    private static string FileName(string path) => Shorten(path[(path.LastIndexOfAny(['\\', '/']) + 1)..]);

    /// <summary>Axis labels have a fixed width; the table beside the chart has the whole text.</summary>
    private static string Shorten(string label) => label.Length <= LaneLabelLength ? label : label[..(LaneLabelLength - 1)] + "…";

    private static string Plural(int count, string one, string many) => $"{count} {(count == 1 ? one : many)}";
}
