using System.Globalization;
using BackupXe.Core.Events;
using BackupXe.Core.Correlation;
using BackupXe.Core.Formatting;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Diagnosis;

/// <summary>
/// The rules of docs/diagnosis.md, in order: file zeroing (restores), too quick to matter, missing waits,
/// buffer starvation, backup device, read side (data files or compression CPU), no dominant wait.
/// Waits are read per thread, never against elapsed time alone: totals exceed elapsed (docs/backup-internals.md#buffer-count-against-waits).
/// </summary>
internal sealed class BottleneckRules(DiagnosisSettings settings)
{
    /// <summary>Below this BACKUPIO share the device threads are idle: the other side of the buffers is slow.</summary>
    private const double IdleDeviceShare = 0.20;

    public const string MissingWaits =
        "No waits were captured for this operation: install the BackupXe XE session (backupxe session install), "
        + "which adds sqlos.wait_info for BACKUPBUFFER and BACKUPIO, and run the operation again (recommendation capture-waits).";

    public const string MissingBufferConfig =
        "The buffer configuration was not captured: enable trace flag 3213 (with 3605 to write it to the errorlog) "
        + "or use the BackupXe XE session, whose backup_restore_progress_trace messages include it.";

    public const string MissingReadCeiling =
        "The read ceiling of the source is unknown: run a COPY_ONLY backup to NUL and compare its throughput with "
        + "this one (recommendation measure-read-ceiling).";

    public const string BufferBlockAlone =
        "A buffer configuration block (trace flag 3213) without the messages of its operation: the block is the same for a backup and a restore "
        + "and names no database, so which it was, of which database, how long it took and how fast it went cannot be told from this input; "
        + "what it shows is the buffers the server set up.";

    public Verdict Judge(OperationMeasures measures, FileZeroing zeroing)
    {
        if (JudgedByCause(measures))
        {
            return FailedVerdict(measures);
        }

        var verdict = JudgeEvidence(measures, zeroing);
        if (FailureReasons.Sentence(measures.Operation, measures.IsRestore) is { } failure)
        {
            verdict = verdict with { Evidence = [failure, .. verdict.Evidence] };
        }

        verdict = WeighStalls(measures, verdict);
        return EngineArithmetic.Sentence(measures.Operation.EngineSummary, EngineArithmetic.RoundedFiles(measures.Operation.ProcessedFiles)) is { } check
            ? verdict with { Evidence = [.. verdict.Evidence, check] }
            : verdict;
    }

    /// <summary>
    /// True for a failure judged by its cause: one that names a root error, or one of which nothing was measured. A run
    /// stopped with only the generic ending (a time-boxed tune trial is cancelled so) still shows in its phases and
    /// waits what limited the part that ran, and is judged on them with the failure said first.
    /// </summary>
    public static bool JudgedByCause(OperationMeasures measures)
        => measures.Operation.Status == OperationStatus.Failed
            && ((measures.Operation.FailureError is { } error && !Parsing.EngineError.IsGeneric(error.Number)) || (measures.TotalsOnly && !measures.HasWaits));

    // A failure is judged by its cause, never by a bottleneck: its time and rate are of a command that did not finish
    // (docs/diagnosis.md, "Failures").
    private static Verdict FailedVerdict(OperationMeasures measures)
    {
        var operation = measures.Operation;
        List<string> evidence = [FailureReasons.Sentence(operation, measures.IsRestore)!];
        if (FailureReasons.RemedySentence(operation) is { } remedy)
        {
            evidence.Add(remedy);
        }

        var specific = operation.FailureError is { } error && !Parsing.EngineError.IsGeneric(error.Number);
        return new Verdict(Bottleneck.Unknown, specific ? Confidence.High : Confidence.Low, evidence)
        {
            DecidedBy = specific ? "the failure's root error" : "the failure's generic ending alone",
            WouldChange = specific
                ? "Nothing of speed: a failed command is judged by its cause; once that is fixed, a completed run can be judged for its throughput."
                : "The error printed with the failure (the client's Msg lines, the Agent job step's output, the ERRORLOG's Error lines before it).",
        };
    }

    /// <summary>A stall's share of the whole operation from which the verdict drops one confidence step (docs/diagnosis.md, "Evidence rules").</summary>
    public const double StallShareLowersConfidence = 0.2;

    /// <summary>A stall's share from which the confidence is low: most of the time went where no byte moved, which the bottleneck rules do not explain.</summary>
    public const double StallShareDominates = 0.5;

    /// <summary>
    /// Stalls (no bytes moved in a phase that moves them) are said in the evidence with their share of the operation;
    /// the bottleneck stays what the moving time shows, but its confidence drops with the share the stalls took.
    /// </summary>
    private static Verdict WeighStalls(OperationMeasures measures, Verdict verdict)
    {
        var stalls = measures.Operation.QuietPeriods.Where(q => q.Kind == QuietKind.Stall).ToList();
        if (stalls.Count == 0)
        {
            return verdict;
        }

        var seconds = stalls.Sum(s => s.Seconds);
        var share = measures.DurationSeconds is { } duration && duration > 0 ? Math.Min(1, seconds / duration) : (double?)null;
        var ofDuration = share is { } s1 ? string.Create(CultureInfo.InvariantCulture, $", {s1:P0} of the operation's {Figures.Duration(measures.DurationSeconds)}") : string.Empty;
        var sentence = (stalls.Count == 1 ? "Stalled: " + QuietPeriodText.Describe(stalls[0]) : string.Create(CultureInfo.InvariantCulture, $"Stalled {stalls.Count} times, {Figures.Duration(seconds)} in all; the longest: {QuietPeriodText.Describe(stalls.MaxBy(s => s.Seconds)!)}"))
            + ofDuration
            + ". The bottleneck above is of the time bytes moved; what the operation waited on while stalled is the session's current wait then (sys.dm_exec_requests).";
        var confidence = share switch
        {
            >= StallShareDominates => Confidence.Low,
            >= StallShareLowersConfidence => verdict.Confidence == Confidence.High ? Confidence.Medium : Confidence.Low,
            _ => verdict.Confidence,
        };
        var dominant = share >= StallShareDominates;
        return verdict with
        {
            Confidence = confidence,
            Evidence = dominant ? [sentence, .. verdict.Evidence] : [.. verdict.Evidence, sentence],
            WouldChange = dominant ? "The wait during the stall: sys.dm_exec_requests' wait_type for the session while no bytes move." : verdict.WouldChange,
        };
    }

    private Verdict JudgeEvidence(OperationMeasures measures, FileZeroing zeroing)
    {
        if (measures.Operation.Snapshot is { } snapshot)
        {
            return SnapshotVerdict(measures, snapshot);
        }

        if (measures.DurationSeconds is not { } duration)
        {
            if (measures.KindUnknown)
            {
                return Unknown(measures, BufferBlockAlone) with
                {
                    DecidedBy = "a buffer configuration block on its own",
                    WouldChange = "The messages around the block: the ERRORLOG with trace flags 3213 and 3605 (3014 for a backup, 3004 for a restore), "
                        + "the client's messages with 3604, or BackupXe's XE session.",
                };
            }

            if (measures.TotalsOnly && QuickByTheClient(measures) is { } quick)
            {
                return quick;
            }

            return measures.TotalsOnly
                ? CannotTell(measures)
                : Unknown(measures, "The operation's duration is unknown: its start or end was not captured.") with
                {
                    DecidedBy = "missing start or end",
                    WouldChange = "The operation's first and last lines in the input (a log that covers it whole).",
                };
        }

        if (!measures.DurationIsLowerBound && OutsideTheOperation(measures, duration) is { } outside)
        {
            return outside;
        }

        if (NothingCopied(measures, duration) is { } nothingCopied)
        {
            return nothingCopied;
        }

        if (zeroing.Share >= settings.ZeroingShare)
        {
            return ZeroingVerdict(measures, zeroing);
        }

        if (InMemoryLoad(measures) is { } inMemory)
        {
            return inMemory;
        }

        if (!measures.DurationIsLowerBound && duration < settings.QuickOperationSeconds)
        {
            return NotAThroughputProblem(measures, duration);
        }

        if (UpgradeSeconds(measures) is { } upgrade && upgrade / duration >= UpgradeShare)
        {
            return UpgradeDominates(measures, upgrade);
        }

        if (measures.TotalsOnly)
        {
            return CannotTell(measures);
        }

        if (Ambiguous(measures.Operation) is { } ambiguous)
        {
            return Unknown(measures, ambiguous);
        }

        if (!measures.HasWaits)
        {
            return Unknown(measures, MissingWaitsFor(measures.Operation.Server));
        }

        var buffer = measures.Wait(BackupWaitTypes.BackupBuffer);
        var io = measures.Wait(BackupWaitTypes.BackupIo);
        if (buffer is null && io is null)
        {
            return Unknown(measures,
                "Waits were captured but no BACKUPBUFFER or BACKUPIO among them, although every backup and restore has them: "
                + "the session's wait_type predicate probably lacks them; re-create it with backupxe session install (recommendation capture-waits).");
        }

        return Judge(measures, new WaitShares(measures, buffer, io));
    }

    private Verdict ZeroingVerdict(OperationMeasures measures, FileZeroing zeroing)
    {
        // Shares of an operation cut short are of the time seen: the restore ran at least that long, so the
        // verdict holds unless the unseen rest (redo, recovery) was long enough to dilute the zeroing below the threshold.
        var confidence = zeroing.Share >= 0.5 ? Confidence.High : Confidence.Medium;
        var evidence = new List<string>
        {
            $"File zeroing took {Figures.Percent(zeroing.Share)} of the {measures.DurationPhrase} (threshold {Figures.Percent(settings.ZeroingShare)}).",
        };
        evidence.AddRange(zeroing.Evidence);
        string wouldChange;
        if (measures.DurationIsLowerBound)
        {
            var unseen = (zeroing.Seconds / settings.ZeroingShare) - measures.DurationSeconds!.Value;
            evidence.Add($"The input ends before the restore's closing line: the restore ran at least {Figures.Seconds(measures.DurationSeconds.Value)}, and the phases seen are timed.");
            wouldChange = $"Zeroing would fall below {Figures.Percent(settings.ZeroingShare)} only if the restore ran more than {Figures.Seconds(Math.Max(0, unseen))} past its last line (redo, recovery): the log of the whole restore settles it.";
        }
        else
        {
            wouldChange = zeroing.DataZeroed
                ? "Instant File Initialization (data files are then not zeroed) and a log sized to need: with zeroing under the threshold, the waits decide."
                : "A smaller log file (the log is always zeroed): with zeroing under the threshold, the waits decide.";
        }

        return new Verdict(Bottleneck.FileZeroing, confidence, evidence)
        {
            DecidedBy = zeroing.DecidedBy ?? "file zeroing",
            WouldChange = wouldChange,
        };
    }

    /// <summary>
    /// A restore's recovery waiting for the In-Memory OLTP engine to load the memory-optimized data into memory
    /// (WAIT_XTP_RECOVERY). Microsoft docs, "Restore and recovery of memory-optimized tables": the load time is set by
    /// the amount of data, sequential I/O bandwidth, the containers and cores (parallelism) and the log to redo.
    /// </summary>
    private Verdict? InMemoryLoad(OperationMeasures measures)
    {
        if (!measures.IsRestore || measures.DurationSeconds is not > 0 || measures.Wait(BackupWaitTypes.XtpRecovery) is null && measures.Wait(BackupWaitTypes.WaitXtpRecovery) is null)
        {
            return null;
        }

        var waits = new[] { measures.Wait(BackupWaitTypes.XtpRecovery), measures.Wait(BackupWaitTypes.WaitXtpRecovery) }.OfType<WaitReport>().ToList();
        var phase = measures.Operation.Phases.FirstOrDefault(p => p.Name == Kebab.Of(OperationPhase.InMemoryLoad) && p.Seconds > 0);

        // The phase is the waits' wall-clock span; without timestamps their total, which cannot exceed the restore.
        var seconds = Math.Min(phase?.Seconds ?? waits.Sum(w => w.TotalMs) / 1000.0, measures.DurationSeconds.Value);
        var share = seconds / measures.DurationSeconds.Value;
        if (share < settings.InMemoryLoadShare)
        {
            return null;
        }

        var count = waits.Sum(w => w.Count);
        var evidence = new List<string>
        {
            $"Loading the memory-optimized data took {Figures.Seconds(seconds)} ({Figures.Percent(share)} of the {measures.DurationPhrase}, threshold {Figures.Percent(settings.InMemoryLoadShare)}): "
                + $"{Figures.Plural(count, "WAIT_XTP_RECOVERY wait", "WAIT_XTP_RECOVERY waits")}, the restore's recovery waiting for the In-Memory OLTP engine to read the checkpoint file pairs into memory and redo their log tail.",
            "That load is set by the memory-optimized data to read, the sequential read speed of the filegroup's containers, how many containers and cores load in parallel, "
                + "and the log records to redo (Microsoft docs, \"Restore and recovery of memory-optimized tables\"); BUFFERCOUNT, MAXTRANSFERSIZE and the backup device do not touch it, "
                + "and the database is not available until it ends.",
        };
        evidence.AddIfNotNull(Throughput(measures));
        return new Verdict(Bottleneck.InMemoryLoad, share >= 0.5 ? Confidence.High : Confidence.Medium, evidence)
        {
            DecidedBy = phase is null ? "WAIT_XTP_RECOVERY waits" : "the in-memory-load phase (WAIT_XTP_RECOVERY waits)",
            WouldChange = "Less to load or faster loading: containers on more volumes, faster sequential reads, more cores, or a shorter log tail "
                + "(a manual CHECKPOINT before the backup checkpoints the memory-optimized tables too); with the load under the threshold, the copy and the waits decide.",
        };
    }

    /// <summary>
    /// The client waited far longer than the server worked: a restore done in seconds inside a command of minutes is
    /// not a restore problem (docs/diagnosis.md, evidence rules). Needs the client's own span (Ola Hallengren's output).
    /// </summary>
    private Verdict? OutsideTheOperation(OperationMeasures measures, double server)
    {
        if (measures.Operation.ClientCommand is not { } client || client.Seconds <= 0)
        {
            return null;
        }

        var outside = client.Seconds - server;
        var share = outside / client.Seconds;
        if (outside < settings.OutsideOperationSeconds || share < settings.OutsideOperationShare)
        {
            return null;
        }

        var noun = measures.Noun;
        var timed = measures.Operation.Start is null && measures.Operation.EngineSummary is not null
            ? "the engine's own figure"
            : "from its first line to its last";
        var evidence = new List<string>
        {
            $"The {noun} took {Figures.Seconds(server)} on the server ({timed}) while the client's command took {ClientSeconds(client.Seconds)} "
                + $"({client.Source}: {client.Start.ToString("HH:mm:ss", System.Globalization.CultureInfo.InvariantCulture)} to "
                + $"{client.End.ToString("HH:mm:ss", System.Globalization.CultureInfo.InvariantCulture)}): "
                + $"{Figures.Seconds(outside)} ({Figures.Percent(share)}) of it was spent outside the {noun}.",
            $"That time went before the {noun} began or after it ended: waiting for a lock or for {(measures.IsRestore ? "RESTORE's exclusive access to the database" : "the database's backup lock (another backup or a file operation)")}, "
                + $"the job's scheduling, or steps after it such as verification, a file copy or the job's other commands. No BUFFERCOUNT, MAXTRANSFERSIZE or device would shorten it.",
        };
        evidence.AddIfNotNull(Throughput(measures));
        return new Verdict(Bottleneck.OutsideTheOperation, share >= 0.8 ? Confidence.High : Confidence.Medium, evidence)
        {
            DecidedBy = "the client's span against the server's operation",
            WouldChange = $"A client span close to the {noun}'s own time: the {noun} is then judged on its phases and waits. "
                + "To see what the command waited for, watch its session while it runs (sys.dm_exec_requests: wait_type, blocking_session_id).",
        };
    }

    /// <summary>"605.0 s, 00:10:05": the client's clock counts whole seconds, and job output prints them so.</summary>
    private static string ClientSeconds(double seconds)
    {
        var whole = TimeSpan.FromSeconds(Math.Round(seconds));
        return $"{Figures.Seconds(seconds)}, {(int)whole.TotalHours:00}:{whole.Minutes:00}:{whole.Seconds:00}";
    }

    /// <summary>A few seconds: fixed steps (media, checkpoint, metadata) weigh as much as the data (S05: 190 MB in 0.7-1.4 s).</summary>
    private Verdict NotAThroughputProblem(OperationMeasures measures, double duration)
    {
        var size = measures.Operation.BytesProcessed is { } bytes ? $" for {Figures.Memory(bytes)}" : "";
        var evidence = new List<string>
        {
            $"The {measures.Noun} took {Figures.PreciseSeconds(duration)}{size}: below {Figures.Seconds(settings.QuickOperationSeconds)}, too quick for tuning to matter; "
                + "its fixed steps (opening the media, checkpoint, metadata) weigh as much as the data it moves.",
        };
        evidence.AddIfNotNull(Throughput(measures));
        return new Verdict(Bottleneck.NotAThroughputProblem, Confidence.Medium, evidence)
        {
            DecidedBy = "duration",
            WouldChange = $"A run of {Figures.Seconds(settings.QuickOperationSeconds)} or more (a bigger database or a slower target) is judged on its phases and waits.",
        };
    }

    /// <summary>
    /// The server's operation lies inside the client's command, so the client's span, rounded up to its clock's
    /// resolution, bounds it from above: below the quick threshold it is no throughput problem even with no server time
    /// (realworld4 V24: dbatools' Start and End in the same second).
    /// </summary>
    private Verdict? QuickByTheClient(OperationMeasures measures)
    {
        if (measures.Operation is not { Status: Reporting.OperationStatus.Completed, ClientCommand: { } client }
            || client.Seconds < 0 || client.Seconds + client.ResolutionSeconds >= settings.QuickOperationSeconds)
        {
            return null;
        }

        var bound = client.Seconds + client.ResolutionSeconds;
        var size = measures.Operation.BytesProcessed is { } bytes ? $" ({Figures.Memory(bytes)} recorded)" : "";
        return new Verdict(Bottleneck.NotAThroughputProblem, Confidence.Medium,
            [$"The {measures.Noun}{size} took under {Figures.Seconds(bound)} by {client.Source} ({Figures.Duration(client.Seconds)} on a clock of "
                + $"{Figures.Seconds(client.ResolutionSeconds)} resolution), an upper bound of its time: below {Figures.Seconds(settings.QuickOperationSeconds)}, "
                + "too quick for tuning to matter, whatever it moved."])
        {
            DecidedBy = "the client's span as an upper bound",
            WouldChange = $"A run of {Figures.Seconds(settings.QuickOperationSeconds)} or more (a bigger database or a slower target) is judged on its phases and waits.",
        };
    }

    /// <summary>
    /// A snapshot backup: the storage copies the files while the database's writes are frozen, and SQL Server writes
    /// only the backup's metadata. Its pages and MB/s (0 pages in 0.027 s; or, in the ERRORLOG and msdb, the whole
    /// database's size in no time) describe no copy, so it is never judged by them; what users feel is the freeze.
    /// </summary>
    private Verdict SnapshotVerdict(OperationMeasures measures, SnapshotReport snapshot)
    {
        var operation = measures.Operation;
        var database = operation.Database is { } name ? $" of {name}" : "";
        var method = snapshot.Method == "t-sql"
            ? "a T-SQL snapshot backup (ALTER DATABASE ... SET SUSPEND_FOR_SNAPSHOT_BACKUP = ON, the storage's snapshot, then BACKUP ... WITH METADATA_ONLY)"
            : "a VSS snapshot backup (the database frozen while a VSS requestor had the volume's snapshot taken)";
        var evidence = new List<string>
        {
            $"This backup{database} is {method}: the storage copied the data, SQL Server wrote only the backup's metadata. "
                + "Its pages and rate describe no copy: 0 MB/s is not slow, and a whole database's size in no time (the ERRORLOG's \"pages dumped\", msdb's size) is not fast.",
        };
        var confidence = Confidence.High;
        string decidedBy;
        if (snapshot.FrozenSeconds is { } frozen)
        {
            var window = $"I/O on {operation.Database ?? "the database"} was frozen from {snapshot.FrozenAt!.Value.ToString("HH:mm:ss.fff", System.Globalization.CultureInfo.InvariantCulture)} to {snapshot.ResumedAt!.Value.ToString("HH:mm:ss.fff", System.Globalization.CultureInfo.InvariantCulture)}: {Figures.Seconds(frozen)}";
            evidence.Add(frozen >= settings.SnapshotFreezeSeconds
                ? $"{window}. Writes stalled for {Figures.Seconds(frozen)} (threshold {Figures.Seconds(settings.SnapshotFreezeSeconds)}): every write and commit of the database waited that long; the storage's snapshot, or the requestor between freeze and thaw, is what to look at."
                : $"{window}, below {Figures.Seconds(settings.SnapshotFreezeSeconds)}: a freeze users barely feel.");
            decidedBy = "the snapshot's freeze";
        }
        else
        {
            evidence.Add("The freeze cannot be measured from this input: it holds no timed pair of \"I/O is frozen\" and \"I/O was resumed\" lines for this backup (the whole ERRORLOG of that time has them).");
            confidence = Confidence.Medium;
            decidedBy = "a snapshot backup";
        }

        return new Verdict(Bottleneck.NotAThroughputProblem, confidence, evidence)
        {
            DecidedBy = decidedBy,
            WouldChange = "Nothing about throughput: a snapshot backup is judged by its freeze, which the ERRORLOG times (\"I/O is frozen\" to \"I/O was resumed\").",
        };
    }

    /// <summary>
    /// A completed restore of 0 pages copied nothing: RESTORE ... WITH RECOVERY after a sequence restored WITH NORECOVERY,
    /// whose whole time is recovery, and the upgrade when the database came from an older version (real-world T09b:
    /// 0 pages in 289.8 s after the upgrade steps, 11 of them printed). Its 0 MB/s is no copy rate, and no backup option shortens it.
    /// </summary>
    private static Verdict? NothingCopied(OperationMeasures measures, double duration)
    {
        var operation = measures.Operation;
        if (!measures.IsRestore || operation.Status != OperationStatus.Completed || operation.EngineSummary is not { Pages: 0 }
            || operation.ProcessedFiles.Any(f => f.Pages > 0))
        {
            return null;
        }

        var steps = operation.UpgradeSteps;
        var upgrade = $"the upgrade of the database from an older version ({UpgradeStepsText.Of(steps, operation.UpgradeGaps)}) and recovery";
        var evidence = new List<string>
        {
            steps > 0
                ? $"The restore copied no data (0 pages): all of its {Figures.Seconds(duration)} went to {upgrade}, none to copying; "
                    + "its 0 MB/s is not a copy rate, and no BUFFERCOUNT, MAXTRANSFERSIZE or device changes it."
                : $"The restore copied no data (0 pages): its {Figures.Seconds(duration)} went to something other than copying, recovery (RESTORE ... WITH RECOVERY) "
                    + "or attaching a storage snapshot's files (RESTORE ... WITH METADATA_ONLY), which the output does not tell apart; "
                    + "its 0 MB/s is not a copy rate, and no BUFFERCOUNT, MAXTRANSFERSIZE or device changes it.",
        };
        if (duration >= 60)
        {
            evidence.Add($"{Figures.Seconds(duration)} is long for work that moves no data: recovery and upgrade read and write the database's own files, so their storage sets the pace.");
        }

        return new Verdict(Bottleneck.NotAThroughputProblem, Confidence.High, evidence)
        {
            DecidedBy = "no data copied",
            WouldChange = "A restore that copies data is judged on its copy; this one's time is the database's recovery"
                + (steps > 0 ? " and upgrade (a backup taken on the current version has nothing to upgrade)." : "."),
        };
    }

    /// <summary>From this share of the restore in upgrade steps, the copy is not what the time went into.</summary>
    private const double UpgradeShare = 0.5;

    private static double? UpgradeSeconds(OperationMeasures measures) =>
        measures.IsRestore
            ? measures.Operation.Phases.Where(p => p.Name == Kebab.Of(OperationPhase.Upgrade) && p.Seconds > 0).Sum(p => p.Seconds) is > 0 and var s ? s : null
            : null;

    /// <summary>
    /// SQL Server 2022+ upgrades a database restored from an older version after its data copy ("Converting database
    /// ...", one "running the upgrade step" line per version): time no backup option can shorten.
    /// </summary>
    private static Verdict UpgradeDominates(OperationMeasures measures, double seconds)
    {
        var steps = measures.Operation.UpgradeSteps;
        var evidence = new List<string>
        {
            $"The upgrade after the data copy took {Figures.Seconds(seconds)} ({Figures.Percent(seconds / measures.DurationSeconds!.Value)} of the {measures.DurationPhrase})"
                + (steps > 0 ? $", {UpgradeStepsText.Of(steps, measures.Operation.UpgradeGaps)}." : "."),
            "The database came from an older SQL Server version: each restore of it upgrades it again, whatever BUFFERCOUNT, MAXTRANSFERSIZE or the device.",
        };
        evidence.AddIfNotNull(Throughput(measures));
        return new Verdict(Bottleneck.NotAThroughputProblem, Confidence.High, evidence)
        {
            DecidedBy = "the upgrade phase",
            WouldChange = "A backup taken on the current version (nothing to upgrade): its restore is then judged on the copy itself.",
        };
    }

    /// <summary>Only totals (default logging, client output): phases cannot be separated, so say what to capture.</summary>
    private static Verdict CannotTell(OperationMeasures measures)
    {
        var operation = measures.Operation;
        var evidence = new List<string>
        {
            $"Only the {measures.Noun}'s totals are in the input (start, completion or history lines, or the client's summary): "
                + "no phase, zeroing, buffer or wait is timed, so where the time went cannot be told.",
        };
        if (operation.DurationSeconds is null && operation.ClientCommand is { } client)
        {
            evidence.Add($"Its time is the client's only: {Figures.Duration(client.Seconds)} ({client.Source}), the command's whole span, with no step of the server's in it.");
        }
        else if (operation.DurationSeconds is null && operation.MinimumDurationSeconds is null)
        {
            evidence.Add($"Its start is not in the input either: the {measures.Noun}'s duration is unknown.");
        }
        else if (operation.DurationSeconds is null && operation.MinimumDurationSeconds is { } minimum)
        {
            evidence.Add($"Its start is not logged: it ran at least {Figures.Seconds(minimum)}, from its first line in the input to its last.");
        }

        if (operation.EngineSummary is { } summary)
        {
            evidence.Add(measures.IsRestore
                ? $"The engine's figure, {Figures.AsPrinted(summary.Pages)} pages in {Figures.Seconds(summary.Seconds)} ({Figures.Rate(summary.MegabytesPerSecond)}), covers the whole restore: creating and zeroing its files and recovering the database are inside those seconds, so its MB/s is the pages over all of that time, not the copy's own rate (docs/backup-internals.md, 'Completion lines')."
                : $"The engine's figure: {Figures.AsPrinted(summary.Pages)} pages in {Figures.Seconds(summary.Seconds)} ({Figures.Rate(summary.MegabytesPerSecond)}).");
        }

        evidence.Add(CaptureAdvice(measures.IsRestore, operation.Server));
        return new Verdict(Bottleneck.CannotTell, Confidence.Low, evidence)
        {
            DecidedBy = "totals only",
            WouldChange = $"A capture of the {measures.Noun}'s steps (trace flag {(measures.IsRestore ? "3004" : "3014")} with 3605, or the XE session): its phases and waits then decide.",
        };
    }

    /// <summary>Exactly what to capture next time (docs/diagnosis.md, evidence rules).</summary>
    /// <param name="server">The input's server when it said it: one before SQL Server 2016 is offered the trace flags alone.</param>
    public static string CaptureAdvice(bool restore, ServerVersion? server)
    {
        var flags = restore
            ? "Capture the next restore with trace flags 3004 and 3605 (steps and zeroing into the errorlog; add 3213 for the buffer configuration)"
            : "Capture the next backup with trace flags 3014, 3213 and 3605 (steps and buffer configuration into the errorlog)";
        return server is { HasProgressTrace: false }
            ? $"{flags}: {server.Product} has no backup_restore_progress_trace, so BackupXe's XE session cannot run there (recommendation capture-trace-flags)."
            : $"{flags}, or with the BackupXe XE session (backupxe session install, SQL Server 2016 and later), which adds the waits (recommendation capture-trace-flags).";
    }

    /// <summary>
    /// What to say when no waits were captured: install the session, or, for a server before SQL Server 2016, that the
    /// session cannot run there and what the trace flags give instead.
    /// </summary>
    public static string MissingWaitsFor(ServerVersion? server) => server is { HasProgressTrace: false }
        ? $"No waits were captured for this operation, and its server, {server.Product} (from {server.Evidence}), predates BackupXe's XE session (SQL Server 2016 and later), "
            + "so no capture BackupXe reads gives its waits: the steps and the buffer configuration (trace flags 3004 or 3014 with 3213 and 3605, recommendation capture-trace-flags) are what can be had."
        : MissingWaits;

    private Verdict Judge(OperationMeasures measures, WaitShares waits)
    {
        var bufferSentence = measures.BufferMemorySentence();
        var buffersSmall = measures.BuffersSmall(settings);
        var context = measures.Assumptions().Prepend(waits.ElapsedSentence).ToList();

        // Many short BACKUPBUFFER waits with small buffers: both sides wait for buffers in turn (docs/backup-internals.md#buffer-count-against-waits, test 1).
        var manyShortBufferWaits = waits.BufferShare >= settings.BufferWaitShare && waits.BufferAverageMs <= settings.ShortBufferWaitMs;
        if (manyShortBufferWaits && buffersSmall != false)
        {
            var evidence = new List<string> { waits.BufferSentence! };
            evidence.Add(bufferSentence is null
                ? MissingBufferConfig
                : $"{bufferSentence[..^1]}: small, below {Figures.Memory(settings.SmallBufferMemoryPerDeviceBytes)} per device.");
            evidence.AddIfNotNull(waits.IoSentence);
            evidence.AddRange(context);
            if (BufferPlan.Propose(measures, settings, settings.TargetBuffersPerDevice) is null)
            {
                evidence.Add("The buffers cannot be raised: MAXTRANSFERSIZE is at its 4 MB ceiling or the memory limit/budget leaves no room.");
            }

            return new Verdict(Bottleneck.BufferStarved, buffersSmall == true ? Confidence.High : Confidence.Medium, evidence)
            {
                DecidedBy = "waits: many short BACKUPBUFFER waits with small buffers",
                WouldChange = "A run with more buffer memory: if BACKUPBUFFER waits stay, the device or the data files decide instead.",
            };
        }

        if (waits.IoShare >= settings.DeviceWaitShare && !measures.IsNulBackup)
        {
            var evidence = new List<string> { waits.IoSentence! };
            evidence.AddIfNotNull(waits.BufferSentence);
            evidence.Add(bufferSentence is null
                ? MissingBufferConfig
                : buffersSmall == true
                    ? $"{bufferSentence[..^1]}: small, so more buffers may help as well."
                    : $"{bufferSentence[..^1]}: plentiful, more would not help (docs/backup-internals.md, 'Buffer count against waits', tests 4-5).");
            evidence.AddIfNotNull(Throughput(measures));
            evidence.AddRange(context);
            var confidence = buffersSmall == false ? Confidence.High : Confidence.Medium;
            return new Verdict(Bottleneck.BackupDevice, confidence, evidence)
            {
                DecidedBy = "waits: BACKUPIO share of each device thread",
                WouldChange = "A COPY_ONLY backup to NUL as fast as this one would point at the data files instead.",
            };
        }

        if (waits.BufferShare >= settings.BufferWaitShare)
        {
            return waits.IoShare < IdleDeviceShare || measures.IsNulBackup
                ? ReadSide(measures, waits, context)
                : new Verdict(Bottleneck.BackupDevice, Confidence.Low, [
                    waits.IoSentence!,
                    waits.BufferSentence!,
                    $"Neither dominates: the device threads are busy {Figures.Percent(waits.IoShare)} of the time and the buffers wait long, "
                        + "which most often means a shared or slow destination (docs/backup-internals.md, 'Buffer count against waits', tests 6-7: two files on one disk).",
                    .. context,
                ])
                {
                    DecidedBy = "waits: BACKUPBUFFER and BACKUPIO both high",
                    WouldChange = "Stripes on separate volumes: if BACKUPIO per writer then drops, the destination was shared.",
                };
        }

        var quiet = new List<string>
        {
            $"No dominant wait: BACKUPBUFFER {Figures.Percent(waits.BufferShare)} of each thread's time, "
                + $"BACKUPIO {Figures.Percent(waits.IoShare)} of each {measures.DeviceThreadRole(false)}'s time.",
        };
        quiet.AddIfNotNull(Throughput(measures));
        quiet.AddRange(context);
        return new Verdict(Bottleneck.None, Confidence.Medium, quiet)
        {
            DecidedBy = "waits: none dominant",
            WouldChange = "BACKUPBUFFER or BACKUPIO waits above their thresholds in another run.",
        };
    }

    /// <summary>The device threads idle while the buffers wait: data files or compression feed them too slowly.</summary>
    private Verdict ReadSide(OperationMeasures measures, WaitShares waits, List<string> context)
    {
        var evidence = new List<string>
        {
            measures.DeviceThreads == 1
                ? $"The {measures.DeviceThreadRole(false)} is mostly idle: BACKUPIO took {Figures.Percent(waits.IoShare)} of its time."
                : $"The {measures.DeviceThreadRole(true)} are mostly idle: BACKUPIO took {Figures.Percent(waits.IoShare)} of each one's time.",
            waits.BufferSentence!,
        };
        evidence.AddIfNotNull(Throughput(measures));
        if (measures.IsNulBackup)
        {
            evidence.Add("This backup wrote to NUL: its throughput is the read ceiling of the source.");
        }

        var compression = measures.Operation.Options?.Compression;
        var signal = SignalShare(measures.Operation.Waits);
        if (compression == true && signal.Share >= settings.SignalWaitShare)
        {
            evidence.Add($"Compression is on and the CPUs are queueing: signal time was {Figures.Percent(signal.Share)} of all wait time "
                + $"({Figures.Seconds(signal.SignalMs / 1000.0)} of {Figures.Seconds(signal.TotalMs / 1000.0)}; threshold {Figures.Percent(settings.SignalWaitShare)}).");
            evidence.AddRange(context);
            return new Verdict(Bottleneck.CompressionCpu, Confidence.Medium, evidence)
            {
                DecidedBy = "waits: idle device threads and CPU queueing with compression on",
                WouldChange = "A NUL backup without compression no faster than with it would rule compression CPU out.",
            };
        }

        evidence.Add(compression switch
        {
            true => $"Compression is on but signal time was only {Figures.Percent(signal.Share)} of wait time: "
                + "compression CPU cannot be ruled out; compare NUL backups with and without it (test-without-compression).",
            false => "Compression is off: the time goes into reading the data files.",
            null => "Whether compression was on is unknown: compression CPU cannot be ruled out.",
        });
        evidence.Add(measures.DataFileThreadsAssumed
            ? "The number of data file threads was not captured: 1 assumed (one per volume)."
            : $"{Figures.Plural(measures.DataFileThreads, measures.DataFileThreadRole(false), measures.DataFileThreadRole(true))} (one per volume).");
        if (!measures.IsNulBackup && !measures.IsRestore)
        {
            evidence.Add(MissingReadCeiling);
        }

        evidence.AddRange(context.Where(line => !line.StartsWith("The number of data file threads", StringComparison.Ordinal)));
        return new Verdict(Bottleneck.DataFileRead, compression == false ? Confidence.Medium : Confidence.Low, evidence)
        {
            DecidedBy = "waits: idle device threads",
            WouldChange = "A COPY_ONLY backup to NUL much faster than this one would point at the destination instead.",
        };
    }

    /// <summary>
    /// The sentence for an operation whose waits could not be separated from those of operations running at
    /// the same time, or null when its own waits are enough to judge it.
    /// </summary>
    private string? Ambiguous(OperationReport operation)
    {
        if (operation.AmbiguousWaits == 0)
        {
            return null;
        }

        var own = operation.Waits.Sum(w => w.Count);
        var share = (double)operation.AmbiguousWaits / (operation.AmbiguousWaits + own);
        if (share < settings.AmbiguousWaitShare)
        {
            return null;
        }

        return $"Ambiguous: {operation.AmbiguousWaits} of the {operation.AmbiguousWaits + own} waits seen while this operation ran "
            + $"({Figures.Percent(share)}) carried no session_id and ended while other operations ran too; BackupXe could not separate them, "
            + "so it names no bottleneck. Add the session_id action to sqlos.wait_info (the session backupxe session install creates does) "
            + "or run the operation alone to tie its waits to it.";
    }

    private Verdict Unknown(OperationMeasures measures, string missing)
    {
        var evidence = new List<string> { missing };
        if (measures.DurationIsLowerBound)
        {
            evidence.Add($"The input ends before the {measures.Noun}'s closing line: it ran at least {Figures.Seconds(measures.DurationSeconds!.Value)}.");
        }

        var missingWaits = MissingWaitsFor(measures.Operation.Server);
        if (missing != missingWaits && !measures.HasWaits && !missing.StartsWith("Ambiguous", StringComparison.Ordinal))
        {
            evidence.Add(missingWaits);
        }

        if (measures.BufferMemorySentence() is { } buffers)
        {
            evidence.Add(measures.BuffersSmall(settings) == true
                ? $"{buffers[..^1]}: small, but without waits it cannot be shown to be the limit."
                : buffers);
        }
        else
        {
            evidence.Add(MissingBufferConfig);
        }

        if (!measures.IsRestore && !measures.IsNulBackup && !measures.KindUnknown)
        {
            evidence.Add(MissingReadCeiling);
        }

        evidence.AddIfNotNull(Throughput(measures));
        return new Verdict(Bottleneck.Unknown, Confidence.Low, evidence)
        {
            DecidedBy = "missing evidence",
            // Not the missing sentence again: it is the first line of the evidence, printed just above.
            WouldChange = $"What the first line says is missing: with it, the {measures.Noun}'s phases and waits decide.",
        };
    }

    private static string? Throughput(OperationMeasures measures) =>
        (measures.Operation.DataCopyThroughputMBps ?? measures.Operation.ThroughputMBps) is { } rate
            ? $"Throughput: {Figures.Rate(rate)}."
            : null;

    /// <summary>Signal time = waiting for a CPU after the resource was free: CPU queueing (docs/backup-internals.md#events-to-capture).</summary>
    private static (double Share, long SignalMs, long TotalMs) SignalShare(IReadOnlyList<WaitReport> waits)
    {
        var total = waits.Sum(wait => wait.TotalMs);
        var signal = waits.Sum(wait => wait.SignalMs);
        return (total > 0 ? signal / (double)total : 0, signal, total);
    }
}

internal static class EvidenceListExtensions
{
    public static void AddIfNotNull(this List<string> evidence, string? sentence)
    {
        if (sentence is not null)
        {
            evidence.Add(sentence);
        }
    }
}
