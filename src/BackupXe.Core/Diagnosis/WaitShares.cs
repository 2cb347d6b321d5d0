using BackupXe.Core.Formatting;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Diagnosis;

/// <summary>
/// BACKUPBUFFER and BACKUPIO as shares of each thread's time. BACKUPIO belongs to the device threads (one per
/// device); BACKUPBUFFER to both sides of the buffers (devices + data files). docs/backup-internals.md#buffer-count-against-waits shows why: wait
/// totals there exceed elapsed time.
/// </summary>
internal sealed class WaitShares
{
    public WaitShares(OperationMeasures measures, WaitReport? buffer, WaitReport? io)
    {
        var elapsed = measures.ElapsedSeconds!.Value;
        BufferShare = measures.ShareOfEachThread(buffer, measures.BufferThreads);
        IoShare = measures.ShareOfEachThread(io, measures.DeviceThreads);
        BufferAverageMs = buffer is { Count: > 0 } ? buffer.TotalMs / (double)buffer.Count : 0;
        ElapsedSentence = $"Waits are read against the {Figures.Seconds(elapsed)} {measures.ElapsedName}.";

        var devices = Figures.Plural(measures.DeviceThreads, "device", "devices");
        if (io is not null)
        {
            IoSentence = $"BACKUPIO took {Figures.Percent(IoShare)} of each {measures.DeviceThreadRole(false)}'s time "
                + $"({Figures.Seconds(io.TotalMs / 1000.0 / measures.DeviceThreads)} of {Figures.Seconds(elapsed)} over {devices}).";
        }

        if (buffer is not null)
        {
            var threads = $"{Figures.Plural(measures.BufferThreads, "thread", "threads")}: "
                + $"{Figures.Plural(measures.DataFileThreads, measures.DataFileThreadRole(false), measures.DataFileThreadRole(true))} + "
                + Figures.Plural(measures.DeviceThreads, measures.DeviceThreadRole(false), measures.DeviceThreadRole(true));
            BufferSentence = $"BACKUPBUFFER: {Figures.Count(buffer.Count)} waits averaging {Figures.AverageMilliseconds(BufferAverageMs)}, "
                + $"{Figures.Seconds(buffer.TotalMs / 1000.0)} in all = {Figures.Percent(BufferShare)} of each thread's time ({threads}).";
        }
    }

    public double BufferShare { get; }

    public double IoShare { get; }

    public double BufferAverageMs { get; }

    public string ElapsedSentence { get; }

    /// <summary>"BACKUPIO took 51% of each writer's time (62.6 s of 122.5 s over 1 device)"; null without BACKUPIO.</summary>
    public string? IoSentence { get; }

    /// <summary>"BACKUPBUFFER: 81616 waits averaging 2.0 ms, ..."; null without BACKUPBUFFER.</summary>
    public string? BufferSentence { get; }
}
