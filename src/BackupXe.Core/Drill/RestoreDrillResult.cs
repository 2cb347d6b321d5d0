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
public sealed record DrillPhase(string Phase, string Statement, double Seconds, DrillStatus Outcome, string? Error = null);

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
    IReadOnlyList<DrillPhase> Phases, string? Failure, string? LeftBehind);
