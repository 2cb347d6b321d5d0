using System.Collections.Frozen;
using BackupXe.Core.Correlation;
using BackupXe.Core.Events;
using BackupXe.Core.Formatting;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Pipeline;

/// <summary>What a live view shows of a running operation.</summary>
public sealed record OperationProgress(
    OperationKind Kind,
    OperationScope? Scope,
    string? Database,
    int? SessionId,
    DateTime Since,
    TimeSpan Elapsed,
    int? Percent,
    long? BytesProcessed,
    long? EstimatedBytes,
    double? MegabytesPerSecond,
    TimeSpan? Remaining,
    string? Phase,
    string? TopWait,
    bool StartObserved = true,
    TimeSpan? InPhase = null)
{
    /// <summary>
    /// The ETA's interval: the remaining bytes at the faster and the slower of the rate over the whole data phase and
    /// the rate over its latest readings. Null when fewer than three readings give no second rate.
    /// </summary>
    public (TimeSpan Low, TimeSpan High)? RemainingRange { get; init; }

    /// <summary>The device paths the operation named so far, for its series' target type.</summary>
    public IReadOnlyList<string> Devices { get; init; } = [];

    /// <summary>
    /// What the ETA rests on when not the operation's own progress alone: the usual pace of its series in a history
    /// (<c>watch --history</c>), in words; null when the ETA is its own progress or there is none.
    /// </summary>
    public string? EtaBasis { get; init; }

    /// <summary>The quiet period the operation is in now, once long enough to name (docs/live.md).</summary>
    public QuietPeriod? Quiet { get; init; }

    /// <summary>The quiet periods that have ended, oldest first (bounded, <see cref="ByteFlow.MaxPeriods"/>).</summary>
    public IReadOnlyList<QuietPeriod> EndedQuiet { get; init; } = [];

    /// <summary>How many of the latest readings give the recent rate: about a tenth of them, at least two intervals.</summary>
    private static int RecentSpan(int points) => Math.Max(2, points / 10);

    /// <summary>The phases <see cref="PhaseTimeline.MovesNoBytes"/> names, by their kebab-case name.</summary>
    public static bool IsPhaseWithoutProgress(string? phase) => phase is not null && PhasesWithoutProgress.Contains(phase);

    private static readonly FrozenSet<string> PhasesWithoutProgress = Enum.GetValues<OperationPhase>()
        .Where(PhaseTimeline.MovesNoBytes).Select(phase => Kebab.Of(phase)).ToFrozenSet(StringComparer.Ordinal);

    public static OperationProgress Of(BackupOperation operation, DateTime now)
    {
        var since = operation.Start ?? operation.FirstSeen;
        var elapsed = now > since ? now - since : TimeSpan.Zero;

        // The rate is measured inside the data phase, where percent lines are written; the ETA extrapolates it.
        var begin = operation.Phases.BeginOf(operation.DataPhase) ?? since;
        double? rate = null;
        TimeSpan? remaining = null;
        if (operation.PercentBytes is { } moved && operation.LastPercentAt is { } at && at > begin)
        {
            var bytesPerSecond = moved / (at - begin).TotalSeconds;
            rate = Math.Round(bytesPerSecond / OperationReportBuilder.BytesPerMegabyte, 1);
            // A crawl extrapolated over a huge estimate can exceed what a TimeSpan holds: no ETA then.
            if (operation.EstimatedBytes is { } total && bytesPerSecond > 0 && total >= moved
                && (total - moved) / bytesPerSecond < ServerRanges.MaxSeconds)
            {
                remaining = TimeSpan.FromSeconds((total - moved) / bytesPerSecond);
            }
        }

        var top = operation.Waits.Top();
        var range = remaining is { } left ? Range(operation, left) : null;
        return new OperationProgress(
            operation.Kind,
            operation.Scope,
            operation.Database,
            operation.SessionId,
            since,
            elapsed,
            operation.LastPercent,
            operation.PercentBytes,
            operation.EstimatedBytes,
            rate,
            remaining,
            operation.Phases.Current is { } phase ? Kebab.Of(phase) : null,
            top is { } t ? $"{t.WaitType} {t.TotalMs / 1000.0:0.0} s" : null,
            // False when the input began mid-operation: Since is then the first event seen, not the start.
            operation.Start is not null,
            operation.Phases.Current is { } current && operation.Phases.BeginOf(current) is { } phaseBegin && now > phaseBegin
                ? now - phaseBegin
                : null)
        {
            RemainingRange = range,
            Devices = operation.Devices,
            Quiet = operation.HasClock ? operation.Flow.Ongoing(now) : null,
            EndedQuiet = operation.Flow.Periods,
        };
    }

    private static (TimeSpan Low, TimeSpan High)? Range(BackupOperation operation, TimeSpan remaining)
    {
        var points = operation.PercentProgress.Points;
        if (points.Count < 3 || operation.PercentBytes is not { } moved || operation.EstimatedBytes is not { } total)
        {
            return null;
        }

        var from = points[^(RecentSpan(points.Count) + 1)];
        var to = points[^1];
        var seconds = (to.At - from.At).TotalSeconds;
        if (seconds <= 0 || to.Bytes <= from.Bytes)
        {
            return null;
        }

        var recent = (total - moved) / ((to.Bytes - from.Bytes) / seconds);
        if (!(recent < ServerRanges.MaxSeconds))
        {
            return null;
        }

        var other = TimeSpan.FromSeconds(recent);
        return remaining <= other ? (remaining, other) : (other, remaining);
    }
}
