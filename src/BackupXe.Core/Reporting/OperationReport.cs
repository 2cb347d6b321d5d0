using BackupXe.Core.Events;
using BackupXe.Core.Parsing;

namespace BackupXe.Core.Reporting;

/// <summary>One input as read: its format, how many events, what was wrong with it.</summary>
public sealed record InputReport(string Path, string Format, long Events, IReadOnlyList<InputProblem> Problems);

/// <summary>How an operation ended in the input: completed, failed, or its end is not in the input.</summary>
public enum OperationStatus
{
    Completed,
    Failed,
    Incomplete,
}

/// <summary>Where a failed operation stood when its engine error was raised, against its copy of the data.</summary>
public enum CopyStage
{
    /// <summary>Before any data moved: opening the devices, reading the media header, checking the chain.</summary>
    BeforeCopy,

    /// <summary>While the data was being copied.</summary>
    DuringCopy,

    /// <summary>After the data was copied: the log tail, the upgrade and recovery of a restore, the backup's closing steps.</summary>
    AfterCopy,

    /// <summary>
    /// Before any backup or restore started: an error outside it (the database could not be used: 924, 916, 911; a
    /// permission on an object was denied: 229) stopped the work first, and the input shows no progress. No backup or
    /// restore ran.
    /// </summary>
    NotStarted,
}

/// <summary>
/// The first real engine error of a failed operation (3013, the generic ending, only when no other was printed), and
/// where the operation stood when it came: <paramref name="Stage"/> null when the input does not show it.
/// </summary>
public sealed record FailureErrorReport(int Number, int? Severity, string Text, CopyStage? Stage)
{
    /// <summary>The operating system error inside the message, decoded; null when it carries none.</summary>
    public OsErrorReport? OsError { get; init; }

    /// <summary>The device, file or URL the message names ("Cannot open backup device 'X'"); null when it names none.</summary>
    public string? Target { get; init; }

    /// <summary>What to do about it, with the public page it rests on; null when no remedy is known for this error.</summary>
    public FailureRemedyReport? Remedy { get; init; }
}

/// <summary>
/// An operating system error inside an engine message: its Windows system error code (null for a backup to URL's
/// exception from the remote endpoint, which has none) and what it means.
/// </summary>
public sealed record OsErrorReport(int? Code, string Meaning);

/// <summary>What to do about a failure: a stable id, the advice, and the public page it rests on (docs/diagnosis.md, "Failures").</summary>
public sealed record FailureRemedyReport(string Id, string Text, string Source);

/// <summary>
/// A snapshot backup: "t-sql" (SQL Server 2022+ ALTER DATABASE ... SET SUSPEND_FOR_SNAPSHOT_BACKUP, then BACKUP ... WITH
/// METADATA_ONLY) or "vss" (a VSS requestor freezing the database). The freeze window is null where the input has no clock.
/// </summary>
public sealed record SnapshotReport(string Method, DateTime? FrozenAt, DateTime? ResumedAt, double? FrozenSeconds);

/// <summary>How waits were tied to this operation.</summary>
public enum WaitAttribution
{
    /// <summary>Every wait carried the operation's session_id.</summary>
    Session,

    /// <summary>No session_id on the waits: they were tied by time overlap with the operation.</summary>
    TimeOverlap,

    /// <summary>Some by session_id, some by time overlap.</summary>
    Mixed,
}

/// <summary>One backup or restore, aggregated and diagnosed. Null means "not in the input".</summary>
public sealed record OperationReport
{
    public required OperationKind Kind { get; init; }
    public OperationScope? Scope { get; init; }
    public string? Database { get; init; }
    public int? SessionId { get; init; }
    public DateTime? Start { get; init; }
    public DateTime? End { get; init; }
    public required OperationStatus Status { get; init; }
    public double? DurationSeconds { get; init; }

    /// <summary>
    /// For an operation whose closing line is not in the input: how long it ran at least (from its start, or its
    /// first line, to its last line). Null when the duration is known or nothing was timed.
    /// </summary>
    public double? MinimumDurationSeconds { get; init; }
    public long? EstimatedBytes { get; init; }

    /// <summary>The log part of that estimate ("log size = N bytes"): the log a full or differential backup copies with its data.</summary>
    public long? EstimatedLogBytes { get; init; }
    public long? BytesProcessed { get; init; }
    public double? ThroughputMBps { get; init; }
    public double? DataCopyThroughputMBps { get; init; }
    public IReadOnlyList<DeviceReport> Devices { get; init; } = [];

    /// <summary>The paths of the devices the server named, else of those the command asked for; none when neither is known.</summary>
    public IReadOnlyList<string> DevicePaths() => Devices.Count > 0 ? Devices.Select(d => d.Path).ToList() : Requested?.Devices ?? [];

    /// <summary>The engine's own completion line ("... successfully processed N pages in S seconds (R MB/sec).").</summary>
    public EngineSummaryReport? EngineSummary { get; init; }

    /// <summary>"pages dumped: N" of the errorlog's "Database backed up" line.</summary>
    public long? PagesDumped { get; init; }

    /// <summary>The client's per-file lines ("Processed N pages for database 'D', file 'F' on file 1.").</summary>
    public IReadOnlyList<ProcessedFileReport> ProcessedFiles { get; init; } = [];

    /// <summary>SQL Server 2022+ upgrade steps run after a restore's data copy ("running the upgrade step").</summary>
    public int UpgradeSteps { get; init; }

    /// <summary>
    /// Versions the printed steps skip: one step ended at <see cref="VersionGap.FromVersion"/> and the next began at
    /// <see cref="VersionGap.ToVersion"/>, so the output left steps out and <see cref="UpgradeSteps"/> counts only those shown.
    /// </summary>
    public IReadOnlyList<VersionGap> UpgradeGaps { get; init; } = [];
    public int? DataFileReaders { get; init; }
    public BufferConfigReport? BufferConfig { get; init; }
    public OptionsReport? Options { get; init; }
    public IReadOnlyList<FileReadReport> Files { get; init; } = [];
    public IReadOnlyList<ZeroingReport> Zeroing { get; init; } = [];
    public IReadOnlyList<PhaseReport> Phases { get; init; } = [];

    /// <summary>Times with no sign of progress long enough to name: stalls, and waits in phases that move no bytes.</summary>
    public IReadOnlyList<QuietPeriod> QuietPeriods { get; init; } = [];
    public IReadOnlyList<WaitReport> Waits { get; init; } = [];
    public WaitAttribution? WaitAttribution { get; init; }

    /// <summary>Bytes moved over time, for a rate curve; null when the input had no progress readings.</summary>
    public ProgressReport? Progress { get; init; }

    /// <summary>
    /// Waits without a session_id that ended while this and at least one other operation were running: they
    /// cannot be told apart, so they are in none of the operations' <see cref="Waits"/>, only counted here and
    /// in the run's server-level profile.
    /// </summary>
    public long AmbiguousWaits { get; init; }
    public string? FailureReason { get; init; }

    /// <summary>Set for a snapshot backup, which is never judged by its throughput.</summary>
    public SnapshotReport? Snapshot { get; init; }

    /// <summary>The engine error the failure reason is, with where the operation stood; null when none was printed.</summary>
    public FailureErrorReport? FailureError { get; init; }

    /// <summary>Messages outside the vocabulary, counted; their texts appear in verbose output only.</summary>
    public int UnknownMessages { get; init; }

    /// <summary>The first unknown texts (at most 20), for verbose output; not part of the JSON contract.</summary>
    [System.Text.Json.Serialization.JsonIgnore]
    public IReadOnlyList<string> UnknownMessageSamples { get; init; } = [];

    /// <summary>The client's own start and end of the command (Ola Hallengren's output), when an input had them.</summary>
    public ClientCommandReport? ClientCommand { get; init; }

    /// <summary>The devices and options the command's own text asked for, when an input had it.</summary>
    public RequestedReport? Requested { get; init; }

    /// <summary>
    /// The server the operation's input says it came from (an ERRORLOG's version banner, a job output's Version line);
    /// null when the input does not say. Remedies are chosen for it: a server before SQL Server 2016 gets trace flags,
    /// not an Extended Events session it cannot run.
    /// </summary>
    public ServerVersion? Server { get; init; }

    public Verdict? Verdict { get; init; }
    public IReadOnlyList<Recommendation> Recommendations { get; init; } = [];

    /// <summary>This operation against its own series in a history file; null when no history was given.</summary>
    public BaselineComparisonReport? History { get; init; }
}

/// <summary>
/// The command as the client timed it: its start and end on the client's clock, to <paramref name="ResolutionSeconds"/>.
/// The server's operation ran inside this span.
/// </summary>
public sealed record ClientCommandReport(DateTime Start, DateTime End, double Seconds, double ResolutionSeconds, string Source);

/// <summary>One backup device (stripe) the operation read or wrote.</summary>
public sealed record DeviceReport(string Path);

/// <summary>The completion line as the engine wrote it: pages (8 KB), its own elapsed seconds and its MB/sec.</summary>
public sealed record EngineSummaryReport(long Pages, double Seconds, double MegabytesPerSecond);

/// <summary>One file of the client's "Processed N pages" lines.</summary>
public sealed record ProcessedFileReport(string Database, string LogicalFile, long Pages);

/// <summary>Database versions between two printed upgrade steps: the steps from <paramref name="FromVersion"/> to <paramref name="ToVersion"/> are not in the output.</summary>
public sealed record VersionGap(int FromVersion, int ToVersion);

/// <summary>The buffer configuration block (trace flag 3213 / the XE equivalent) plus the effective options.</summary>
public sealed record BufferConfigReport
{
    public int? BufferCount { get; init; }
    public long? MaxTransferSizeBytes { get; init; }
    public long? MinMaxTransferSizeBytes { get; init; }
    public long? TotalBufferBytes { get; init; }

    /// <summary>
    /// True when <see cref="TotalBufferBytes"/> is the server's own "Total buffer space" line, false when it was
    /// computed from the other lines. The reported figure can be far above BUFFERCOUNT x MAXTRANSFERSIZE.
    /// </summary>
    public bool TotalBufferBytesReported { get; init; }
    public long? MemoryLimitBytes { get; init; }
    public int? SetsOfBuffers { get; init; }
    public int? TabularDataDeviceCount { get; init; }
    public int? FulltextDataDeviceCount { get; init; }
    public int? FilestreamDeviceCount { get; init; }
    public int? MediaBufferCount { get; init; }
    public long? MediaBufferSizeBytes { get; init; }
    public int? EncodeBufferCount { get; init; }
    public int? BuffersPerReadStream { get; init; }
    public int? BuffersPerWriteStream { get; init; }
    public int? FilesystemIoAlignment { get; init; }
}

/// <summary>The "Effective options" the server reported; null where it did not say.</summary>
public sealed record OptionsReport(bool? Checksum, bool? Compression, bool? Encryption);

/// <summary>One data file's read, from "Reading the data file" to "Completed reading the data file".</summary>
public sealed record FileReadReport(string Path, DateTime? Start, DateTime? End, double? Seconds);

/// <summary>One file zero-initialised during a restore.</summary>
public sealed record ZeroingReport(string Path, long? Pages, DateTime? Start, DateTime? End, double? Seconds);

/// <summary>A phase with kebab-case name (copy-data, wait-log-zero...).</summary>
public sealed record PhaseReport(string Name, DateTime? Start, DateTime? End, double? Seconds);

/// <summary>
/// Bytes moved over time, at most <see cref="Correlation.ProgressSeries.DefaultCapacity"/> + 2 points (long
/// operations are thinned, never cut). <see cref="Source"/> is <c>throughput-event</c> (the throughput event's
/// running total) or <c>percent</c> (the percent lines' bytes).
/// </summary>
public sealed record ProgressReport(string Source, IReadOnlyList<ProgressPointReport> Points);

/// <summary>Cumulative bytes at a moment.</summary>
public sealed record ProgressPointReport(DateTime At, long Bytes);

/// <summary>Waits of one type tied to the operation. Resource time = total - signal.</summary>
public sealed record WaitReport(string WaitType, long Count, long TotalMs, long MaxMs, long SignalMs);

/// <summary>The bottleneck vocabulary of docs/backup-internals.md#bottleneck-classes-and-remedies.</summary>
public enum Bottleneck
{
    BufferStarved,
    BackupDevice,
    DataFileRead,
    CompressionCpu,
    FileZeroing,
    None,
    Unknown,

    /// <summary>The operation is dominated by fixed overhead, or its time went elsewhere: tuning throughput would not help.</summary>
    NotAThroughputProblem,

    /// <summary>The input holds only totals (start, completion, history lines): phases cannot be separated.</summary>
    CannotTell,

    /// <summary>
    /// The client's command took far longer than the server's operation: the time went before or after it (a lock,
    /// RESTORE's exclusive access, job scheduling, verification, a file copy), not into the backup or restore.
    /// </summary>
    OutsideTheOperation,

    /// <summary>
    /// A restore whose recovery waited most of its time for the In-Memory OLTP engine to load the memory-optimized data
    /// (WAIT_XTP_RECOVERY): bound by the data, the containers' sequential reads and the log tail, not by backup options.
    /// </summary>
    InMemoryLoad,
}

/// <summary>How firmly the evidence supports a verdict.</summary>
public enum Confidence
{
    Low,
    Medium,
    High,
}

/// <summary>What limited the operation, how sure we are, and the numbers that say so.</summary>
public sealed record Verdict(Bottleneck Bottleneck, Confidence Confidence, IReadOnlyList<string> Evidence)
{
    /// <summary>Which evidence decided the verdict ("phases", "waits", "duration", "totals only"...).</summary>
    public string? DecidedBy { get; init; }

    /// <summary>What evidence would change the verdict, in a DBA's words.</summary>
    public string? WouldChange { get; init; }
}

/// <summary>A remedy with a stable kebab-case id (docs/diagnosis.md), a sentence and runnable T-SQL.</summary>
public sealed record Recommendation(string Id, string Text, string Tsql)
{
    /// <summary>What the remedy is expected to gain, and on what that rests (docs/diagnosis.md, "Expected gain").</summary>
    public ExpectedGain ExpectedGain { get; init; } = ExpectedGain.NotEstimated;
}

/// <summary>What an expected gain rests on, from the firmest to none.</summary>
public enum GainBasis
{
    /// <summary>A bound computed from this operation's own measures (a wait's share of the copy, the time spent zeroing).</summary>
    Measured,

    /// <summary>A figure from a published test (docs/backup-internals.md), not measured on this operation.</summary>
    Published,

    /// <summary>The evidence does not support a figure.</summary>
    CannotTell,

    /// <summary>The remedy measures or captures; it speeds nothing up by itself, it brings the evidence a next verdict needs.</summary>
    EvidenceOnly,
}

/// <summary>
/// A remedy's expected gain: <paramref name="Text"/> says it in a DBA's words with the numbers it rests on;
/// <see cref="AtMostTimesFaster"/> is the bound on the whole operation when <paramref name="Basis"/> is measured
/// (2.0 = at most twice as fast), a ceiling reached only if what it removes vanishes and nothing else takes its place.
/// </summary>
public sealed record ExpectedGain(GainBasis Basis, string Text)
{
    /// <summary>For a remedy built without an estimate: says so rather than claim one.</summary>
    public static readonly ExpectedGain NotEstimated = new(GainBasis.CannotTell, "Not estimated.");

    public double? AtMostTimesFaster { get; init; }

    /// <summary>"Expected gain (measured bound)": the label every human format prints before <see cref="Text"/>.</summary>
    public string Heading() => Basis switch
    {
        GainBasis.Measured => "Expected gain (measured bound)",
        GainBasis.Published => "Expected gain (published figure)",
        GainBasis.EvidenceOnly => "Expected gain (evidence only)",
        _ => "Expected gain (cannot tell)",
    };

    /// <summary>Whether a remedy printed once and referred to after should still print this: only a bound measured on each operation differs.</summary>
    public bool DiffersPerOperation() => Basis == GainBasis.Measured;
}
