using System.Collections.Frozen;
using BackupXe.Core.Correlation;
using BackupXe.Core.Events;
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
    /// Phases that move no backup bytes while they run (zeroing, recovery, upgrade steps): no percent line can show
    /// their progress, only the time spent in them.
    /// </summary>
    public static bool IsPhaseWithoutProgress(string? phase) => phase is not null && PhasesWithoutProgress.Contains(phase);

    private static readonly FrozenSet<string> PhasesWithoutProgress = new[]
    {
        OperationPhase.Checkpoint, OperationPhase.PrepareContainers, OperationPhase.WaitLogZero, OperationPhase.Redo,
        OperationPhase.Recovery, OperationPhase.InMemoryLoad, OperationPhase.Upgrade,
    }.Select(phase => Kebab.Of(phase)).ToFrozenSet(StringComparer.Ordinal);

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
                : null);
    }
}
