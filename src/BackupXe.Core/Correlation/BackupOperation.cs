using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Correlation;

/// <summary>
/// One backup or restore while its events are being gathered. Everything here is bounded by the shape of
/// the operation (files, devices, wait types), not by how many events it produced.
/// </summary>
public sealed class BackupOperation
{
    /// <summary>How many unknown message texts are kept for verbose output; the count is always exact.</summary>
    public const int UnknownSampleLimit = 20;

    /// <summary>A database has at most 32,767 files (SQL Server's documented maximum): the per-file list never grows past it.</summary>
    public const int MaxDatabaseFiles = 32767;

    private readonly List<string> _devices = [];
    private readonly List<string> _unknownSamples = [];
    private readonly List<FilePagesProcessed> _processedFiles = [];

    public BackupOperation(OperationKind kind, OperationScope? scope, string? database, int? sessionId, DateTime firstSeen, bool startObserved)
    {
        Kind = kind;
        Scope = scope;
        Database = database;
        SessionId = sessionId;
        Start = startObserved ? firstSeen : null;
        FirstSeen = firstSeen;
        LastSeen = firstSeen;
    }

    public OperationKind Kind { get; }

    public OperationScope? Scope { get; set; }

    public string? Database { get; set; }

    public int? SessionId { get; }

    /// <summary>When the start message was seen; null when the input began mid-operation.</summary>
    public DateTime? Start { get; private set; }

    public DateTime FirstSeen { get; }

    public DateTime LastSeen { get; private set; }

    public DateTime? End { get; private set; }

    public OperationStatus? Outcome { get; private set; }

    public string? FailureReason { get; private set; }

    /// <summary>Set when the operation is a snapshot backup: its database's writes were frozen while the storage took the copy.</summary>
    public bool IsSnapshot { get; private set; }

    /// <summary>True when the T-SQL snapshot steps (SUSPEND_FOR_SNAPSHOT_BACKUP) were seen, false for freeze lines alone (VSS).</summary>
    public bool IsTsqlSnapshot { get; private set; }

    /// <summary>When "I/O is frozen" was logged; null without a clock.</summary>
    public DateTime? FrozenAt { get; private set; }

    /// <summary>When "I/O was resumed" was logged; null without a clock.</summary>
    public DateTime? ResumedAt { get; private set; }

    /// <summary>The first engine error other than the generic 3013 (that one only when no other came), and its stage.</summary>
    public FailureErrorReport? FailureError { get; private set; }

    public long? EstimatedBytes { get; private set; }

    public long? DataBytesEstimate { get; private set; }

    public long? LogBytesEstimate { get; private set; }

    public int? LastPercent { get; private set; }

    public long? PercentBytes { get; private set; }

    public DateTime? LastPercentAt { get; private set; }

    public long ThroughputEventBytes { get; private set; }

    public CompletionSummary? Summary { get; private set; }

    /// <summary>"pages dumped: N" of the errorlog's "Database backed up" line (need not equal the summary's pages).</summary>
    public long? PagesDumped { get; private set; }

    /// <summary>The client's "Processed N pages for database 'D', file 'F'" lines, one per file.</summary>
    public IReadOnlyList<FilePagesProcessed> ProcessedFiles => _processedFiles;

    /// <summary>SQL Server 2022+ upgrade steps after a restore's copy ("running the upgrade step").</summary>
    public int UpgradeSteps { get; private set; }

    /// <summary>A published excerpt leaves steps out ("........." in T09b): where the versions of consecutive steps jump.</summary>
    public IReadOnlyList<VersionGap> UpgradeGaps => _upgradeGaps;

    // A database has gone through fewer than a few hundred versions: the gaps between its steps are bounded by them.
    private const int MaxUpgradeGaps = 64;
    private readonly List<VersionGap> _upgradeGaps = [];
    private int? _upgradeReached;

    private void NoteUpgrade(DatabaseUpgrade upgrade)
    {
        if (!upgrade.IsStep)
        {
            // "Converting database ... from version N": the first step starts from N.
            _upgradeReached ??= upgrade.FromVersion;
            return;
        }

        UpgradeSteps++;
        if (_upgradeReached is { } reached && upgrade.FromVersion > reached && _upgradeGaps.Count < MaxUpgradeGaps)
        {
            _upgradeGaps.Add(new VersionGap(reached, upgrade.FromVersion));
        }

        _upgradeReached = upgrade.ToVersion;
    }

    /// <summary>When the first WAIT_XTP_RECOVERY wait tied to this operation began; null when there was none.</summary>
    public DateTime? InMemoryLoadBegan { get; private set; }

    /// <summary>When the last one ended.</summary>
    public DateTime? InMemoryLoadEnded { get; private set; }

    /// <summary>Keeps the span of the in-memory load waits: the restore's in-memory-load phase (docs/diagnosis.md).</summary>
    public void NoteInMemoryLoad(WaitEvent wait)
    {
        if (!BackupWaitTypes.IsInMemoryLoad(wait.WaitType))
        {
            return;
        }

        InMemoryLoadBegan = InMemoryLoadBegan is { } began && began <= wait.Began ? began : wait.Began;
        InMemoryLoadEnded = InMemoryLoadEnded is { } ended && ended >= wait.Timestamp ? ended : wait.Timestamp;
    }

    /// <summary>The client's own span of the command (Ola Hallengren's output), when an input had it.</summary>
    public ClientCommandEvent? ClientCommand { get; set; }

    /// <summary>False when the source has no clock (client output): no time of this operation is known.</summary>
    public bool HasClock => FirstSeen != TraceEvent.NoClock;

    public int? DataFileReaders { get; private set; }

    public int? HistoryDeviceCount { get; private set; }

    public bool? Checksum { get; private set; }

    public bool? Compression { get; private set; }

    public bool? Encryption { get; private set; }

    public int UnknownMessages { get; private set; }

    /// <summary>Waits without session_id that ended while this and other operations ran (not in <see cref="Waits"/>).</summary>
    public long AmbiguousWaits { get; set; }

    /// <summary>The correlator's count of ambiguous waits when this operation opened.</summary>
    internal long AmbiguousMark { get; set; }

    public IReadOnlyList<string> UnknownSamples => _unknownSamples;

    public IReadOnlyList<string> Devices => _devices;

    public BufferConfiguration Buffers { get; } = new();

    public TimedFiles Files { get; } = new();

    public TimedFiles Zeroing { get; } = new();

    public PhaseTimeline Phases { get; } = new();

    public WaitAccumulator Waits { get; } = new();

    /// <summary>Signs of progress and the quiet periods between them (stalls, expected waits).</summary>
    public ByteFlow Flow { get; } = new();

    /// <summary>The most bytes any reading says have moved so far.</summary>
    public long MovedBytes => Math.Max(PercentBytes ?? 0, ThroughputEventBytes);

    /// <summary>Bytes processed over time from the percent lines (bounded: a fixed number of points).</summary>
    public ProgressSeries PercentProgress { get; } = new();

    /// <summary>Bytes moved over time from the throughput event's running total (bounded likewise).</summary>
    public ProgressSeries ThroughputProgress { get; } = new();

    public bool IsEnded => End is not null;

    /// <summary>Order of creation, which the correlator's indexes sort by.</summary>
    internal long Sequence { get; set; }

    /// <summary>The input (its index in the analysis) whose event opened this operation: the server it names is this operation's.</summary>
    internal int Input { get; set; }

    /// <summary>The phase that moves the data: copy-data for a backup, transfer-data for a restore.</summary>
    public OperationPhase DataPhase => Kind == OperationKind.Backup ? OperationPhase.CopyData : OperationPhase.TransferData;

    public void Seen(DateTime at)
    {
        if (at > LastSeen)
        {
            LastSeen = at;
        }
    }

    public void Apply(TraceMessage message, DateTime at)
    {
        // Two in three messages of a 3014 log; each type test below is a call in the published build's precompiled
        // code, so this one comes first (docs/performance.md).
        if (message is PercentProcessed percent)
        {
            ApplyPercent(percent, at);
            return;
        }

        Seen(at);
        switch (message)
        {
            case BufferParameterLine line:
                Buffers.Set(line.Parameter, line.Value);
                break;
            case EffectiveOptions options:
                Checksum = options.Checksum ?? Checksum;
                Compression = options.Compression ?? Compression;
                Encryption = options.Encryption ?? Encryption;
                Buffers.SetIfMissing(BufferParameter.BufferCount, options.BufferCount);
                Buffers.SetIfMissing(BufferParameter.MaxTransferSize, options.MaxTransferSizeBytes);
                break;
            case EstimatedSize size:
                EstimatedBytes = size.TotalBytes;
                DataBytesEstimate = size.DataBytes;
                LogBytesEstimate = size.LogBytes;
                break;
            case PercentReached reached:
                LastPercent = reached.Percent;
                break;
            case FilePagesProcessed processed:
                Database ??= processed.Database;
                if (_processedFiles.Count < MaxDatabaseFiles)
                {
                    _processedFiles.Add(processed);
                }

                break;
            case DatabaseMarkedRestoring restoring:
                Database ??= restoring.Database;
                break;
            case EngineError error:
                NoteError(error);

                // "... for database \"X\" ...": a failed command's error may be the only line that names its database.
                Database ??= EngineMessageCatalog.DatabaseOf(error.Number, error.Text);
                break;
            case SnapshotStep step:
                Database ??= step.Database;
                IsSnapshot = true;
                IsTsqlSnapshot |= step.IsTsqlSnapshot;
                if (HasClock && step.Event == SnapshotEvent.IoFrozen)
                {
                    FrozenAt ??= at;
                }
                else if (HasClock && step.Event == SnapshotEvent.IoResumed)
                {
                    ResumedAt = at;
                }

                break;
            case MsdaStarted:
                Phases.Mark(OperationPhase.CopyData, PhaseEdge.Begin, at);
                break;
            case DatabaseUpgrade upgrade:
                Database ??= upgrade.Database;
                Phases.Mark(OperationPhase.Upgrade, PhaseEdge.Begin, at);
                NoteUpgrade(upgrade);
                break;
            case DataFileReaders readers:
                DataFileReaders = readers.Count;
                break;
            case DataFileReadStarted read:
                Files.Get(read.Path).Start ??= at;
                break;
            case DataFileReadCompleted read:
                Files.Get(read.Path).End = at;
                break;
            case BackupDeviceNamed device:
                AddDevice(device.Path);
                break;
            case ZeroingStarted zeroing:
                var zeroed = Zeroing.Get(zeroing.Path);
                zeroed.Start ??= at;
                zeroed.Pages = Math.Max(0, zeroing.ToPage - zeroing.FromPage) + 1;
                break;
            case ZeroingCompleted zeroing:
                Zeroing.Get(zeroing.Path).End = at;
                break;
            case PhaseMarker marker:
                Phases.Mark(marker.Phase, marker.Edge, at);
                break;
            case KnownStep:
                // A fixed step of the trace: recognised, and nothing to keep.
                break;
            case UnknownMessage unknown:
                UnknownMessages++;
                if (_unknownSamples.Count < UnknownSampleLimit)
                {
                    _unknownSamples.Add(unknown.Text);
                }

                break;
        }

        NoteFlow(at);
    }

    // Client output has no clock: its events are not placed in time, so no quiet period can be measured.
    private void NoteFlow(DateTime at)
    {
        if (HasClock)
        {
            Flow.Observe(at, MovedBytes, Phases.Current);
        }
    }

    /// <summary>A "N percent processed" line: <see cref="Apply"/> for the one message that needs no type test.</summary>
    private void ApplyPercent(PercentProcessed percent, DateTime at)
    {
        Seen(at);
        LastPercent = percent.Percent;
        PercentBytes = percent.Bytes;
        LastPercentAt = at;
        PercentProgress.Add(at, percent.Bytes);
        EstimatedBytes ??= percent.TotalBytes;
        NoteFlow(at);
    }

    /// <summary>True once the ERRORLOG's history line of this operation was read: a second one is another operation's.</summary>
    public bool HasHistory { get; private set; }

    public void ApplyHistory(HistoryRecord record, DateTime at)
    {
        Seen(at);
        HasHistory = true;
        Database ??= record.Database;
        HistoryDeviceCount = record.DeviceCount ?? HistoryDeviceCount;
        PagesDumped = record.PagesDumped ?? PagesDumped;
        foreach (var device in record.Devices)
        {
            AddDevice(device);
        }

        // The history line is written once the backup set is complete: the operation has ended.
        Finish(at, OperationStatus.Completed, null);
    }

    public void ApplySummary(CompletionSummary summary, DateTime at)
    {
        Seen(at);
        Summary = summary;
        Scope ??= summary.Scope;
        Finish(at, OperationStatus.Completed, null);

        // Without a start line, the server's own elapsed time counts back from the end (which the history
        // line, written just before the summary, may already have set). Client output has no clock to count from.
        // The parser bounds Seconds (ServerRanges.MaxSeconds); the check keeps a summary built elsewhere from
        // reaching before DateTime.MinValue.
        if (End is { } end && end != TraceEvent.NoClock && double.IsFinite(summary.Seconds) && summary.Seconds >= 0
            && summary.Seconds <= Math.Min(ServerRanges.MaxSeconds, (end - DateTime.MinValue).TotalSeconds))
        {
            Start ??= end - TimeSpan.FromSeconds(summary.Seconds);
        }
    }

    public void AddThroughput(long increment, DateTime at)
    {
        ThroughputEventBytes = ServerRanges.SaturatingAdd(ThroughputEventBytes, Math.Max(0, increment));
        ThroughputProgress.Add(at, ThroughputEventBytes);
        NoteFlow(at);
    }

    /// <summary>What joins a client's time-out to the line that then ended the command, in <see cref="FailureReason"/>.</summary>
    public const string ClientStopThen = " Then: ";

    public void Finish(DateTime at, OperationStatus outcome, string? reason)
    {
        Seen(at);

        // A failure is final; a later "finished"-like line must not turn it back into a success.
        if (Outcome == OperationStatus.Failed)
        {
            return;
        }

        End ??= at;
        Outcome = outcome;

        // "BACKUP DATABASE is terminating abnormally." ends a full and a differential backup alike; the error that refused
        // the command may name which it was (3035: a differential).
        if (outcome == OperationStatus.Failed && Scope is OperationScope.Database or null && FailureError is { } root && EngineMessageCatalog.ScopeOf(root.Number) is { } named)
        {
            Scope = named;
        }

        FailureReason = outcome == OperationStatus.Failed && FailureError is { } error && !EngineError.IsGeneric(error.Number)
            ? error.Number == EngineMessageCatalog.ClientTimedOut
                ? $"the client's command time-out: {error.Text}" + (reason is null ? string.Empty : $"{ClientStopThen}{reason}")
                : string.Create(System.Globalization.CultureInfo.InvariantCulture, $"Msg {error.Number}: {error.Text}")
            : reason ?? FailureReason;
    }

    // The first real error wins: 3013 ("... is terminating abnormally") always follows it and says nothing of why.
    private void NoteError(EngineError error)
    {
        if (error.Text is null || (FailureError is { } kept && (!EngineError.IsGeneric(kept.Number) || EngineError.IsGeneric(error.Number))))
        {
            return;
        }

        FailureError = new FailureErrorReport(error.Number, error.Severity, error.Text, StageNow() ?? StageOf(error.Number, error.Text))
        {
            OsError = OsError.Of(error.Number, error.Text) is { } os ? new OsErrorReport(os.Code, os.Text ?? OsError.MeaningOf(os.Code)) : null,
            Target = MessageTarget.In(error.Text),
        };
    }

    // What the input shows of the copy so far: its data phase, the client's per-file pages (printed once a file is copied)
    // and STATS percent lines.
    private CopyStage? StageNow()
    {
        var copied = Phases.BeginOf(DataPhase) is not null && Phases.EndOf(DataPhase, null) is not null;
        if (copied || Phases.BeginOf(OperationPhase.Upgrade) is not null || _processedFiles.Count > 0 || LastPercent == 100 || UpgradeSteps > 0)
        {
            return CopyStage.AfterCopy;
        }

        if (Phases.BeginOf(DataPhase) is not null || LastPercent is not null || PercentBytes is not null)
        {
            return CopyStage.DuringCopy;
        }

        // Nothing shown yet is no proof that nothing moved: a log without trace flags names no step.
        return null;
    }

    // Without progress in the input, errors whose nature places them: a device that cannot be opened or whose name is
    // refused, a media set or a log chain that does not fit are found before any data moves. A failed read or write of
    // the device may come at its first I/O or its last, so without progress it is not placed (realworld4 V05a failed at
    // position 0), except a backup to URL refused because its blob exists ("Backup cannot proceed").
    private static CopyStage? StageOf(int number, string? text) => number switch
    {
        3201 or 3078 or 3241 or 3266 or 4305 or 4326 or 18204 => CopyStage.BeforeCopy,

        // Refused by the database's state before anything is read: its recovery model, no full backup as a base, its
        // being recovered, in use, another database's backup, a tail not backed up, a system database's other version.
        4208 or 4214 or 3035 or 3117 or 3153 or 3101 or 3154 or 3159 or 3168 => CopyStage.BeforeCopy,

        // Refused at its permission check: the statement ran, nothing was opened.
        EngineMessageCatalog.PermissionDenied => CopyStage.BeforeCopy,
        3271 when EngineMessageCatalog.RefusesExistingBlob(text) => CopyStage.BeforeCopy,

        // The database could not be used (924, 916, 911): the work stopped before any BACKUP or RESTORE began.
        _ when EngineMessageCatalog.PreventsOperation(number) => CopyStage.NotStarted,
        _ => null,
    };

    private void AddDevice(string path)
    {
        if (!_devices.Exists(d => string.Equals(d, path, StringComparison.OrdinalIgnoreCase)))
        {
            _devices.Add(path);
        }
    }
}
