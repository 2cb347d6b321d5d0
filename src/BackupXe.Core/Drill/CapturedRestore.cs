using BackupXe.Core.Reporting;

namespace BackupXe.Core.Drill;

/// <summary>
/// One phase inside a RESTORE of the drill as the capture session timed it: a file's zeroing (<see cref="Detail"/> its
/// path), or a step the server names (planning, prepare-containers, transfer-data, wait-log-zero, redo, recovery...).
/// </summary>
/// <param name="Bytes">What the phase wrote or moved, when the capture says: a zeroed file's pages x 8 KB, the bytes transferred.</param>
/// <param name="MegabytesPerSecond">Bytes over seconds (MB = 2^20 bytes), or the server's own copy rate for transfer-data; null without both.</param>
public sealed record CapturedPhase(string Name, string? Detail, double? Seconds, long? Bytes, double? MegabytesPerSecond);

/// <summary>
/// A RESTORE of the drill as any other operation is read (the capture session through the one analysis pipeline): its
/// phases with times and rates, its whole time and throughput, and the diagnosis of what limited it.
/// </summary>
public sealed record CapturedRestore(IReadOnlyList<CapturedPhase> Phases, double? Seconds, long? Bytes, double? ThroughputMBps, Verdict? Verdict)
{
    /// <summary>The name of a file's zeroing among <see cref="Phases"/>; its path is the phase's detail.</summary>
    public const string Zeroing = "zeroing";

    /// <summary>The step that copies the backup's data into the files (OperationPhase.TransferData).</summary>
    public const string TransferData = "transfer-data";

    public const string Redo = "redo";

    public const string Recovery = "recovery";

    private const double Megabyte = 1024 * 1024;

    /// <summary>The operation's zeroing of each file first (it runs while containers are prepared), then the named steps in order.</summary>
    public static CapturedRestore Of(OperationReport operation)
    {
        ArgumentNullException.ThrowIfNull(operation);
        var phases = new List<CapturedPhase>();
        foreach (var zeroing in operation.Zeroing)
        {
            var bytes = zeroing.Pages * 8192;
            phases.Add(new CapturedPhase(Zeroing, zeroing.Path, zeroing.Seconds, bytes, Rate(bytes, zeroing.Seconds)));
        }

        var transferred = operation.BytesProcessed ?? operation.EngineSummary?.Pages * 8192 ?? (operation.Progress is { Points.Count: > 0 } progress ? progress.Points[^1].Bytes : null);
        foreach (var phase in operation.Phases)
        {
            phases.Add(phase.Name == TransferData
                ? new CapturedPhase(phase.Name, null, phase.Seconds, transferred, operation.DataCopyThroughputMBps ?? Rate(transferred, phase.Seconds))
                : new CapturedPhase(phase.Name, null, phase.Seconds, null, null));
        }

        return new CapturedRestore(phases, operation.DurationSeconds, transferred, operation.ThroughputMBps, operation.Verdict);
    }

    /// <summary>Seconds of the phases of <paramref name="name"/>, or null when none was timed.</summary>
    public double? SecondsOf(string name)
    {
        var timed = Phases.Where(p => p.Name == name && p.Seconds is not null).ToList();
        return timed.Count == 0 ? null : timed.Sum(p => p.Seconds!.Value);
    }

    private static double? Rate(long? bytes, double? seconds) =>
        bytes is > 0 && seconds is > 0 ? bytes.Value / Megabyte / seconds.Value : null;
}
