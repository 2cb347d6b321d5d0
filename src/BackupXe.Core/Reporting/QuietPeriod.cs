using BackupXe.Core.Formatting;

namespace BackupXe.Core.Reporting;

/// <summary>
/// A time during which an operation showed no sign of progress: no bytes moved (percent lines, throughput events)
/// and its phase did not change. <paramref name="Phase"/> is the phase it sat in (kebab-case, null between phases);
/// <paramref name="Kind"/> says whether that phase is expected to move no bytes (docs/live.md).
/// </summary>
public sealed record QuietPeriod(DateTime From, DateTime To, string? Phase, QuietKind Kind, bool Ongoing)
{
    public double Seconds => (To - From).TotalSeconds;
}

/// <summary>Whether a quiet period is a stall or the waiting its phase is expected to do.</summary>
public enum QuietKind
{
    /// <summary>No bytes moved in a phase that moves them, in an input that reports bytes: the operation stalled.</summary>
    Stall,

    /// <summary>No bytes moved in a phase that moves none (zeroing, redo, recovery, upgrade steps): waiting, as expected.</summary>
    ExpectedWait,
}

/// <summary>How a quiet period is worded in every format: what it was, and what to look at.</summary>
public static class QuietPeriodText
{
    /// <summary>"Stalled" or "Waiting": the fact's label.</summary>
    public static string Label(QuietPeriod quiet) => quiet.Kind == QuietKind.Stall ? "Stalled" : "Waiting";

    /// <summary>"no bytes moved for 7 min 00 s in copy-data (01:30:05.120 to 01:37:05.120): a stall; ...".</summary>
    public static string Describe(QuietPeriod quiet)
    {
        var phase = quiet.Phase ?? "no named phase";
        var span = quiet.Ongoing ? $"since {Figures.Time(quiet.From)}" : $"{Figures.Time(quiet.From)} to {Figures.Time(quiet.To)}";
        var what = quiet.Kind == QuietKind.Stall
            ? "a stall: this phase moves bytes and had been moving them"
            : $"expected waiting: {Expected(quiet.Phase)}";
        return $"no bytes moved for {Figures.Duration(quiet.Seconds)} in {phase} ({span}): {what}";
    }

    /// <summary>What to look at for a stall: the current wait (when read) or how to read it, and the trace's top wait.</summary>
    public static string LookAt(int? sessionId, string? currentWait, string? topWait)
    {
        var session = sessionId is { } id ? string.Create(System.Globalization.CultureInfo.InvariantCulture, $" WHERE session_id = {id}") : string.Empty;
        var wait = currentWait ?? $"read it: SELECT wait_type, wait_time, last_wait_type, percent_complete FROM sys.dm_exec_requests{session}";
        return topWait is null ? $"current wait: {wait}" : $"current wait: {wait}; top wait in the trace so far: {topWait}";
    }

    /// <summary>Why a phase moves no bytes, for the phases <see cref="Correlation.PhaseTimeline.MovesNoBytes"/> names.</summary>
    public static string Expected(string? phase) => phase switch
    {
        "wait-log-zero" => "the log file is being zeroed before use (log files take no instant file initialization before SQL Server 2022, and from 2022 only growths up to 64 MB do); its time grows with the log's size",
        "prepare-containers" => "the database files are being created, and without instant file initialization the data files are zeroed too",
        "redo" => "the log in the backup is being redone; its time grows with the log backed up",
        "recovery" => "recovery before the database comes online (undo of open transactions)",
        "in-memory-load" => "memory-optimized data is being loaded",
        "upgrade" => "upgrade steps of a database from an older version",
        "checkpoint" => "a checkpoint is writing dirty pages before the copy",
        _ => "this phase moves no backup bytes",
    };
}
