namespace BackupXe.Core.Diagnosis;

/// <summary>
/// The thresholds a DBA may want to tune, with defaults calibrated on the published tests of
/// docs/backup-internals.md#published-test-results (docs/diagnosis.md explains each one).
/// </summary>
public sealed record DiagnosisSettings
{
    public const long MegaByte = 1024 * 1024;

    /// <summary>
    /// Buffer memory a recommendation may propose. Null: the memory limit the server reported in the buffer
    /// configuration block. When both are known the smaller wins (buffers are taken outside the buffer pool,
    /// docs/backup-internals.md#data-path-readers-buffers-writers).
    /// </summary>
    public long? MemoryBudgetBytes { get; init; }

    /// <summary>
    /// How long an operation may show no sign of progress before the quiet is named: a stall in a phase that moves
    /// bytes, expected waiting in one that moves none (docs/live.md).
    /// </summary>
    public TimeSpan StallAfter { get; init; } = Correlation.ByteFlow.DefaultStallAfter;

    /// <summary>An operation shorter than this is reported as <c>none</c>: nothing worth tuning.</summary>
    public double QuickOperationSeconds { get; init; } = 10;

    /// <summary>BACKUPIO share of each device thread's time from which the backup device is the limit.</summary>
    public double DeviceWaitShare { get; init; } = 0.40;

    /// <summary>BACKUPBUFFER share of each backup thread's time from which buffer waits matter at all.</summary>
    public double BufferWaitShare { get; init; } = 0.25;

    /// <summary>Average BACKUPBUFFER wait at or below which the waits are "many short ones": buffer starvation.</summary>
    public double ShortBufferWaitMs { get; init; } = 5;

    /// <summary>Buffer memory per backup device below which buffers count as small (6.2: 7 MB starved, 128 MB+ did not).</summary>
    public long SmallBufferMemoryPerDeviceBytes { get; init; } = 64 * MegaByte;

    /// <summary>BUFFERCOUNT per backup device that raise-buffers aims at (64 x 4 MB = 256 MB per device).</summary>
    public int TargetBuffersPerDevice { get; init; } = 64;

    /// <summary>Signal time (waiting for a CPU) as a share of all wait time from which the CPUs are queueing.</summary>
    public double SignalWaitShare { get; init; } = 0.25;

    /// <summary>Share of a restore spent zeroing files from which file zeroing is the bottleneck.</summary>
    public double ZeroingShare { get; init; } = 0.30;

    /// <summary>
    /// Share of the waits seen during an operation that were ambiguous (no session_id, several operations
    /// running) from which its own waits are too few to judge it: the verdict then says it could not separate them.
    /// </summary>
    public double AmbiguousWaitShare { get; init; } = 0.10;

    /// <summary>Share of a restore spent waiting for the in-memory load (WAIT_XTP_RECOVERY) from which it is <c>in-memory-load</c>.</summary>
    public double InMemoryLoadShare { get; init; } = 0.30;

    /// <summary>
    /// Share of the client's span of a command (Ola Hallengren's "Date and time" lines) spent outside the server's
    /// operation from which the time went elsewhere: <c>outside-the-operation</c>.
    /// </summary>
    public double OutsideOperationShare { get; init; } = 0.5;

    /// <summary>
    /// Seconds outside the operation from which that verdict is given: well above the client's one-second clock and
    /// the few seconds a job needs between starting a command and the server starting the operation.
    /// </summary>
    public double OutsideOperationSeconds { get; init; } = 30;

    /// <summary>
    /// A snapshot backup's freeze (writes held from "I/O is frozen" to "I/O was resumed") from which the freeze is the
    /// finding: every write and commit of the database waits that long. VSS aborts a snapshot whose Thaw has not come
    /// 60 s after its Freeze (Microsoft docs, CVssWriter::OnFreeze); 10 s is well inside that and already past what
    /// interactive work tolerates.
    /// </summary>
    public double SnapshotFreezeSeconds { get; init; } = 10;

    /// <summary>Smallest database worth striping (6.4: striping a 10 GB database did not help).</summary>
    public long MinimumStripeBytes { get; init; } = 20L * 1024 * MegaByte;

    /// <summary>Every problem with the settings, each naming the setting; empty when valid.</summary>
    public IReadOnlyList<string> Validate()
    {
        var problems = new List<string>();
        if (MemoryBudgetBytes is <= 0)
        {
            problems.Add($"{nameof(MemoryBudgetBytes)} must be positive or unset (it is {MemoryBudgetBytes}).");
        }

        CheckShare(problems, nameof(DeviceWaitShare), DeviceWaitShare);
        CheckShare(problems, nameof(BufferWaitShare), BufferWaitShare);
        CheckShare(problems, nameof(SignalWaitShare), SignalWaitShare);
        CheckShare(problems, nameof(ZeroingShare), ZeroingShare);
        CheckShare(problems, nameof(AmbiguousWaitShare), AmbiguousWaitShare);
        CheckShare(problems, nameof(OutsideOperationShare), OutsideOperationShare);
        CheckShare(problems, nameof(InMemoryLoadShare), InMemoryLoadShare);
        if (SnapshotFreezeSeconds < 0)
        {
            problems.Add($"{nameof(SnapshotFreezeSeconds)} must not be negative (it is {SnapshotFreezeSeconds}).");
        }

        if (OutsideOperationSeconds < 0)
        {
            problems.Add($"{nameof(OutsideOperationSeconds)} must not be negative (it is {OutsideOperationSeconds}).");
        }

        if (QuickOperationSeconds < 0)
        {
            problems.Add($"{nameof(QuickOperationSeconds)} must not be negative (it is {QuickOperationSeconds}).");
        }

        if (ShortBufferWaitMs <= 0)
        {
            problems.Add($"{nameof(ShortBufferWaitMs)} must be positive (it is {ShortBufferWaitMs}).");
        }

        if (SmallBufferMemoryPerDeviceBytes <= 0)
        {
            problems.Add($"{nameof(SmallBufferMemoryPerDeviceBytes)} must be positive (it is {SmallBufferMemoryPerDeviceBytes}).");
        }

        if (TargetBuffersPerDevice < 1)
        {
            problems.Add($"{nameof(TargetBuffersPerDevice)} must be at least 1 (it is {TargetBuffersPerDevice}).");
        }

        if (MinimumStripeBytes < 0)
        {
            problems.Add($"{nameof(MinimumStripeBytes)} must not be negative (it is {MinimumStripeBytes}).");
        }

        return problems;
    }

    private static void CheckShare(List<string> problems, string name, double value)
    {
        if (value is <= 0 or > 1)
        {
            problems.Add($"{name} must be a share above 0 and at most 1 (it is {value}).");
        }
    }
}
