using BackupXe.Core.Events;
using BackupXe.Core.Formatting;
using BackupXe.Core.History;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Baselines;

/// <summary>
/// One run as the history comparison sees it: the history record plus the rate to judge it by (a captured
/// report's own MB/s, which can be finer than bytes over elapsed time).
/// </summary>
public sealed record ComparableRun(HistoryOperation Record, double? ThroughputMBps)
{
    public static ComparableRun Of(HistoryOperation record) => new(record, record.ThroughputMBps);

    /// <summary>A report as the daemon stores it, or as <c>analyze</c> just built it; null without a start time.</summary>
    public static ComparableRun? Of(OperationReport report)
        => HistoryOperation.FromReport(report) is { } record ? new(record, report.ThroughputMBps ?? record.ThroughputMBps) : null;

    /// <summary>A running operation as a run of its series: no end, rate or size yet, only what places it in a series.</summary>
    public static ComparableRun Running(OperationKind kind, OperationScope? scope, string? database, DateTime start, IReadOnlyList<string> devices)
        => Of(new HistoryOperation
        {
            Kind = kind,
            Scope = scope ?? OperationScope.Database,
            Database = database,
            Start = start,
            TimeResolutionSeconds = 0.001,
            Status = OperationStatus.Incomplete,
            Devices = devices.Select(d => new BackupDevice(DeviceKinds.FromPath(d), d)).ToList(),
        });

    public DateTime Start => Record.Start;

    /// <summary>The end, else start + duration; null when neither is known.</summary>
    public DateTime? End => Record.End ?? (Record.DurationSeconds is { } seconds ? Record.Start.AddSeconds(seconds) : null);

    /// <summary>"disk", "url", "nul", "tape"...; null when no source named a device.</summary>
    public string? TargetType => TargetRoot.TypeOf(Record.Devices);

    /// <summary>The distinct roots the run wrote to (or read from, for a restore).</summary>
    public IReadOnlyList<string> Targets
        => Record.Devices.Where(d => !d.IsMirror).Select(d => TargetRoot.Of(d.Path)).OfType<string>().Distinct(StringComparer.Ordinal).ToList();

    /// <summary>
    /// A completed run whose MB/s is a transfer speed, by the statistics' own rule (<see cref="SeriesStatistics.Unranked"/>:
    /// long enough for its time resolution, at least 1 GB).
    /// </summary>
    public bool Ranked => Record.Status == OperationStatus.Completed && ThroughputMBps is > 0 && SeriesStatistics.Unranked(Record) is null;

    /// <summary>Same database (without case), kind and scope; the target type too when both runs name one.</summary>
    public bool SameSeries(ComparableRun other)
        => string.Equals(Record.Database, other.Record.Database, StringComparison.OrdinalIgnoreCase)
           && Record.Kind == other.Record.Kind
           && Record.Scope == other.Record.Scope
           && (TargetType is null || other.TargetType is null || TargetType == other.TargetType);

    /// <summary>
    /// Whether the two runs were running at the same moment. Times of one kind compare as they are; a UTC capture
    /// meets a local-time record only through the record's known UTC offset (msdb's time_zone), else not at all.
    /// </summary>
    public double OverlapSeconds(ComparableRun other)
    {
        if (End is not { } end || other.End is not { } otherEnd)
        {
            return 0;
        }

        var (start, stop) = (Start, end);
        var (otherStart, otherStop) = (other.Start, otherEnd);
        if ((Start.Kind == DateTimeKind.Utc) != (other.Start.Kind == DateTimeKind.Utc))
        {
            var local = Start.Kind == DateTimeKind.Utc ? other : this;
            if (local.Record.UtcOffset is not { } offset)
            {
                return 0;
            }

            if (ReferenceEquals(local, this))
            {
                (start, stop) = (start - offset, stop - offset);
            }
            else
            {
                (otherStart, otherStop) = (otherStart - offset, otherStop - offset);
            }
        }

        var from = start > otherStart ? start : otherStart;
        var to = stop < otherStop ? stop : otherStop;
        return Math.Max(0, (to - from).TotalSeconds);
    }

    /// <summary>"full backup", "log restore".</summary>
    public string Describe() => Describe(Record.Kind, Record.Scope);

    public static string Describe(OperationKind kind, OperationScope scope)
        => $"{scope switch { OperationScope.Log => "log", OperationScope.Differential => "differential", OperationScope.File => "file", _ => "full" }} {Kebab.Of(kind)}";
}
