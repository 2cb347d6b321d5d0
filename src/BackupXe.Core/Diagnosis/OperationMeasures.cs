using BackupXe.Core.Events;
using BackupXe.Core.Formatting;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Diagnosis;

/// <summary>
/// The numbers every rule reads, derived once from an <see cref="OperationReport"/>: the time waits are measured
/// against, how many threads shared them, and the buffer memory.
/// </summary>
internal sealed class OperationMeasures
{
    /// <summary>MAXTRANSFERSIZE for disk when not specified (docs/backup-internals.md#data-path-readers-buffers-writers).</summary>
    public const long DefaultMaxTransferSize = 1024 * 1024;

    private OperationMeasures(OperationReport operation)
    {
        Operation = operation;
    }

    public OperationReport Operation { get; }

    public bool IsRestore => Operation.Kind == OperationKind.Restore;

    /// <summary>"backup" or "restore", for sentences.</summary>
    public string Noun => IsRestore ? "restore" : "backup";

    /// <summary>
    /// The whole operation; for one whose closing line is missing, how long it ran at least (see
    /// <see cref="DurationIsLowerBound"/>); null when nothing was timed.
    /// </summary>
    public double? DurationSeconds { get; private init; }

    /// <summary>True when <see cref="DurationSeconds"/> is a lower bound: the input ends before the operation does.</summary>
    public bool DurationIsLowerBound { get; private init; }

    /// <summary>"19.1 s restore", or "19.1 s seen before the input ends": what shares are of.</summary>
    public string DurationPhrase => DurationSeconds is not { } d ? Noun
        : DurationIsLowerBound ? $"{Figures.Seconds(d)} seen before the input ends"
        : $"{Figures.Seconds(d)} {Noun}";

    /// <summary>
    /// Only totals are known (start, completion, history or client summary lines): no phase, file, zeroing, buffer,
    /// option or wait evidence, so where the time went cannot be told.
    /// </summary>
    public bool TotalsOnly => Operation.Phases.Count == 0 && Operation.Files.Count == 0 && Operation.Zeroing.Count == 0
        && Operation.Waits.Count == 0 && Operation.BufferConfig is null && Operation.Options is null
        && Operation.DataFileReaders is null;

    /// <summary>
    /// The server's reported total buffer space over BUFFERCOUNT x MAXTRANSFERSIZE (S03 of the real-world fixtures:
    /// 345 MB for 64 x 2 MB, 2.7x); null unless both are known.
    /// </summary>
    public double? ReportedBufferRatio { get; private init; }

    /// <summary>
    /// What waits are normalised against: the data-copy phase when captured (the buffer and device waits
    /// happen there), else the whole operation.
    /// </summary>
    public double? ElapsedSeconds { get; private init; }

    public string ElapsedName { get; private init; } = "operation";

    /// <summary>One thread per backup device (docs/backup-internals.md#data-path-readers-buffers-writers); 1 when the devices are unknown.</summary>
    public int DeviceThreads { get; private init; }

    public bool DeviceThreadsAssumed { get; private init; }

    /// <summary>Data-file threads: DataFileReaders, 1 when unknown.</summary>
    public int DataFileThreads { get; private init; }

    public bool DataFileThreadsAssumed { get; private init; }

    /// <summary>Every thread that can wait on BACKUPBUFFER: both sides of the buffers.</summary>
    public int BufferThreads => DeviceThreads + DataFileThreads;

    /// <summary>The operation wrote to NUL: a read-ceiling measurement, not a real backup device.</summary>
    public bool IsNulBackup { get; private init; }

    public long? BufferMemoryBytes { get; private init; }

    public bool HasWaits => Operation.Waits.Count > 0;

    public static OperationMeasures Of(OperationReport operation)
    {
        var duration = operation.DurationSeconds
            ?? (operation.Start is { } start && operation.End is { } end ? (end - start).TotalSeconds : null);
        if (duration <= 0)
        {
            duration = null;
        }

        var lowerBound = duration is null && operation.MinimumDurationSeconds is > 0;
        if (lowerBound)
        {
            duration = operation.MinimumDurationSeconds;
        }

        var copyPhase = Kebab.Of(operation.Kind == OperationKind.Restore ? OperationPhase.TransferData : OperationPhase.CopyData);
        var phaseSeconds = operation.Phases
            .Where(phase => string.Equals(phase.Name, copyPhase, StringComparison.OrdinalIgnoreCase) && phase.Seconds > 0)
            .Sum(phase => phase.Seconds);
        var buffers = BuffersOf(operation);
        return new OperationMeasures(operation)
        {
            DurationSeconds = duration,
            DurationIsLowerBound = lowerBound,
            ElapsedSeconds = phaseSeconds > 0 ? phaseSeconds : duration,
            ElapsedName = phaseSeconds > 0 ? copyPhase + " phase" : operation.Kind == OperationKind.Restore ? "restore" : "backup",
            // The server's devices when it named them, else the stripes the job's command asked for.
            DeviceThreads = Math.Max(1, operation.Devices.Count > 0 ? operation.Devices.Count : operation.Requested?.Devices.Count ?? 0),
            DeviceThreadsAssumed = operation.Devices.Count == 0 && operation.Requested is not { Devices.Count: > 0 },
            DataFileThreads = operation.DataFileReaders is > 0 ? operation.DataFileReaders.Value : 1,
            DataFileThreadsAssumed = operation.DataFileReaders is not > 0,
            IsNulBackup = operation.Kind == OperationKind.Backup && operation.Devices.Count > 0
                && operation.Devices.All(device => IsNul(device.Path)),
            // The server's own total is what the buffers take (docs/backup-internals.md#buffer-configuration-block): never computed over it.
            BufferMemoryBytes = buffers is { TotalBufferBytesReported: true, TotalBufferBytes: { } reported } ? reported
                : buffers?.BufferCount is { } count && buffers.MaxTransferSizeBytes is { } size ? ServerRanges.SaturatingMultiply(count, size)
                : buffers?.TotalBufferBytes,
            ReportedBufferRatio = buffers is { TotalBufferBytesReported: true, TotalBufferBytes: { } total, BufferCount: > 0, MaxTransferSizeBytes: > 0 }
                ? total / (double)(buffers.BufferCount.Value * buffers.MaxTransferSizeBytes.Value)
                : null,
        };
    }

    public static bool IsNul(string path) =>
        path.Trim().TrimEnd(':').Equals("NUL", StringComparison.OrdinalIgnoreCase);

    /// <summary>All waits of one type (a report may split a type over several rows).</summary>
    public WaitReport? Wait(string waitType)
    {
        var rows = Operation.Waits.Where(wait => string.Equals(wait.WaitType, waitType, StringComparison.OrdinalIgnoreCase)).ToList();
        return rows.Count switch
        {
            0 => null,
            1 => rows[0],
            _ => new WaitReport(waitType, rows.Sum(w => w.Count), rows.Sum(w => w.TotalMs), rows.Max(w => w.MaxMs), rows.Sum(w => w.SignalMs)),
        };
    }

    /// <summary>Share of each thread's time spent in this wait: total / threads / elapsed (docs/backup-internals.md#buffer-count-against-waits).</summary>
    public double ShareOfEachThread(WaitReport? wait, int threads) =>
        wait is null || ElapsedSeconds is not > 0 ? 0 : wait.TotalMs / 1000.0 / threads / ElapsedSeconds.Value;

    /// <summary>"1 writer" / "2 readers": the device threads by their role in this kind of operation.</summary>
    public string DeviceThreadRole(bool plural) => (IsRestore, plural) switch
    {
        (false, false) => "writer",
        (false, true) => "writers",
        (true, false) => "device reader",
        (true, true) => "device readers",
    };

    public string DataFileThreadRole(bool plural) => (IsRestore, plural) switch
    {
        (false, false) => "data file reader",
        (false, true) => "data file readers",
        (true, false) => "data file writer",
        (true, true) => "data file writers",
    };

    /// <summary>The sentences that say which thread counts were assumed, so a DBA can weigh the shares.</summary>
    public IEnumerable<string> Assumptions()
    {
        if (DeviceThreadsAssumed)
        {
            yield return "The backup devices were not captured: 1 device (1 " + DeviceThreadRole(false) + ") assumed.";
        }

        if (DataFileThreadsAssumed)
        {
            yield return "The number of data file threads was not captured: 1 assumed.";
        }
    }

    /// <summary>
    /// The server's buffer configuration; without it, the BUFFERCOUNT and MAXTRANSFERSIZE the job's command asked for
    /// (the server uses what a command states), else null.
    /// </summary>
    public BufferConfigReport? Buffers => BuffersOf(Operation);

    private static BufferConfigReport? BuffersOf(OperationReport operation) =>
        operation.BufferConfig
        ?? (operation.Requested is { BufferCount: { } count, MaxTransferSizeBytes: { } size }
            ? new BufferConfigReport { BufferCount = count, MaxTransferSizeBytes = size }
            : null);

    /// <summary>"7 buffers x 1 MB = 7 MB of buffer memory", or null when the configuration is unknown.</summary>
    public string? BufferMemorySentence()
    {
        var buffers = BuffersOf(Operation);
        if (Operation.BufferConfig is null && buffers is { BufferCount: { } asked, MaxTransferSizeBytes: { } askedSize })
        {
            return $"{Figures.Plural(asked, "buffer", "buffers")} x {Figures.Memory(askedSize)} = {Figures.Memory(ServerRanges.SaturatingMultiply(asked, askedSize))} "
                + "of buffer memory as the job's command requested (the server's own figure was not captured).";
        }

        if (buffers?.BufferCount is { } count && buffers.MaxTransferSizeBytes is { } size)
        {
            var configured = $"{Figures.Plural(count, "buffer", "buffers")} x {Figures.Memory(size)} = {Figures.Memory(ServerRanges.SaturatingMultiply(count, size))}";
            if (ReportedBufferRatio is { } ratio && BufferMemoryBytes is { } reported && reported != ServerRanges.SaturatingMultiply(count, size))
            {
                var perDeviceReported = DeviceThreads > 1 ? $", {Figures.Memory(reported / DeviceThreads)} per device" : "";
                return $"{configured} as configured, but {Figures.Memory(reported)} of buffer memory as the server reports it "
                    + $"(Total buffer space, {Figures.Ratio(ratio)} BUFFERCOUNT x MAXTRANSFERSIZE{perDeviceReported}).";
            }

            var perDevice = DeviceThreads > 1 ? $" ({Figures.Memory(ServerRanges.SaturatingMultiply(count, size) / DeviceThreads)} per device)" : "";
            return $"{configured} of buffer memory{perDevice}.";
        }

        return BufferMemoryBytes is { } total ? $"{Figures.Memory(total)} of buffer memory in all." : null;
    }

    /// <summary>Whether the buffers are small per device; null when their memory is unknown.</summary>
    public bool? BuffersSmall(DiagnosisSettings settings) =>
        BufferMemoryBytes is { } total ? total / DeviceThreads < settings.SmallBufferMemoryPerDeviceBytes : null;
}
