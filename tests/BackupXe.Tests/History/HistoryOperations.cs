using BackupXe.Core.Events;
using BackupXe.Core.History;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Tests.History;

/// <summary>History records as each source produces them, for the merge and statistics tests.</summary>
internal static class HistoryOperations
{
    public const long GiB = 1L << 30;

    /// <summary>A row as msdb keeps it: whole seconds, sizes, devices, no buffer options.</summary>
    public static HistoryOperation Msdb(string database, DateTime start, int seconds, long bytes, string path = @"X:\b\full.bak", bool compressed = true)
        => new()
        {
            Kind = OperationKind.Backup,
            Scope = OperationScope.Database,
            Database = database,
            Start = start,
            End = start.AddSeconds(seconds),
            TimeResolutionSeconds = 1,
            Status = OperationStatus.Completed,
            BytesRead = bytes,
            BytesWritten = compressed ? bytes / 3 : bytes,
            Devices = [new BackupDevice(DeviceKind.Disk, path)],
            Options = new HistoryOptions { Compression = compressed, Checksum = true, CopyOnly = false },
            Sources = [HistorySource.Msdb],
        };

    /// <summary>A CommandLog row: the command's options and datetime2 times that start before the engine's.</summary>
    public static HistoryOperation CommandLog(string database, DateTime start, double seconds, string path = @"X:\b\full.bak", int bufferCount = 50)
        => new()
        {
            Kind = OperationKind.Backup,
            Scope = OperationScope.Database,
            Database = database,
            Start = start,
            End = start.AddSeconds(seconds),
            TimeResolutionSeconds = 0.001,
            Status = OperationStatus.Completed,
            Devices = [new BackupDevice(DeviceKind.Disk, path)],
            Options = new HistoryOptions { BufferCount = bufferCount, MaxTransferSizeBytes = 4 << 20, Compression = true, Checksum = true, CopyOnly = false },
            Sources = [HistorySource.CommandLog],
        };

    /// <summary>A captured run of <paramref name="bytes"/> at <paramref name="mbps"/>, timed to the millisecond: a point of a generated series.</summary>
    public static HistoryOperation Captured(
        string database, DateTime start, double mbps, long bytes, string path, HistoryOptions options, long? logBytes = null)
    {
        var seconds = bytes / 1048576.0 / mbps;
        return new HistoryOperation
        {
            Kind = OperationKind.Backup,
            Scope = OperationScope.Database,
            Database = database,
            Start = start,
            End = start.AddSeconds(seconds),
            TimeResolutionSeconds = 0.001,
            EngineSeconds = seconds,
            Status = OperationStatus.Completed,
            BytesRead = bytes,
            LogBytes = logBytes,
            Devices = [new BackupDevice(DeviceKind.Disk, path)],
            Options = options,
            Sources = [HistorySource.Capture],
        };
    }
}
