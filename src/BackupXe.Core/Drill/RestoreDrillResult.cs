using BackupXe.Core.Restores;

namespace BackupXe.Core.Drill;

/// <summary>How a drill ended.</summary>
public enum DrillStatus
{
    /// <summary>Every restore, the recovery (and CHECKDB when asked) completed.</summary>
    Completed,

    /// <summary>A check before the first restore or a statement of the drill failed; <see cref="RestoreDrillResult.Failure"/> says which and why.</summary>
    Failed,

    /// <summary>Stopped by the DBA (Ctrl-C) before it ended.</summary>
    Cancelled,
}

/// <summary>One measured phase: its statement (one per backup restored), its time on the drill's clock, and how it ended.</summary>
/// <param name="Error">The server's message and number when it failed; null otherwise.</param>
public sealed record DrillPhase(string Phase, string Statement, double Seconds, DrillStatus Outcome, string? Error = null)
{
    /// <summary>For a RESTORE run under the capture session: its phases inside the server, its rates and its diagnosis; null otherwise.</summary>
    public CapturedRestore? Capture { get; init; }

    /// <summary>Why a RESTORE run under the capture session has no <see cref="Capture"/> (the session did not deliver it); null otherwise.</summary>
    public string? CaptureProblem { get; init; }
}

/// <summary>
/// A drill as it ran: the phases measured in order (the planning reads first, the drop last), how it ended, and what it
/// left on the server. <see cref="LeftBehind"/> is null when nothing is left; otherwise it names the scratch database
/// (kept by --keep, or a drop that failed, with the server's reason).
/// </summary>
public sealed record RestoreDrillResult(
    RestoreDrillPlan Plan, DateTime StartedUtc, IReadOnlyList<DrillPhase> Phases, DrillStatus Status, string? Failure, string? LeftBehind)
{
    /// <summary>The phases that restore the chain and recover it: the measured time to get the database back (the RTO on that server), without planning, CHECKDB and the drop.</summary>
    public double RestoreSeconds => Phases.Where(p => IsRestore(p.Phase)).Sum(p => p.Seconds);

    /// <summary>Every phase, planning to drop.</summary>
    public double TotalSeconds => Phases.Sum(p => p.Seconds);

    /// <summary>Seconds per phase name, in the order first run (several log restores are one "restore log").</summary>
    public IReadOnlyList<(string Phase, double Seconds, int Statements)> ByPhase() => Phases
        .GroupBy(p => p.Phase)
        .Select(g => (g.Key, g.Sum(p => p.Seconds), g.Count()))
        .ToList();

    public static bool IsRestore(string phase) => phase is DrillPhases.RestoreFull or DrillPhases.RestoreDifferential or DrillPhases.RestoreLog or DrillPhases.Recovery;
}

/// <summary>A drill as the history keeps it (docs/history.md, "Restore drills: migration 4"): enough for the estimate to cite it.</summary>
/// <param name="DrilledAt">When the drill started, UTC.</param>
/// <param name="RestoreSeconds">The measured restore and recovery (<see cref="RestoreDrillResult.RestoreSeconds"/>); what "measured on" cites.</param>
public sealed record StoredDrill(
    string Instance, string Database, string Scratch, DateTime DrilledAt, DrillStatus Status, double RestoreSeconds, double TotalSeconds,
    IReadOnlyList<DrillPhase> Phases, string? Failure, string? LeftBehind)
{
    /// <summary>What the drill measured inside its restores, for the next restore estimate of the database; null when it measured nothing.</summary>
    public MeasuredRestoreRates? Rates { get; init; }

    /// <summary>The drill as the history keeps it, under <paramref name="instance"/> (the source's name); one home for the CLI and the daemon.</summary>
    public static StoredDrill Of(RestoreDrillResult result, string instance)
    {
        ArgumentNullException.ThrowIfNull(result);
        return new StoredDrill(instance, result.Plan.Database, result.Plan.Scratch, result.StartedUtc, result.Status, result.RestoreSeconds, result.TotalSeconds,
            result.Phases, result.Failure, result.LeftBehind)
        {
            Rates = DrillCalibration.Of(result),
        };
    }
}

/// <summary>The rates a completed drill measured (docs/commands/restore-drill.md, "The estimate, calibrated"), for <see cref="RestoreEstimator.Calibrate"/>.</summary>
public static class DrillCalibration
{
    private const double Megabyte = 1024 * 1024;

    /// <summary>
    /// The copy rate of the full and differential restores' transfer-data, each log restore's bytes over its time, each
    /// file's zeroing, and the recovery (the redo inside the restores plus the recovery step); null when the drill did not
    /// complete or measured none of them.
    /// </summary>
    public static MeasuredRestoreRates? Of(RestoreDrillResult result)
    {
        ArgumentNullException.ThrowIfNull(result);
        if (result.Status != DrillStatus.Completed)
        {
            return null;
        }

        var copies = new List<double>();
        var logs = new List<double>();
        var zeroing = new List<double>();
        double redo = 0;
        foreach (var phase in result.Phases.Where(p => p.Capture is not null))
        {
            var capture = phase.Capture!;
            zeroing.AddRange(capture.Phases.Where(p => p.Name == CapturedRestore.Zeroing && p.MegabytesPerSecond is > 0).Select(p => p.MegabytesPerSecond!.Value * Megabyte));
            if (phase.Phase is DrillPhases.RestoreFull or DrillPhases.RestoreDifferential)
            {
                copies.AddRange(capture.Phases.Where(p => p.Name == CapturedRestore.TransferData && p.MegabytesPerSecond is > 0).Select(p => p.MegabytesPerSecond!.Value * Megabyte));
                redo += capture.SecondsOf(CapturedRestore.Redo) ?? 0;
            }
            else if (phase.Phase == DrillPhases.RestoreLog && capture.Bytes is > 0 && capture.Seconds is > 0)
            {
                logs.Add(capture.Bytes.Value / capture.Seconds.Value);
            }
        }

        var recovery = result.Phases.Where(p => p.Phase == DrillPhases.Recovery && p.Outcome == DrillStatus.Completed).Select(p => (double?)p.Seconds).FirstOrDefault();
        var source = $"a restore drill into [{result.Plan.Scratch}] on {result.Plan.TargetServer}";
        var rates = new MeasuredRestoreRates(
            result.StartedUtc,
            source,
            Interval(copies, "the transfer-data of the full and differential restores"),
            Interval(logs, "the log restores, bytes over time"),
            Interval(zeroing, "each file's zeroing, pages over time"),
            recovery is { } seconds
                ? new SecondsInterval(redo + seconds, redo + seconds, redo > 0 ? "the redo inside the restores and the RESTORE WITH RECOVERY step" : "the RESTORE WITH RECOVERY step")
                : null);
        return rates.Any ? rates : null;
    }

    private static RateInterval? Interval(List<double> rates, string basis) =>
        rates.Count == 0 ? null : new RateInterval(rates.Min(), rates.Max(), Measured: true, basis);
}
