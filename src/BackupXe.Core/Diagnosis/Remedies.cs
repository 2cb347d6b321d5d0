using BackupXe.Core.Events;
using BackupXe.Core.Correlation;
using BackupXe.Core.Formatting;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Diagnosis;

/// <summary>
/// The first remedies of docs/backup-internals.md#bottleneck-classes-and-remedies, each as a <see cref="Recommendation"/> with runnable T-SQL for the
/// operation's own database and devices. docs/diagnosis.md says when each one fires.
/// </summary>
internal sealed class Remedies(DiagnosisSettings settings)
{
    public IReadOnlyList<Recommendation> For(OperationMeasures measures, Verdict verdict, FileZeroing zeroing)
    {
        // A failed command is fixed by its cause (the failure's remedy, docs/diagnosis.md, "Failures"), not by tuning or capturing its throughput.
        if (BottleneckRules.JudgedByCause(measures))
        {
            return [];
        }

        var list = new List<Recommendation?>();
        var restore = measures.IsRestore;

        // What the input's own server can run: no XE session before 2016, no COMPRESSION option before 2008.
        var server = measures.Operation.Server;
        var beforeProgressTrace = server is { HasProgressTrace: false };
        var hasCompression = server is not { Major: < ServerVersion.FirstWithCompression };

        // A backup to NUL is harmless only with COPY_ONLY (SQL Server 2005 on): without it, it resets the differential base.
        var hasCopyOnly = server is not { Major: < ServerVersion.FirstWithCopyOnly };
        switch (verdict.Bottleneck)
        {
            case Bottleneck.BufferStarved:
                list.Add(RaiseBuffers(measures));
                break;
            case Bottleneck.BackupDevice:
                if (measures.BuffersSmall(settings) == true)
                {
                    list.Add(RaiseBuffers(measures));
                }

                if (!restore)
                {
                    list.Add(StripeDevices(measures));
                    list.Add(measures.Operation.Options?.Compression == true || !hasCompression ? null : EnableCompression(measures));
                    list.Add(BlockSize(measures));
                    list.Add(verdict.Confidence == Confidence.High || !hasCopyOnly ? null : MeasureReadCeiling(measures));
                }

                break;
            case Bottleneck.DataFileRead:
                list.Add(SpreadDataFiles(measures));
                list.Add(restore || measures.IsNulBackup || !hasCopyOnly ? null : MeasureReadCeiling(measures));
                list.Add(!restore && hasCompression && measures.Operation.Options?.Compression != false ? TestWithoutCompression(measures) : null);
                break;
            case Bottleneck.CompressionCpu:
                list.Add(hasCompression ? TestWithoutCompression(measures) : null);
                list.Add(CompressionAlgorithm(measures));
                break;
            case Bottleneck.FileZeroing:
                var unsure = !zeroing.DataZeroed && !zeroing.LogZeroed;
                list.Add(zeroing.DataZeroed || unsure ? InstantFileInitialization(measures, zeroing) : null);
                list.Add(zeroing.LogZeroed || unsure ? RightSizeLog(measures, zeroing) : null);
                list.Add(RestoreOverExisting(measures, zeroing));
                break;
            case Bottleneck.Unknown:
                // Before 2016 nothing BackupXe reads gives the waits: the flags are offered only for what this input lacks.
                list.Add(!NeedsWaits(measures) ? null : !beforeProgressTrace ? CaptureWaits() : LacksTraceFlagOutput(measures) ? CaptureTraceFlags(measures) : null);
                list.Add(restore || measures.IsNulBackup || measures.KindUnknown || !hasCopyOnly ? null : MeasureReadCeiling(measures));
                break;
            case Bottleneck.CannotTell:
                list.Add(CaptureTraceFlags(measures));
                list.Add(NeedsWaits(measures) && !beforeProgressTrace ? CaptureWaits() : null);
                break;
            case Bottleneck.None:
            case Bottleneck.NotAThroughputProblem:
            case Bottleneck.OutsideTheOperation:
            case Bottleneck.InMemoryLoad:
            default:
                break;
        }

        // docs/backup-internals.md#a-10-gb-database-on-a-san: MAXTRANSFERSIZE 4 MB halved a restore run with defaults; whatever else limits it.
        if (restore && verdict.Bottleneck is not (Bottleneck.None or Bottleneck.FileZeroing or Bottleneck.NotAThroughputProblem or Bottleneck.CannotTell or Bottleneck.OutsideTheOperation or Bottleneck.InMemoryLoad)
            && list.All(r => r?.Id != RecommendationIds.RaiseBuffers))
        {
            list.Add(RestoreMaxTransferSize(measures));
        }

        return list.OfType<Recommendation>().ToList();
    }

    /// <summary>
    /// Trace flags 3004 (restore steps and zeroing), 3014 (backup steps), 3213 (buffer configuration) and 3605 (write
    /// them to the errorlog): the only step-level record before SQL Server 2016, and what default logging lacks (S12).
    /// For an input whose server is older than 2016 it is the whole capture, said for that server.
    /// </summary>
    private static Recommendation CaptureTraceFlags(OperationMeasures measures)
    {
        var flags = measures.IsRestore ? "3004, 3213, 3605" : "3014, 3213, 3605";
        var server = measures.Operation.Server;
        string text;
        if (server is { HasProgressTrace: false })
        {
            text = $"This server is {server.Described}, older than SQL Server 2016: it has no backup_restore_progress_trace event, "
                + $"so BackupXe's session cannot run there. Capture the next {measures.Noun} with trace flags {flags}: "
                + (measures.IsRestore ? "3004 writes the restore's steps and file zeroing, " : "3014 writes the backup's steps, ")
                + "3213 the buffer configuration, and 3605 sends them to the errorlog with their times, which backupxe analyze reads. "
                + "3604 instead would print them to the client's messages, which carry no times, so the phases could not be timed. "
                + "The waits are not in this capture.";
        }
        else
        {
            text = BottleneckRules.CaptureAdvice(measures.IsRestore, server)
                .Replace(" (recommendation capture-trace-flags)", "", StringComparison.Ordinal);
        }

        text += " The flags are global (-1) and write to the errorlog until turned off: turn them off after the run.";
        var tsql = $"-- before the next {measures.Noun}: its steps{(measures.IsRestore ? ", file zeroing" : "")} and buffer configuration into the errorlog\n"
            + $"DBCC TRACEON ({flags}, -1);\n"
            + $"-- run the {measures.Noun.ToUpperInvariant()}, then:\n"
            + $"DBCC TRACEOFF ({flags}, -1);\n"
            + "-- read them back: EXEC sys.xp_readerrorlog 0, 1; or analyze the ERRORLOG file with backupxe";
        return new Recommendation(RecommendationIds.CaptureTraceFlags, text, tsql)
        {
            ExpectedGain = ExpectedGains.EvidenceOnly($"No speed-up by itself: it times the {measures.Noun}'s steps{(measures.IsRestore ? " and zeroing" : "")} and records its buffers, which the next verdict needs."),
        };
    }

    /// <summary>The steps or the buffer configuration are missing: what trace flags 3004/3014 and 3213 would have written.</summary>
    private static bool LacksTraceFlagOutput(OperationMeasures measures) =>
        measures.Operation.Phases.Count == 0 || measures.Operation.BufferConfig is null;

    private static bool NeedsWaits(OperationMeasures measures) =>
        !measures.HasWaits
        || (measures.Wait(BackupWaitTypes.BackupBuffer) is null && measures.Wait(BackupWaitTypes.BackupIo) is null);

    private Recommendation? RaiseBuffers(OperationMeasures measures)
    {
        if (BufferPlan.Propose(measures, settings, settings.TargetBuffersPerDevice) is not { } plan)
        {
            return null;
        }

        var changes = new List<string>();
        if (plan.RaisesBufferCount)
        {
            changes.Add(plan.CurrentBufferCount is { } count
                ? $"BUFFERCOUNT from {Figures.Count(count)} to {Figures.Count(plan.BufferCount)}"
                : $"BUFFERCOUNT to {Figures.Count(plan.BufferCount)}");
        }

        if (plan.RaisesMaxTransferSize)
        {
            changes.Add($"MAXTRANSFERSIZE from {Figures.Memory(plan.CurrentMaxTransferSizeBytes)}"
                + (plan.CurrentMaxTransferSizeAssumed ? " (the default)" : "")
                + $" to {Figures.Memory(plan.MaxTransferSizeBytes)}");
        }

        var text = $"Raise {string.Join(" and ", changes)}: {plan.MemorySentence}";
        text += plan.CurrentBufferCount is { } now
            ? $" instead of {Figures.Count(now)} x {Figures.Memory(plan.CurrentMaxTransferSizeBytes)} = {Figures.Memory(ServerRanges.SaturatingMultiply(now, plan.CurrentMaxTransferSizeBytes))}"
            : "";
        text += ", taken outside the buffer pool.";
        if (plan.CurrentMaxTransferSizeBytes >= BufferPlan.MaxTransferSizeCeiling)
        {
            text += " MAXTRANSFERSIZE is already at its 4 MB ceiling.";
        }

        text += plan.Capped
            ? $" Scaled down to fit {plan.CapDescription}."
            : plan.CapDescription is null
                ? " The memory limit was not captured: check free memory outside the buffer pool first."
                : $" Within {plan.CapDescription}.";
        var tsql = BackupStatement.Like(measures.Operation)
            .With($"BUFFERCOUNT = {Tsql.Number(plan.BufferCount)}")
            .With($"MAXTRANSFERSIZE = {Tsql.Number(plan.MaxTransferSizeBytes)}");
        var buffer = measures.ShareOfEachThread(measures.Wait(BackupWaitTypes.BackupBuffer), measures.BufferThreads);
        return new Recommendation(RecommendationIds.RaiseBuffers, text, tsql.ToString())
        {
            ExpectedGain = ExpectedGains.FromWaitShare(measures, "BACKUPBUFFER", buffer, "each thread's", "more buffer memory"),
        };
    }

    private Recommendation? StripeDevices(OperationMeasures measures)
    {
        var operation = measures.Operation;
        var size = operation.EstimatedBytes ?? operation.BytesProcessed;
        if (measures.IsNulBackup || size < settings.MinimumStripeBytes)
        {
            // docs/backup-internals.md#a-10-gb-database-on-a-san: striping a 10 GB database did not help.
            return null;
        }

        var files = Math.Max(4, measures.DeviceThreads * 2);
        var first = operation.Devices.Count > 0 ? operation.Devices[0].Path : DefaultPath(operation);
        var text = $"Stripe the backup over {files} files on separate volumes: each file adds a writer and buffers, "
            + "but files on one volume share its throughput (docs/backup-internals.md, 'Striping on a 96-core server': 9 files took 1.4 GB/s to 2.2-2.4 GB/s; 'Buffer count against waits': 2 files on one disk gained nothing).";
        if (size is null)
        {
            text += $" The database size is unknown: striping did not help a 10 GB database (docs/backup-internals.md, 'A 10 GB database on a SAN').";
        }

        var tsql = BackupStatement.Like(operation)
            .To(Tsql.StripePaths(first, files, alreadyStriped: operation.Devices.Count > 1))
            .Comment("put each file on a separate volume: edit the paths");
        return new Recommendation(RecommendationIds.StripeDevices, text, tsql.ToString())
        {
            ExpectedGain = DeviceWaitGain(measures, "striping over separate volumes"),
        };
    }

    private static Recommendation EnableCompression(OperationMeasures measures)
    {
        var known = measures.Operation.Options?.Compression is not null;
        var text = (known ? "Compression is off: turn it on" : "Turn compression on if it is not already")
            + " to cut the bytes written to the device, at the cost of CPU (docs/backup-internals.md, 'A 10 GB database on a SAN': 69 s to 51 s). "
            + CompressionEditions(measures.Operation.Server);
        var tsql = BackupStatement.Like(measures.Operation with { Options = (measures.Operation.Options ?? new OptionsReport(null, null, null)) with { Compression = true } });
        return new Recommendation(RecommendationIds.EnableCompression, text, tsql.ToString())
        {
            // Fewer bytes to the device, by a ratio this input does not show: the device waits bound it.
            ExpectedGain = DeviceWaitGain(measures, "writing fewer bytes"),
        };
    }

    // No input here names the edition, and BACKUP ... WITH COMPRESSION fails on one that cannot compress (docs/diagnosis.md, "Sources and calibration").
    private static string CompressionEditions(ServerVersion? server) => server is { Major: ServerVersion.FirstWithCompression, Minor: 0 }
        ? "SQL Server 2008 creates compressed backups in Enterprise and Developer editions only (Standard from 2008 R2): check SERVERPROPERTY('Edition') first."
        : "Only Enterprise, Standard and Developer editions create compressed backups (SQL Server 2008: Enterprise and Developer): check SERVERPROPERTY('Edition') first.";

    private static Recommendation BlockSize(OperationMeasures measures)
    {
        const string text = "Write with BLOCKSIZE = 65536: about 5-6% more throughput in a published test (docs/backup-internals.md, 'Data path: readers, buffers, writers'). "
            + "A media set formatted with another block size cannot be appended to (error 3268): write to a new file or reinitialise the media.";
        var tsql = BackupStatement.Like(measures.Operation)
            .With("BLOCKSIZE = 65536")
            .Comment("error 3268 if the file already holds backups with another block size: use a new file");
        return new Recommendation(RecommendationIds.BlockSize65536, text, tsql.ToString())
        {
            ExpectedGain = ExpectedGains.Published("About 1.05-1.06x in one published test (docs/backup-internals.md, 'Data path: readers, buffers, writers'); not measured on this backup."),
        };
    }

    /// <summary>A COPY_ONLY backup to NUL with this backup's buffers, so that only what is being tested differs.</summary>
    private static BackupStatement NulBackupLikeThisOne(OperationMeasures measures, bool? compression)
    {
        var tsql = BackupStatement.ToNul(measures.Operation, compression);
        if (measures.Buffers is { BufferCount: { } count, MaxTransferSizeBytes: { } size })
        {
            tsql.With($"BUFFERCOUNT = {Tsql.Number(count)}").With($"MAXTRANSFERSIZE = {Tsql.Number(size)}");
        }

        return tsql;
    }

    private static Recommendation MeasureReadCeiling(OperationMeasures measures)
    {
        var compression = measures.Operation.Options?.Compression;
        const string text = "Measure the read ceiling: a COPY_ONLY backup to NUL reads everything and writes nothing. "
            + "If its throughput is close to this one, the data files are the limit; if much higher, the destination is. "
            + "COPY_ONLY leaves the differential base and log chain alone, but it still writes a row to msdb backup history.";
        return new Recommendation(RecommendationIds.MeasureReadCeiling, text,
            NulBackupLikeThisOne(measures, compression).Comment("same options as the real backup, to compare like with like").ToString())
        {
            ExpectedGain = ExpectedGains.EvidenceOnly("No speed-up by itself: it measures how fast the data files can be read, which tells whether the source or the destination is the limit."),
        };
    }

    private static Recommendation SpreadDataFiles(OperationMeasures measures)
    {
        var operation = measures.Operation;
        var readers = measures.DataFileThreadsAssumed ? "an unknown number of" : Figures.Count(measures.DataFileThreads);
        var (sentence, volumes) = ServerChecks.DataFileVolumes(operation.Server, operation.Database);
        var text = $"Spread the data files over more volumes: a backup runs about one reader per volume ({readers} here), "
            + "so files on separate volumes read in parallel; faster storage is the other remedy. "
            + "New data goes to new files; existing data moves only when its indexes are rebuilt."
            + sentence;
        var tsql = volumes + "\n"
            + "-- then, on another volume:\n"
            + $"-- ALTER DATABASE {Tsql.Name(operation.Database)} ADD FILE (NAME = N'<name>', FILENAME = N'<other volume>\\<file>.ndf', SIZE = <size>MB);";
        return new Recommendation(RecommendationIds.SpreadDataFiles, text, tsql)
        {
            ExpectedGain = ExpectedGains.CannotTell("It depends on how fast the added volumes read, which nothing in this input measures; a backup to NUL (measure-read-ceiling) gives the current read ceiling to compare with."),
        };
    }

    /// <summary>
    /// The algorithms the input's server offers beside MS_XPRESS: ZSTD and its levels on SQL Server 2025, Intel QAT
    /// offload on 2022 (docs/diagnosis.md, "Compression algorithms"); null for an older or unknown server.
    /// </summary>
    private static Recommendation? CompressionAlgorithm(OperationMeasures measures)
    {
        var server = measures.Operation.Server;
        if (server is { Major: >= ServerVersion.FirstWithZstd })
        {
            const string text = "This server is SQL Server 2025 or later: try ZSTD. Published, not measured here (docs/backup-internals.md, 'ZSTD against MS_XPRESS'): "
                + "ZSTD at its default LEVEL = LOW ran 1.7x to 2.0x MS_XPRESS's speed in three setups (954 against 564 MB/s; 1,867 against 929 MB/s to NUL; 1,621 against 902 MB/s to S3) "
                + "and wrote a larger file (267 GB against 219 GB, 22% more, in the S3 test); LEVEL = MEDIUM and HIGH compress a little more but ran slower than MS_XPRESS in every test that ran them. "
                + "On a fast target, no compression can be the fastest of all (1,533 MB/s to S3 against 902 MB/s with MS_XPRESS) at the cost of writing every byte (390 GB against 219 GB). "
                + "Measure it here: the two NUL backups below differ only in the algorithm.";
            var zstd = NulBackupLikeThisOne(measures, null).With("COMPRESSION (ALGORITHM = ZSTD, LEVEL = LOW)");
            var xpress = NulBackupLikeThisOne(measures, null).With("COMPRESSION (ALGORITHM = MS_XPRESS)");
            return new Recommendation(RecommendationIds.CompressionAlgorithm, text, zstd + "\n" + xpress)
            {
                ExpectedGain = ExpectedGains.Published("1.7x to 2.0x the compressed throughput with ZSTD LOW in three published setups, files up to 22% larger (docs/backup-internals.md, 'ZSTD against MS_XPRESS'); not measured on this backup."),
            };
        }

        if (server is { Major: ServerVersion.FirstWithQat })
        {
            const string text = "This server is SQL Server 2022: on Windows, with Intel QuickAssist (QAT) hardware and its driver, BACKUP can hand compression to the accelerator "
                + "(WITH COMPRESSION (ALGORITHM = QAT_DEFLATE)) and spare the cores MS_XPRESS uses. It needs sp_configure 'hardware offload enabled' = 1, a restart of the service, "
                + "and ALTER SERVER CONFIGURATION SET HARDWARE_OFFLOAD = ON (ACCELERATOR = QAT); without the hardware it runs in software mode, which gains nothing on CPU "
                + "(docs/diagnosis.md, \"Compression algorithms\"). Which editions run the hardware mode is on Microsoft's page: check SERVERPROPERTY('Edition') first.";
            var tsql = NulBackupLikeThisOne(measures, null).With("COMPRESSION (ALGORITHM = QAT_DEFLATE)")
                .Comment("after: EXEC sp_configure 'hardware offload enabled', 1; RECONFIGURE; restart; ALTER SERVER CONFIGURATION SET HARDWARE_OFFLOAD = ON (ACCELERATOR = QAT);")
                .Comment("then compare with the same backup WITH COMPRESSION (ALGORITHM = MS_XPRESS)");
            return new Recommendation(RecommendationIds.CompressionAlgorithm, text, tsql.ToString())
            {
                ExpectedGain = ExpectedGains.CannotTell("No published measurement of QAT against MS_XPRESS is in BackupXe's sources: the NUL backup measures it here."),
            };
        }

        return null;
    }

    /// <summary>
    /// A backup to URL whose size comes within <see cref="UrlCapacity.Margin"/> of what its URLs hold at its
    /// MAXTRANSFERSIZE (docs/diagnosis.md, "URL targets"), or one that failed past it; null otherwise.
    /// </summary>
    public static Recommendation? UrlCapacityWarning(OperationReport operation)
    {
        ArgumentNullException.ThrowIfNull(operation);
        if (operation.Kind != OperationKind.Backup)
        {
            return null;
        }

        var devices = operation.DevicePaths();
        var capacity = UrlCapacity.Of(devices, operation.Requested?.MaxTransferSizeBytes ?? operation.BufferConfig?.MaxTransferSizeBytes);
        var failed = operation.Status == OperationStatus.Failed;

        // The engine's own words when a block blob runs out of blocks: the failure is the arithmetic even when the size is not in the input.
        var blocksRanOut = failed && operation.FailureError?.Text.Contains(UrlCapacity.BlockLimitMessage, StringComparison.OrdinalIgnoreCase) == true;
        var size = operation.EstimatedBytes ?? operation.BytesProcessed ?? (blocksRanOut ? capacity?.CapacityBytes : null);
        if (capacity is null || size is not { } bytes || capacity.Warning(bytes, failed) is not { } warning)
        {
            return null;
        }

        var text = warning + " (docs/diagnosis.md, \"URL targets\"; the size is what the backup reads, an upper bound on what it writes when compressed.)";
        var urls = capacity.UrlsAtLargestTransfer(bytes * 5 / 4) ?? capacity.Limits.MaxUrls;
        var s3 = capacity.Limits == UrlLimits.S3Compatible;
        var like = s3 ? operation with { Options = (operation.Options ?? new OptionsReport(null, null, null)) with { Compression = true } } : operation;
        var tsql = BackupStatement.Like(like)
            .To(Tsql.StripePaths(devices[0], Math.Max(urls, devices.Count), alreadyStriped: devices.Count > 1))
            .With($"MAXTRANSFERSIZE = {Tsql.Number(capacity.Limits.MaxTransferBytes)}")
            .Comment(s3 ? "S3 takes a MAXTRANSFERSIZE other than 10 MB only WITH COMPRESSION" : "block blobs need a Shared Access Signature credential for the container");
        return new Recommendation(RecommendationIds.UrlCapacity, text, tsql.ToString())
        {
            ExpectedGain = ExpectedGains.EvidenceOnly("Not a speed-up: the backup keeps fitting its target. The capacity is arithmetic on Microsoft's published limits."),
        };
    }

    /// <summary>A documented defect this operation shows on an affected build (docs/known-issues.md).</summary>
    public static Recommendation KnownDefect(KnownDefect defect)
    {
        ArgumentNullException.ThrowIfNull(defect);
        return new Recommendation(RecommendationIds.KnownDefect, KnownDefects.Sentence(defect),
            "SELECT SERVERPROPERTY('ProductVersion') AS build, SERVERPROPERTY('ProductUpdateLevel') AS update_level;")
        {
            ExpectedGain = ExpectedGains.Published(defect.Workaround is null
                ? $"Microsoft's page says {defect.FixedIn} fixes it; not measured on this server."
                : "Microsoft's page gives the workaround; not measured on this server."),
        };
    }

    private static Recommendation TestWithoutCompression(OperationMeasures measures)
    {
        const string text = "Compare two COPY_ONLY backups to NUL, with and without compression. If the compressed one is much slower "
            + "(docs/backup-internals.md, 'Compression CPU and the read ceiling': 765 MB/s with CPU at 98% against 1.42 GB/s without), compression CPU is the limit: "
            + "back up without compression to a fast target, match the stripes to the cores, or accept it. Both still write msdb history.";
        var compressed = NulBackupLikeThisOne(measures, true);
        if (measures.Buffers is { BufferCount: not null, MaxTransferSizeBytes: not null })
        {
            compressed.Comment("the real backup's buffers in both, so that only compression differs");
        }

        var tsql = compressed + "\n" + NulBackupLikeThisOne(measures, false);
        return new Recommendation(RecommendationIds.TestWithoutCompression, text, tsql)
        {
            ExpectedGain = ExpectedGains.EvidenceOnly("No speed-up by itself: the two NUL backups show what compression costs here (in one published test 765 MB/s with it against 1.42 GB/s without, 1.9x; not measured on this backup)."),
        };
    }

    private static Recommendation InstantFileInitialization(OperationMeasures measures, FileZeroing zeroing)
    {
        var (sentence, tsql) = ServerChecks.InstantFileInitialization(measures.Operation.Server, zeroing.DataZeroed);
        var text = "Enable Instant File Initialization so that data files are not zeroed before the restore writes them: "
            + "grant the SQL Server service account \"Perform volume maintenance tasks\" and restart the service. "
            + "It does not apply to log files, which are always zeroed."
            + sentence;
        return new Recommendation(RecommendationIds.InstantFileInitialization, text, tsql)
        {
            ExpectedGain = ExpectedGains.FromZeroing(measures, zeroing, "Instant File Initialization",
                "only the data files' part of it (the log is zeroed anyway): the ceiling is reached only if all of it was data files."),
        };
    }

    private static Recommendation RightSizeLog(OperationMeasures measures, FileZeroing zeroing)
    {
        const string text = "The log file is always zeroed on restore, whatever Instant File Initialization says "
            + "(SQL Server 2022 relaxes this only for small growths): right-size or shrink the log of the source database "
            + "so that the restore has less to zero.";
        var database = measures.Operation.Database;
        var literal = Tsql.Literal(database ?? Tsql.UnknownDatabase);
        var tsql = "-- on the source server: how full each log is\n"
            + "DBCC SQLPERF(LOGSPACE);\n"
            + (measures.Operation.Server is { Major: < ServerVersion.FirstWithCatalogViews }
                ? $"SELECT name, filename, size / 128 AS size_mb\nFROM master.dbo.sysaltfiles\nWHERE dbid = DB_ID({literal}) AND groupid = 0;\n"
                : $"SELECT name, physical_name, size / 128 AS size_mb\nFROM sys.master_files\nWHERE database_id = DB_ID({literal}) AND type = 1;\n")
            + $"-- then: USE {Tsql.Name(database)}; DBCC SHRINKFILE (N'<log file name>', <target size in MB>);";
        return new Recommendation(RecommendationIds.RightSizeLog, text, tsql)
        {
            ExpectedGain = ExpectedGains.FromZeroing(measures, zeroing, "a smaller log",
                "the log's part of it in proportion to the size cut: the ceiling is a log with nothing to zero."),
        };
    }

    private static Recommendation RestoreOverExisting(OperationMeasures measures, FileZeroing zeroing)
    {
        const string text = "Restore over the existing database when its files are already the same size: "
            + "existing files are reused instead of being created and zeroed. WITH REPLACE overwrites that database.";
        var tsql = BackupStatement.Like(measures.Operation).With("REPLACE");
        return new Recommendation(RecommendationIds.RestoreOverExisting, text, tsql.ToString())
        {
            ExpectedGain = ExpectedGains.FromZeroing(measures, zeroing, "reusing files",
                "all of it only when every existing file is already at least the backup's size; files that must grow are zeroed for the growth."),
        };
    }

    private Recommendation? RestoreMaxTransferSize(OperationMeasures measures)
    {
        var config = measures.Buffers;
        var current = config?.MaxTransferSizeBytes;
        if (current >= BufferPlan.MaxTransferSizeCeiling)
        {
            return null;
        }

        var size = BufferPlan.MaxTransferSizeCeiling;
        var count = config?.BufferCount;
        var cap = new[] { config?.MemoryLimitBytes, settings.MemoryBudgetBytes }.Where(c => c is not null).Min();

        // Priced as the server counts buffer memory: at the ratio of its reported total to BUFFERCOUNT x MAXTRANSFERSIZE.
        var ratio = measures.ReportedBufferRatio is > 1 and var r ? r : 1;
        if (count is > 0 && ServerRanges.SaturatingMultiply(count.Value, size) * ratio > cap)
        {
            size = (long)(cap!.Value / ratio) / count.Value / BufferPlan.MaxTransferSizeStep * BufferPlan.MaxTransferSizeStep;
            if (size <= (current ?? OperationMeasures.DefaultMaxTransferSize))
            {
                return null;
            }
        }

        var text = $"Restore with MAXTRANSFERSIZE = {Tsql.Number(size)} ({Figures.Memory(size)}) instead of "
            + (current is { } now ? Figures.Memory(now) : "the default 1 MB")
            + ": in a published test a restore run with defaults (6 buffers, 1 MB) took 171 s, with 4 MB 81 s (docs/backup-internals.md, 'A 10 GB database on a SAN').";
        if (count is { } buffers)
        {
            text += ratio > 1
                ? $" Buffer memory: {Figures.Count(buffers)} x {Figures.Memory(size)} = {Figures.Memory(ServerRanges.SaturatingMultiply(buffers, size))}, about {Figures.Memory((long)Math.Ceiling(ServerRanges.SaturatingMultiply(buffers, size) * ratio))} as the server counts it ({Figures.Ratio(ratio)})."
                : $" Buffer memory: {Figures.Count(buffers)} x {Figures.Memory(size)} = {Figures.Memory(ServerRanges.SaturatingMultiply(buffers, size))}.";
        }

        var tsql = BackupStatement.Like(measures.Operation).With($"MAXTRANSFERSIZE = {Tsql.Number(size)}");
        return new Recommendation(RecommendationIds.RestoreMaxTransferSize, text, tsql.ToString())
        {
            ExpectedGain = ExpectedGains.Published("2.1x in one published test of a restore run with defaults (171 s to 81 s, docs/backup-internals.md, 'A 10 GB database on a SAN'); not measured on this restore, whose limit may lie elsewhere."),
        };
    }

    /// <summary>
    /// The capture is the session the tool itself installs and reads (same name, same settings), never a second
    /// definition that <c>watch</c> would not find; commands, not T-SQL, because the tool checks the login's
    /// permissions and resolves the build's wait keys before it changes anything.
    /// </summary>
    private static Recommendation CaptureWaits()
    {
        const string text = "Capture the waits with BackupXe's own session, then run the operation again: backupxe session install creates "
            + "and starts it after checking the login's permissions (or backupxe session script prints the same T-SQL for SSMS or sqlcmd). "
            + "SQL Server 2016 and later; before 2016 there is no backup_restore_progress_trace, and trace flags 3213 and 3605 give the buffer "
            + "configuration instead (capture-trace-flags). The session costs disk and CPU while backups run: uninstall it when done.";
        const string tsql = """
            -- BackupXe's capture session, the one backupxe watch and analyze read (SQL Server 2016 and later):
            --   backupxe session install --server <server>
            --   backupxe session script > backupxe-session.sql    (the same T-SQL, to run in SSMS or sqlcmd)
            -- after the next backup or restore:
            --   backupxe analyze '<the instance LOG folder>/BackupXe_0_*.xel'    (or: backupxe watch --server <server>)
            -- when done:
            --   backupxe session uninstall --server <server>
            """;
        return new Recommendation(RecommendationIds.CaptureWaits, text, tsql)
        {
            ExpectedGain = ExpectedGains.EvidenceOnly("No speed-up by itself: it captures the waits, steps and buffers that name the bottleneck on the next run."),
        };
    }

    /// <summary>Device-side remedies are bounded by the device waits: BACKUPIO's share of each writer's time.</summary>
    private static ExpectedGain DeviceWaitGain(OperationMeasures measures, string fix)
    {
        var io = measures.ShareOfEachThread(measures.Wait(BackupWaitTypes.BackupIo), measures.DeviceThreads);
        return ExpectedGains.FromWaitShare(measures, "BACKUPIO", io, $"each {measures.DeviceThreadRole(false)}'s", fix);
    }

    private static string DefaultPath(OperationReport operation) =>
        $"X:\\Backup\\{operation.Database ?? "database"}{(operation.Scope == OperationScope.Log ? ".trn" : ".bak")}";
}
