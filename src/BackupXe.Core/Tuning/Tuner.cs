using System.Globalization;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Formatting;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Tuning;

/// <summary>
/// The trial-and-measure method, guided by the diagnosis: read ceilings first (COPY_ONLY to NUL, without and with
/// compression), a baseline at the server's defaults run twice to learn the noise, then one move at a time chosen
/// from the bottleneck the diagnosis finds in the last best trial, in the order of its remedies. A candidate is
/// repeated (order alternated; a restore's drawn) while the noise is larger than the gain. The search stops at the source's limit,
/// after two steps that gain under <see cref="MinimumGain"/>, when nothing is left to try, or at the time budget.
/// </summary>
public sealed class Tuner
{
    /// <summary>"A few percent": a step that gains less does not count as progress.</summary>
    public const double MinimumGain = 0.03;

    /// <summary>Within this share of the read ceiling the source is the limit: nothing on the target side helps.</summary>
    public const double NearCeiling = 0.03;

    public const int FlatStepsToStop = 2;

    /// <summary>Runs of a candidate at most, when the noise keeps hiding the gain.</summary>
    public const int MaxRunsPerTrial = 4;

    /// <summary>
    /// Runs of the best trial at most: it was adopted on its high runs, so fresh runs beside each candidate keep that
    /// luck from deciding the next comparison.
    /// </summary>
    public const int MaxRunsOfBest = 6;

    /// <summary>Opening the devices, the capture's start and stop, deleting the files: time outside the window.</summary>
    public const double TrialOverheadSeconds = 5;

    /// <summary>BACKUP accepts up to 64 devices; more than 16 files is past what any published test gained from.</summary>
    public const int MaxFiles = 16;

    public const int BlockSize = 65536;

    /// <summary>
    /// The noise assumed at least, before and beside the tune's own repeats: two runs say little about spread, and the
    /// repeated cells of a published grid of 540 backups spread by about 3% (docs/tuning.md).
    /// </summary>
    public const double MinimumNoise = 0.02;

    /// <summary>
    /// A candidate is adopted only when its gain exceeds this many standard deviations of the difference of the two
    /// means (the run-to-run noise over the runs behind each): about 97.7% one-sided confidence for normal noise.
    /// </summary>
    public const double ConfidenceDeviations = 2;

    /// <summary>A window that gave no rate doubles for the next run, up to this share of the time budget.</summary>
    public const double LongestWindowShare = 0.25;

    private readonly ITrialHost _server;
    private readonly TuneRequest _request;
    private readonly BackupDiagnostician _diagnostician;
    private readonly List<Trial> _trials = [];
    private readonly HashSet<(TrialOptions, bool)> _tried = [];
    private readonly List<KeptTrialFile> _kept = [];
    private readonly Dictionary<string, string> _overrides = new(StringComparer.Ordinal);
    private TuningFacts _facts = null!;
    private double _spent;
    private readonly BufferPricing _pricing = new();

    /// <summary>Draws which of two restore trials runs first in a round of repeats; seeded by the run id, so a run replays.</summary>
    private readonly Random _order;
    private long? _memoryLimit;
    private IReadOnlyList<string>? _finishedBackup;
    private readonly IReadOnlyList<UrlTarget> _urls;

    /// <summary>The window of the next run: the request's, grown while runs gave too little progress to measure.</summary>
    private TimeSpan _window;

    /// <summary>Options the server did not apply as asked, by name, with the first trial that showed it and what it used.</summary>
    private readonly Dictionary<string, (Trial Trial, IgnoredOption Option, long? UsedTransferSize)> _ignored = new(StringComparer.Ordinal);
    private TrialSpace? _space;

    public Tuner(ITrialHost server, TuneRequest request)
    {
        ArgumentNullException.ThrowIfNull(server);
        ArgumentNullException.ThrowIfNull(request);
        _server = server;
        _request = request;
        _urls = request.Urls;
        _diagnostician = new BackupDiagnostician(new DiagnosisSettings { MemoryBudgetBytes = request.MemoryBudgetBytes });
        _order = new Random(request.RunId.Aggregate(17, (hash, c) => unchecked((hash * 31) + c)));
        _window = request.Window;
    }

    /// <summary>The dry run, the default: asks the server for its facts and nothing else; no trial runs, no file is touched.</summary>
    public static async Task<TuningPlan> PlanAsync(ITuningServer server, TuneRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(server);
        ArgumentNullException.ThrowIfNull(request);
        var facts = await server.DescribeAsync(request.Database, cancellationToken);
        var plan = ForHost(Plan(facts, request), server, facts, request);
        return await server.BackupOrRestoreRunningAsync(request.Database, cancellationToken)
            ? plan with { Notes = [.. plan.Notes, $"Another backup or restore of {request.Database} is running now: --execute refuses to start beside it."] }
            : plan;
    }

    /// <summary>
    /// On a host that keeps trial files, they are written to a few media sets of the tune's own, reused by later runs,
    /// so that what stays on disk until the DBA removes it is bounded exactly (<see cref="TrialSpace"/>).
    /// </summary>
    private static TuningPlan ForHost(TuningPlan plan, ITuningServer server, TuningFacts facts, TuneRequest request)
    {
        if (server is not ITrialHost { DeletesFiles: false } || plan.Directories.Any(UrlTarget.LooksLikeUrl))
        {
            return plan;
        }

        var space = new TrialSpace(FullBackupBytesAtMost(facts), TrialSpaceLimit(facts, request), request.RunId);
        var bound = space.SlotsAtMost * space.SlotBytesAtMost;
        var kept = string.Create(CultureInfo.InvariantCulture, $"Trial files go to at most {space.SlotsAtMost} media sets of the tune's own (backupxe-tune-{request.RunId}-sNN-IofM.bak, one per number of files, compression and block size). ")
            + string.Create(CultureInfo.InvariantCulture, $"A media set's first run makes new files (NOINIT, NOSKIP, MEDIANAME = N'backupxe-tune-{request.RunId}-sNN'): the server refuses a file that existed. A later run of the same shape overwrites them WITH INIT, NOSKIP and that MEDIANAME, which the server does only for volumes carrying the tune's own media name. ")
            + string.Create(CultureInfo.InvariantCulture, $"A media set holds one backup at a time, so at most one full backup ({Figures.Bytes(space.SlotBytesAtMost)}, {space.SlotBytesAtMost} bytes: data and log files' allocated size, plus 1% and 64 MB of margin): at most {Figures.Bytes(bound)} ({bound} bytes) left on disk in all, within {(request.MaxTrialSpaceBytes is null ? $"{TuneRequest.DefaultTrialSpaceMultiple} full backups (--max-trial-space sets another bound)" : "--max-trial-space")}. ")
            + "No documented, least-privilege T-SQL deletes a file on the server, so they are kept: the end of the run (or Ctrl-C, after the running backup is stopped) lists each with its bound and the command that removes them.";
        return plan with
        {
            FilesKept = true,
            DiskSpaceAtMost = bound,
            Notes = [.. plan.Notes.Select(note => note.StartsWith(NewFilesNote, StringComparison.Ordinal) ? kept : note)],
        };
    }

    private const string NewFilesNote = "Trial files are new files with unique names";

    /// <summary>
    /// Every trial writes an msdb backupset row; the read ceilings' rows (to NUL) look like full backups that exist
    /// nowhere. The query that tells them apart, for monitoring that reads "the last full backup".
    /// </summary>
    internal static string MsdbRowsNote(string database, string runId) =>
        $"Every trial, the read ceilings to NUL included, writes a row to msdb.dbo.backupset of a full backup with is_copy_only = 1, NAME N'backupxe-tune-{runId}-NN-R' and a DESCRIPTION starting 'BackupXe tune trial'. "
        + "Monitoring that reads the last full backup without is_copy_only may take a read ceiling's row (a backup to NUL, nothing to restore) for one. The tune's rows: "
        + $"SELECT backup_set_id, name, description, backup_start_date FROM msdb.dbo.backupset WHERE database_name = {Tsql.Literal(database)} AND is_copy_only = 1 AND name LIKE N'backupxe-tune-{runId}-%'; "
        + $"the last full backup without them: SELECT TOP (1) backup_finish_date FROM msdb.dbo.backupset WHERE database_name = {Tsql.Literal(database)} AND type = 'D' AND is_copy_only = 0 ORDER BY backup_finish_date DESC;";

    /// <summary>What would run, with upper bounds, from the server's facts alone.</summary>
    public static TuningPlan Plan(TuningFacts facts, TuneRequest request)
    {
        ArgumentNullException.ThrowIfNull(facts);
        ArgumentNullException.ThrowIfNull(request);
        var fixedTrials = new List<string>
        {
            "read ceiling: COPY_ONLY to NUL, NO_COMPRESSION, default buffers",
            "read ceiling: COPY_ONLY to NUL, NO_COMPRESSION, more buffer memory within the budget",
        };
        if (facts.CompressionAvailable)
        {
            fixedTrials.Add("compression ceiling: COPY_ONLY to NUL, COMPRESSION, the same buffers");
        }

        var urls = request.Urls;
        var baselineUrls = urls.Count > 0 ? UrlsFor(urls[0].Limits, facts.DatabaseBytes, TrialOptions.Defaults).Files : 1;
        fixedTrials.Add(urls.Count > 0
            ? $"baseline: COPY_ONLY to {baselineUrls} new blob{(baselineUrls == 1 ? "" : "s")} under {urls[0].Prefix}, the server's defaults, run twice to measure the noise"
            : $"baseline: COPY_ONLY to 1 new file in {request.Directories[0]}, the server's defaults, run twice to measure the noise");
        var perTrial = request.Window.TotalSeconds + TrialOverheadSeconds;
        var fixedRuns = fixedTrials.Count + 1;
        var guided = Math.Max(0, (int)Math.Floor(request.TimeBudget.TotalSeconds / perTrial) - fixedRuns);
        var runs = fixedRuns + guided;
        var notes = new List<string>
        {
            "Every trial is a COPY_ONLY backup: the differential base and the log chain are untouched, but each trial still writes a row to msdb backup history (backupset, backupmediafamily).",
            MsdbRowsNote(request.Database, request.RunId),
            "Trial files are new files with unique names, never an existing file; each trial's files are deleted when it ends, and on Ctrl-C after its backup is stopped.",
            "Before each trial: free space on each directory, and no other backup or restore of the database running.",
        };
        if (urls.Count > 0)
        {
            notes.RemoveAll(note => note.StartsWith(NewFilesNote, StringComparison.Ordinal) || note.StartsWith("Before each trial: free space", StringComparison.Ordinal));
            notes.AddRange(UrlNotes(urls, facts, request, (runs - 3) * facts.DatabaseBytes));
        }

        if (facts.Encrypted)
        {
            notes.Add("The database is encrypted (TDE): compressed trials use MAXTRANSFERSIZE above 64 KB, which compression of a TDE database needs (SQL Server 2016 CU4 and later).");
        }

        if (!facts.CompressionAvailable)
        {
            notes.Add("This server offers no backup compression: no compressed trial is planned.");
        }

        if (request.Restore is { } restore)
        {
            notes.Add($"Then up to {RestoreTuneRequest.MaxTrials} restore option sets (each run again while the noise hides its gain) of {(restore.From.Count > 0 ? string.Join(", ", restore.From) : "the last trial backup that finished")}: "
                + $"each RESTOREs into a new scratch database (backupxe_tune_{request.RunId}_rNN, checked unused first) with every file moved under {restore.ScratchDirectory}, never WITH REPLACE, "
                + "and DROPs it after, Ctrl-C included (its files go with it); each writes a row to msdb restore history. The login needs CREATE DATABASE, checked first.");
        }

        return new TuningPlan(
            request.Database,
            request.Directories,
            fixedTrials,
            guided,
            request.Window.TotalSeconds,
            TrialOverheadSeconds,
            request.TimeBudget.TotalSeconds,
            facts.DatabaseBytes,
            BytesReadAtMost: runs * facts.DatabaseBytes,
            BytesWrittenAtMost: (runs - 3) * facts.DatabaseBytes,
            DiskSpaceAtMost: urls.Count > 0 ? 0 : facts.DatabaseBytes,
            request.MemoryBudgetBytes,
            notes)
        {
            FilesKept = urls.Count > 0,
        };
    }

    /// <summary>What a tune to URLs adds to the plan: the credential checked, the URLs each trial needs, the blobs left behind.</summary>
    private static IEnumerable<string> UrlNotes(IReadOnlyList<UrlTarget> urls, TuningFacts facts, TuneRequest request, long bytesWrittenAtMost)
    {
        var limits = urls[0].Limits;
        var prefixes = string.Join(", ", urls.Select(u => u.Prefix));
        yield return "Before any trial: the credential BACKUP TO URL uses for each URL, looked up by name in sys.credentials (read-only; its secret is never read): "
            + string.Join(", ", urls.Select(u => u.ContainerUrl).Distinct(StringComparer.OrdinalIgnoreCase)) + ". A URL without one refuses the tune, naming the CREATE CREDENTIAL to run.";
        yield return string.Create(CultureInfo.InvariantCulture,
            $"Each trial writes new blobs named backupxe-tune-{request.RunId}-NN-R-IofM.bak under {prefixes}, never WITH FORMAT, so the server refuses a blob that exists. "
            + $"A {limits.BlobWord} holds {urls[0].Describe(null)} at the default MAXTRANSFERSIZE, {urls[0].Describe(limits.MaxTransferBytes)} at the largest: each trial stripes over enough URLs to hold the whole {Figures.Bytes(facts.DatabaseBytes)} database "
            + $"if it finishes ({UrlsFor(limits, facts.DatabaseBytes, TrialOptions.Defaults).Files} at the default MAXTRANSFERSIZE), and at most {limits.MaxUrls}.");
        yield return string.Create(CultureInfo.InvariantCulture,
            $"Every trial blob is left in storage: neither the server (no T-SQL statement deletes a blob) nor BackupXe (it holds no storage credential) can delete it. "
            + $"Up to {Figures.Bytes(bytesWrittenAtMost)} in blobs backupxe-tune-{request.RunId}-*.bak under {prefixes}; the end of the run (or Ctrl-C) lists each, for deletion with the storage's own tools.");
        yield return "The read ceilings back up to DISK = N'NUL', as for directories: they write no blob.";
        if (urls[0].Storage == UrlStorage.S3Compatible)
        {
            yield return S3NotRun;
        }
    }

    private const string S3NotRun = "Trials to S3-compatible storage are planned, not run: --execute refuses them. Its MAXTRANSFERSIZE must stay within 5 MB to 20 MB "
        + "and may only be set with COMPRESSION, and this build's buffer search does not hold its trials to that yet.";

    /// <summary>
    /// <paramref name="options"/> striped over at least as many URLs as hold <paramref name="databaseBytes"/> (the whole
    /// backup, if the trial finishes) at its MAXTRANSFERSIZE; at the largest transfer size when the default needs more
    /// URLs than a backup takes.
    /// </summary>
    internal static TrialOptions UrlsFor(UrlLimits limits, long databaseBytes, TrialOptions options)
    {
        var needed = limits.MinimumUrls(databaseBytes, options.MaxTransferSizeBytes);
        if (needed > limits.MaxUrls && options.MaxTransferSizeBytes is null && limits.Takes(limits.MaxTransferBytes, options.Compression))
        {
            options = options with { MaxTransferSizeBytes = limits.MaxTransferBytes };
            needed = limits.MinimumUrls(databaseBytes, options.MaxTransferSizeBytes);
        }

        return options with { Files = Math.Max(options.Files, needed) };
    }

    /// <summary>
    /// Trial files left on the server because the host cannot delete them, so far: after <see cref="RunAsync"/> threw
    /// (Ctrl-C), the ones to list for the DBA.
    /// </summary>
    public IReadOnlyList<KeptTrialFile> KeptFiles => _kept;

    /// <summary>The server's facts once <see cref="RunAsync"/> has read them (the platform decides the clean-up command).</summary>
    public TuningFacts? Facts { get; private set; }

    /// <summary>Runs the trials. Cancellation stops the running backup, deletes or keeps its files (<see cref="KeptFiles"/>) and throws.</summary>
    public async Task<TuningResult> RunAsync(CancellationToken cancellationToken)
    {
        _facts = await _server.DescribeAsync(_request.Database, cancellationToken);
        Facts = _facts;
        var plan = ForHost(Plan(_facts, _request), _server, _facts, _request);
        var unready = _urls is [{ Storage: UrlStorage.S3Compatible }, ..] ? [S3NotRun] : await _server.CheckReadyAsync(_request, cancellationToken);
        if (_request.Restore is not null)
        {
            // Least privilege first: the restore trials' permission is checked before any trial runs.
            unready = _server is IRestoreTrialHost host
                ? [.. unready, .. await host.CheckRestoreReadyAsync(cancellationToken)]
                : [.. unready, "This server cannot run restore trials."];
        }

        if (!_server.DeletesFiles && _urls.Count == 0)
        {
            _space = new TrialSpace(FullBackupBytesAtMost(_facts), TrialSpaceLimit(_facts, _request), _request.RunId);
            if (_space.SlotsAtMost < 1)
            {
                unready = [.. unready, $"The space trials may leave behind ({Figures.Bytes(_space.LimitBytes)}, --max-trial-space) is less than one full backup of [{_request.Database}] ({Figures.Bytes(_space.SlotBytesAtMost)} at most): no trial to files fits."];
            }
        }

        if (unready.Count > 0)
        {
            return new TuningResult(plan, _facts, [], null, null, null, null, "Nothing ran: " + string.Join(" ", unready), Refused: true, 0, 0) { KeptFiles = _kept, FreeSpaceOverrides = [.. _overrides.Values] };
        }

        Trial? ceiling = null;
        Trial? compressed = null;
        Trial? baseline = null;
        Trial? best = null;
        string reason;
        var refused = false;
        try
        {
            // Before any trial: a database no trial to these URLs could hold stops the tune here.
            var baselineOptions = BaselineForTargets(TrialOptions.Defaults);
            var plain = await RunNewAsync(TrialPurpose.ReadCeiling, TrialOptions.Defaults with { Compression = false }, toNul: true, cancellationToken);
            ceiling = plain;
            var buffered = BufferMove(plain, TrialPurpose.ReadCeiling);
            var bufferedOptions = buffered ?? plain.Requested;
            if (buffered is not null)
            {
                var more = await RunNewAsync(TrialPurpose.ReadCeiling, buffered, toNul: true, cancellationToken);
                ceiling = more.RateMBps > plain.RateMBps ? more : plain;
            }

            if (_facts.CompressionAvailable)
            {
                // A compressed backup takes more buffer memory than an uncompressed one of the same options (BufferPricing):
                // when the same buffers do not fit, the most that does.
                var compressedOptions = bufferedOptions with { Compression = true };
                if (!Fits(compressedOptions))
                {
                    compressedOptions = BufferMove(plain, TrialPurpose.ReadCeilingCompressed, compressed: true) ?? plain.Requested with { Compression = true };
                }

                compressed = await RunNewAsync(TrialPurpose.ReadCeilingCompressed, compressedOptions, toNul: true, cancellationToken);
            }

            baseline = await RunNewAsync(TrialPurpose.Baseline, baselineOptions, toNul: false, cancellationToken);
            if (baseline.Measured)
            {
                await RunAgainAsync(baseline, cancellationToken);
            }

            if (!baseline.Measured)
            {
                reason = CannotMeasure("the baseline");
            }
            else
            {
                best = baseline;
                reason = await SearchAsync(ceiling, c => best = c, () => best!, cancellationToken);
            }
        }
        catch (TuningStopped stop)
        {
            reason = stop.Message;
            refused = stop.Refused;
        }

        baseline ??= _trials.FirstOrDefault(t => t.Purpose == TrialPurpose.Baseline && t.Runs.Count > 0);
        ceiling ??= _trials.FirstOrDefault(t => t.Purpose == TrialPurpose.ReadCeiling && t.Runs.Count > 0);
        _trials.RemoveAll(t => t.Runs.Count == 0);
        if (best is null && !refused && !reason.StartsWith("Cannot tell", StringComparison.Ordinal))
        {
            reason = $"Cannot tell which options are best: no trial to the target was measured. {reason}";
        }

        // The search's best is the fastest confirmed set; what is recommended is the cheapest set within the noise of it.
        var fastest = best;
        best = Cheapest(best);
        if (best is not null && fastest is not null && best != fastest)
        {
            reason += string.Create(CultureInfo.InvariantCulture,
                $" Recommended: trial {best.Number}, the cheapest set within the noise of the fastest (trial {fastest.Number}, {Figures.Rate(fastest.RateMBps)}): {Figures.Rate(best.RateMBps)}.");
        }

        foreach (var trial in _trials.Where(t => !t.ToNul && t.Measured && ceiling is { RateMBps: > 0 }))
        {
            trial.RatioToCeiling = trial.RateMBps / ceiling!.RateMBps;
        }

        RestoreTuningResult? restore = null;
        if (_request.Restore is { } restoreRequest)
        {
            restore = refused
                ? RestoreTuningResult.Nothing("No restore trial ran: the backup trials were refused or stopped for safety.")
                : await RestoreAsync(restoreRequest, cancellationToken);
        }

        return new TuningResult(plan, _facts, _trials, ceiling is { Measured: true } ? ceiling : null, compressed is { Measured: true } ? compressed : null, baseline, best, reason, refused, _spent, Noise())
        {
            KeptFiles = _kept,
            FreeSpaceOverrides = [.. _overrides.Values],
            Restore = restore,
            IgnoredOptions = [.. _ignored.Values.Select(i => IgnoredNote(i.Trial, i.Option))],
            WindowSeconds = _window.TotalSeconds,
            KeptBytesAtMost = _space?.BytesAtMost,
            KeptBytesLimit = _space?.LimitBytes,
        };
    }

    /// <summary>Why nothing can be recommended when even the longest window the budget allows gave no rate.</summary>
    private string CannotMeasure(string what) => string.Create(CultureInfo.InvariantCulture,
        $"Cannot tell: {what} gave too little progress to measure in a window of up to {Figures.Seconds(_window.TotalSeconds)} (no progress line past the warm-up, no percent_complete, no finished trial in msdb): a longer --window or --time-budget lets a trial move far enough to be measured.");

    /// <summary>
    /// The cheapest confirmed set whose rate is within one standard deviation of the difference (the noise) of the
    /// fastest: buffer memory costs most, then files, then every option set away from the server's default.
    /// </summary>
    private Trial? Cheapest(Trial? fastest)
    {
        if (fastest is null || !fastest.Measured)
        {
            return fastest;
        }

        return _trials.Where(t => !t.ToNul && t.Measured && t.Confirmed && t.RateMBps >= fastest.RateMBps * (1 - NoiseOfDifference(t, fastest)))
            .Append(fastest)
            .OrderBy(t => PricedMemory(t.Requested))
            .ThenBy(t => t.Requested.Files)
            .ThenBy(t => OptionsSet(t.Requested))
            .ThenByDescending(t => t.RateMBps)
            .First();
    }

    private static int OptionsSet(TrialOptions options) =>
        (options.BufferCount is null ? 0 : 1) + (options.MaxTransferSizeBytes is null ? 0 : 1) + (options.BlockSizeBytes is null ? 0 : 1)
        + (options.Compression is null ? 0 : 1) + (options.CompressionAlgorithm is null ? 0 : 1);

    /// <summary>
    /// One full backup of the database at most: the data files' and the log file's allocated size (a backup copies the
    /// data files' allocated extents and at most the log's content), plus 1% and 64 MB for the media headers and
    /// metadata, the tune's own margin. A trial stopped early, or compressed, writes less.
    /// </summary>
    internal static long FullBackupBytesAtMost(TuningFacts facts) =>
        facts.DatabaseBytes + facts.LogBytes + ((facts.DatabaseBytes + facts.LogBytes) / 100) + (64L * 1024 * 1024);

    /// <summary>--max-trial-space, or <see cref="TuneRequest.DefaultTrialSpaceMultiple"/> full backups.</summary>
    internal static long TrialSpaceLimit(TuningFacts facts, TuneRequest request) =>
        request.MaxTrialSpaceBytes ?? (TuneRequest.DefaultTrialSpaceMultiple * FullBackupBytesAtMost(facts));

    /// <summary>Which option the server ignored, where, and why it matters for production.</summary>
    private string IgnoredNote(Trial trial, IgnoredOption option)
    {
        var server = $"SQL Server {(_facts.MajorVersion is { } major ? major.ToString(CultureInfo.InvariantCulture) : "of an unknown version")}"
            + (_facts.EngineEdition is { } edition ? $", engine edition {edition.ToString(CultureInfo.InvariantCulture)} ({EditionName(edition)})" : "")
            + (_urls.Count > 0 ? $", to {_urls[0].Limits.BlobWord}s" : _facts.Linux ? ", to disk on Linux" : ", to disk");
        var why = option.Name switch
        {
            "MAXTRANSFERSIZE" => $"a production backup that sets it gets {option.Used} too, so its buffer memory is BUFFERCOUNT x {option.Used}, not x {option.Asked}; the search retried with BUFFERCOUNT alone (the same memory at the server's transfer size) and recommends no MAXTRANSFERSIZE"
                + (_facts.Encrypted ? ". The database is encrypted (TDE): compression of a TDE database needs MAXTRANSFERSIZE above 64 KB (SQL Server 2016 CU4 and later)" : ""),
            "BUFFERCOUNT" => $"a production backup that sets it gets {option.Used} buffers too; the search retried with MAXTRANSFERSIZE alone and recommends no BUFFERCOUNT",
            "BLOCKSIZE" => "a production backup that sets it gets the server's block size too; no BLOCKSIZE is recommended",
            "COMPRESSION" => "a production backup that sets it is not compressed as asked; the search leaves compression to the server's default",
            _ => "the trial measured something else than it asked for",
        };
        return $"{option.Name}: trial {trial.Number} asked {option.Asked}, the server used {option.Used} ({server}). It matters because {why}. Microsoft's BACKUP page does not say when the server overrides it: confirm on production with the buffer configuration (trace flag 3213, or the capture session).";
    }

    private static string EditionName(int edition) => edition switch
    {
        2 => "Standard",
        3 => "Enterprise or Developer",
        4 => "Express",
        5 => "Azure SQL Database",
        8 => "Managed Instance",
        _ => "other",
    };

    private async Task<string> SearchAsync(Trial ceiling, Action<Trial> adopt, Func<Trial> incumbent, CancellationToken cancellationToken)
    {
        var flat = 0;
        var momentum = false;
        TrialPurpose? lastFlat = null;
        while (true)
        {
            var best = incumbent();
            if (best.Verdict?.Bottleneck == Bottleneck.NotAThroughputProblem && best.Runs[^1].Finished)
            {
                return $"The whole backup takes {Figures.Seconds(best.Runs[^1].WindowSeconds)}: too quick for its options to matter.";
            }

            if (ceiling.RateMBps > 0 && best.RateMBps >= (1 - NearCeiling) * ceiling.RateMBps)
            {
                return $"The source is the limit: {Figures.Rate(best.RateMBps)} is within {Figures.Percent(NearCeiling)} of the read ceiling ({Figures.Rate(ceiling.RateMBps)}).";
            }

            if (best.Verdict?.Bottleneck == Bottleneck.DataFileRead)
            {
                return "The source is the limit: the diagnosis of the best trial is data-file-read (the writers idle, waiting for data).";
            }

            // A kind of move that just gained nothing goes to the back: the next step tries another lever first.
            var candidate = NextMoves(best, momentum)
                .Select(move => (move.Purpose, Options: ForTargets(WithoutIgnored(move.Options))))
                .Where(move => !_tried.Contains((move.Options, false)) && Fits(move.Options) && FitsTargets(move.Options) && FitsSpace(move.Options))
                .OrderBy(move => move.Purpose == lastFlat)
                .FirstOrDefault();
            if (candidate.Options is null)
            {
                return $"Nothing left to try for a {Kebab.Of(best.Bottleneck ?? Bottleneck.Unknown)} bottleneck within the budgets.";
            }

            var trial = await RunNewAsync(candidate.Purpose, candidate.Options, toNul: false, cancellationToken);
            var (gain, adopted) = await CompareAsync(trial, best, cancellationToken);
            if (!adopted && trial.Measured && trial.Confirmed && trial.Bottleneck is Bottleneck.BackupDevice or Bottleneck.BufferStarved && trial.Bottleneck != best.Bottleneck)
            {
                // The move lifted one limit and hit another on the target side (compression off, now the files are slow):
                // one step further from it before it is judged, as an expert would.
                var next = NextMoves(trial, momentum: false)
                    .Select(move => (move.Purpose, Options: ForTargets(WithoutIgnored(move.Options))))
                    .FirstOrDefault(move => !_tried.Contains((move.Options, false)) && Fits(move.Options) && FitsTargets(move.Options) && FitsSpace(move.Options));
                if (next.Options is not null && TimeForAnotherRun())
                {
                    var child = await RunNewAsync(next.Purpose, next.Options, toNul: false, cancellationToken);
                    var (childGain, childAdopted) = await CompareAsync(child, best, cancellationToken);
                    if (childAdopted)
                    {
                        (trial, gain, adopted) = (child, childGain, true);
                    }
                }
            }

            // A buffer step that keeps going while the rate rises ends its run when it stops gaining: the end of the
            // buffer curve, not a failed move.
            var endOfBufferCurve = momentum && candidate.Purpose == TrialPurpose.MoreBufferMemory;
            if (adopted)
            {
                adopt(trial);
                momentum = trial.Purpose == TrialPurpose.MoreBufferMemory && gain >= MinimumGain;
            }
            else
            {
                momentum = false;
            }

            var progress = adopted && gain >= MinimumGain;

            // A trial the server ran with other options than asked is retried without the ignored one: not a step.
            var retry = trial.OptionsDiffer && _ignored.Count > 0;
            flat = progress ? 0 : endOfBufferCurve || retry ? flat : flat + 1;
            lastFlat = progress ? null : candidate.Purpose;
            if (flat >= FlatStepsToStop)
            {
                return $"Two steps in a row gained under {Figures.Percent(MinimumGain)}: the best trial is the optimum within reach.";
            }
        }
    }

    /// <summary>
    /// The relative gain of <paramref name="candidate"/> over <paramref name="incumbent"/> after repeating both, in
    /// alternating order, while the noise hides the difference; adopted only when the gain exceeds
    /// <see cref="ConfidenceDeviations"/> standard deviations of the difference and every option was confirmed.
    /// </summary>
    private async Task<(double Gain, bool Adopted)> CompareAsync(Trial candidate, Trial incumbent, CancellationToken cancellationToken)
    {
        while (true)
        {
            if (!candidate.Measured || !incumbent.Measured)
            {
                candidate.Judgement = "not adopted: not measured (too little progress in its window)";
                return (0, false);
            }

            var gain = candidate.RateMBps / incumbent.RateMBps - 1;
            var bound = ConfidenceDeviations * NoiseOfDifference(candidate, incumbent);
            if (gain > bound || gain < -bound || candidate.MeasuredRuns.Count >= MaxRunsPerTrial || !candidate.Confirmed || !TimeForAnotherRun())
            {
                var adopted = gain > bound && candidate.Confirmed;
                candidate.Judgement = string.Create(CultureInfo.InvariantCulture, $"{(adopted ? "adopted" : "not adopted")}: {(gain >= 0 ? "+" : "")}{gain * 100:0.0}% over trial {incumbent.Number}, ")
                    + (candidate.OptionsDiffer ? "but the server did not apply its options as asked"
                        : !candidate.Confirmed ? "but an option it asked for is not confirmed"
                        : string.Create(CultureInfo.InvariantCulture, $"{(adopted ? "above" : gain < -bound ? "below" : "within")} the noise (±{bound * 100:0.0}%, {ConfidenceDeviations:0} standard deviations of the difference over {candidate.MeasuredRuns.Count} and {incumbent.MeasuredRuns.Count} runs)"));
                return (gain, adopted);
            }

            // Alternated, so that a drift in the server's load does not always favour the same side (a drawn order lost
            // the 5% shape bound on 2 of 30 shape runs: docs/tuning.md, "Repeats").
            if ((candidate.Runs.Count + incumbent.Runs.Count) % 2 == 0)
            {
                await RunAgainAsync(candidate, cancellationToken);
                if (incumbent.Runs.Count < MaxRunsOfBest)
                {
                    await RunAgainAsync(incumbent, cancellationToken);
                }
            }
            else
            {
                if (incumbent.Runs.Count < MaxRunsOfBest)
                {
                    await RunAgainAsync(incumbent, cancellationToken);
                }

                await RunAgainAsync(candidate, cancellationToken);
            }
        }
    }

    private double NoiseOfDifference(Trial a, Trial b) =>
        Math.Max(MinimumNoise, Noise()) * Math.Sqrt(1.0 / Math.Max(1, a.MeasuredRuns.Count) + 1.0 / Math.Max(1, b.MeasuredRuns.Count));

    /// <summary>Run-to-run noise as measured: the relative deviation pooled over every option set measured more than once.</summary>
    private double Noise() => PooledNoise(_trials.Select(t => (t.RateMBps, (IReadOnlyList<double>)[.. t.MeasuredRuns.Select(r => r.RateMBps)])));

    private bool TimeForAnotherRun() => _spent + _window.TotalSeconds + TrialOverheadSeconds <= _request.TimeBudget.TotalSeconds;

    /// <summary>
    /// After a run that gave no rate, the window doubles, up to <see cref="LongestWindowShare"/> of the time budget;
    /// false when it cannot grow.
    /// </summary>
    private bool GrowWindow()
    {
        var longest = TimeSpan.FromSeconds(Math.Max(_request.Window.TotalSeconds, _request.TimeBudget.TotalSeconds * LongestWindowShare));
        var grown = TimeSpan.FromSeconds(Math.Min(longest.TotalSeconds, _window.TotalSeconds * 2));
        if (grown <= _window)
        {
            return false;
        }

        _window = grown;
        return true;
    }

    /// <summary>
    /// The options without what the server was seen to ignore: BUFFERCOUNT alone (the same memory at the transfer size the
    /// server kept) when it ignored MAXTRANSFERSIZE, MAXTRANSFERSIZE alone when it ignored BUFFERCOUNT, no BLOCKSIZE or
    /// COMPRESSION it ignored.
    /// </summary>
    private TrialOptions WithoutIgnored(TrialOptions options)
    {
        if (_ignored.TryGetValue("MAXTRANSFERSIZE", out var transfer) && options.MaxTransferSizeBytes is { } size)
        {
            var used = transfer.UsedTransferSize ?? OperationMeasures.DefaultMaxTransferSize;
            options = options with
            {
                BufferCount = options.BufferCount is { } count ? (int)Math.Min(int.MaxValue, (long)count * size / used) : null,
                MaxTransferSizeBytes = null,
            };
        }

        if (_ignored.ContainsKey("BUFFERCOUNT"))
        {
            options = options with { BufferCount = null };
        }

        if (_ignored.ContainsKey("BLOCKSIZE"))
        {
            options = options with { BlockSizeBytes = null };
        }

        if (_ignored.ContainsKey("COMPRESSION"))
        {
            options = options with { Compression = null, CompressionAlgorithm = null, CompressionLevel = null };
        }

        return options;
    }

    /// <summary>Room for the run's files within what the tune may leave behind (always, on a host that deletes them).</summary>
    private bool FitsSpace(TrialOptions options) => _space is null || _space.CanHost(options, _facts.CompressionDefault);

    /// <summary>
    /// The moves for the best trial's bottleneck: the diagnosis's own remedies first, then the rest of its class. With
    /// <paramref name="momentum"/> (the last step added buffer memory and gained) more buffer memory comes first, as
    /// long as the rate still rises with it.
    /// </summary>
    private IEnumerable<(TrialPurpose Purpose, TrialOptions Options)> NextMoves(Trial best, bool momentum)
    {
        var options = best.Requested;
        var operation = best.Runs[^1].Operation;
        var remedies = operation is null ? [] : _diagnostician.Diagnose(operation).Recommendations.Select(r => r.Id).ToList();
        var order = new List<string>();
        if (momentum && best.Bottleneck is not (Bottleneck.DataFileRead or Bottleneck.CompressionCpu))
        {
            order.Add(RecommendationIds.RaiseBuffers);
        }

        order.AddRange(remedies);
        order.AddRange((best.Bottleneck ?? Bottleneck.Unknown) switch
        {
            Bottleneck.BufferStarved => [RecommendationIds.RaiseBuffers],
            Bottleneck.BackupDevice => [RecommendationIds.StripeDevices, RecommendationIds.EnableCompression, RecommendationIds.BlockSize65536, RecommendationIds.RaiseBuffers],
            Bottleneck.CompressionCpu => [RecommendationIds.TestWithoutCompression],
            Bottleneck.DataFileRead => [],
            _ => [RecommendationIds.RaiseBuffers, RecommendationIds.StripeDevices, RecommendationIds.BlockSize65536, RecommendationIds.EnableCompression],
        });
        foreach (var id in order.Distinct())
        {
            switch (id)
            {
                case RecommendationIds.RaiseBuffers:
                    if (BufferMove(best, TrialPurpose.MoreBufferMemory) is { } buffers)
                    {
                        yield return (TrialPurpose.MoreBufferMemory, buffers);
                    }

                    break;
                case RecommendationIds.StripeDevices:
                    var files = Math.Min(_urls.Count > 0 ? _urls[0].Limits.MaxUrls : MaxFiles, Math.Max(2, options.Files * 2));
                    if (files > options.Files)
                    {
                        yield return (TrialPurpose.MoreFiles, options with { Files = files });
                    }

                    break;
                case RecommendationIds.EnableCompression when _facts.CompressionAvailable && !CompressionOn(best):
                    yield return (TrialPurpose.Compression, CompressionOptions(options with { Compression = true, CompressionAlgorithm = null, CompressionLevel = null }));
                    break;
                case RecommendationIds.BlockSize65536 when options.BlockSizeBytes != BlockSize:
                    yield return (TrialPurpose.BlockSize, options with { BlockSizeBytes = BlockSize });
                    break;
                case RecommendationIds.TestWithoutCompression when CompressionOn(best):
                    yield return (TrialPurpose.NoCompression, options with { Compression = false, CompressionAlgorithm = null, CompressionLevel = null });
                    foreach (var algorithm in _facts.CompressionAlgorithms.Where(a => !a.Equals(options.CompressionAlgorithm ?? "MS_XPRESS", StringComparison.OrdinalIgnoreCase)))
                    {
                        var level = algorithm.Equals("ZSTD", StringComparison.OrdinalIgnoreCase) && _facts.CompressionLevels.Count > 0 ? _facts.CompressionLevels[0] : null;
                        yield return (TrialPurpose.OtherAlgorithm, CompressionOptions(options with { Compression = true, CompressionAlgorithm = algorithm, CompressionLevel = level }));
                    }

                    break;
                default:
                    break;
            }
        }
    }

    /// <summary>A TDE database compresses only with MAXTRANSFERSIZE above 64 KB: a compressed trial asks for 128 KB at least.</summary>
    private TrialOptions CompressionOptions(TrialOptions options) =>
        _facts.Encrypted && options.MaxTransferSizeBytes is null or <= 64 * 1024 ? options with { MaxTransferSizeBytes = Math.Max(options.MaxTransferSizeBytes ?? 0, 128 * 1024) } : options;

    private bool CompressionOn(Trial trial) =>
        trial.Runs.LastOrDefault()?.Operation?.Options?.Compression ?? trial.Requested.Compression ?? _facts.CompressionDefault;

    /// <summary>
    /// More buffer memory than <paramref name="from"/> used, through the same proposal the raise-buffers remedy makes
    /// (priced at the ratio the server reports, capped by its memory limit and the budget), doubled while the
    /// proposal was already tried.
    /// </summary>
    private TrialOptions? BufferMove(Trial from, TrialPurpose purpose, bool? compressed = null)
    {
        if (from.Runs.LastOrDefault()?.Operation is not { } operation)
        {
            return null;
        }

        var measures = OperationMeasures.Of(operation);
        var toNul = purpose is TrialPurpose.ReadCeiling or TrialPurpose.ReadCeilingCompressed;
        var requested = compressed is { } on ? from.Requested with { Compression = on } : from.Requested;

        // The proposal prices at the ratio the measured trial reported; the cap is scaled so that it fits at the ratio
        // the new options will take (a compressed backup's, when it was measured uncompressed).
        var measured = measures.ReportedBufferRatio is > 1 and var r ? r : 1;
        var cap = (long)(Cap() * measured / _pricing.Ratio(KindOf(requested)));
        for (var target = _diagnostician.Settings.TargetBuffersPerDevice; target <= 4096; target *= 2)
        {
            if (BufferPlan.Propose(measures, _diagnostician.Settings with { MemoryBudgetBytes = cap }, target) is not { } plan)
            {
                continue;
            }

            var options = WithoutIgnored(requested with { BufferCount = plan.BufferCount, MaxTransferSizeBytes = plan.MaxTransferSizeBytes });
            if (!Fits(options))
            {
                return null;
            }

            if (!_tried.Contains((options, toNul)))
            {
                return options;
            }

            if (plan.Capped)
            {
                return null;
            }
        }

        return null;
    }

    private long Cap() => _memoryLimit is { } limit ? Math.Min(limit, _request.MemoryBudgetBytes) : _request.MemoryBudgetBytes;

    /// <summary>
    /// The buffer memory a trial will take as the server counts it (<see cref="BufferPricing"/>): BUFFERCOUNT x
    /// MAXTRANSFERSIZE at the ratio of Total buffer space the server reported for its kind; the default count by the
    /// published formula (5 per file and 2 per volume, 4 volumes assumed).
    /// </summary>
    internal long PricedMemory(TrialOptions options)
    {
        var bytes = options.RequestedBufferBytes
            ?? ((options.BufferCount ?? (options.Files * 5) + 8) * (options.MaxTransferSizeBytes ?? OperationMeasures.DefaultMaxTransferSize));
        return _pricing.Price(bytes, KindOf(options));
    }

    private BufferKind KindOf(TrialOptions options) => options.Compression ?? _facts.CompressionDefault ? BufferKind.CompressedBackup : BufferKind.Backup;

    private bool Fits(TrialOptions options) => PricedMemory(options) <= Cap();

    /// <summary>Options striped over the URLs the database needs (<see cref="UrlsFor"/>); as they are for directories.</summary>
    private TrialOptions ForTargets(TrialOptions options) => _urls.Count > 0 ? UrlsFor(_urls[0].Limits, _facts.DatabaseBytes, options) : options;

    /// <summary>
    /// The baseline's options for the targets; a database larger than the most URLs hold at the largest transfer size
    /// stops the tune before any trial writes.
    /// </summary>
    private TrialOptions BaselineForTargets(TrialOptions options)
    {
        var targeted = ForTargets(options);
        return FitsTargets(targeted)
            ? targeted
            : throw new TuningStopped(string.Create(CultureInfo.InvariantCulture,
                $"[{_request.Database}] holds {Figures.Bytes(_facts.DatabaseBytes)}: more than {_urls[0].Limits.MaxUrls} URLs of {_urls[0].Describe(_urls[0].Limits.MaxTransferBytes)} hold, so no trial to these URLs could finish."), refused: true);
    }

    /// <summary>
    /// For URLs: at most the URLs a backup takes, a MAXTRANSFERSIZE the storage takes, and room for the whole database
    /// (URLs x blocks per blob x MAXTRANSFERSIZE), since a trial that finishes writes all of it. Always true for directories.
    /// </summary>
    private bool FitsTargets(TrialOptions options)
    {
        if (_urls.Count == 0)
        {
            return true;
        }

        var limits = _urls[0].Limits;
        return options.Files <= limits.MaxUrls && limits.Takes(options.MaxTransferSizeBytes, options.Compression)
            && limits.CapacityBytes(options.Files, options.MaxTransferSizeBytes) >= _facts.DatabaseBytes;
    }

    private async Task<Trial> RunNewAsync(TrialPurpose purpose, TrialOptions options, bool toNul, CancellationToken cancellationToken)
    {
        var trial = new Trial(_trials.Count + 1, purpose, options, toNul);
        _tried.Add((options, toNul));

        // Listed before it runs: a trial the tune stops on (not measured, out of budget) is still reported.
        _trials.Add(trial);
        await RunAgainAsync(trial, cancellationToken);
        return trial;
    }

    /// <summary>
    /// One more run of <paramref name="trial"/>; when its window gave too little progress to measure, the window grows
    /// and the run is made again while the budget allows, so that a large database is measured rather than read as 0 MB/s.
    /// </summary>
    private async Task RunAgainAsync(Trial trial, CancellationToken cancellationToken)
    {
        await RunOnceAsync(trial, cancellationToken);
        var growing = true;
        while (!trial.Runs[^1].Measured && (growing = GrowWindow()) && TimeForAnotherRun())
        {
            await RunOnceAsync(trial, cancellationToken);
        }

        if (!trial.Runs[^1].Measured && !growing)
        {
            // The longest window the budget allows gave nothing: later trials move no faster, so the budget is kept.
            throw new TuningStopped(CannotMeasure($"trial {trial.Number} ({Kebab.Of(trial.Purpose)}{(trial.ToNul ? " to NUL" : "")})"), refused: false);
        }
    }

    private async Task RunOnceAsync(Trial trial, CancellationToken cancellationToken)
    {
        var expected = _window.TotalSeconds + TrialOverheadSeconds;
        if (_spent + expected > _request.TimeBudget.TotalSeconds)
        {
            throw new TuningStopped($"The time budget ({Figures.Seconds(_request.TimeBudget.TotalSeconds)}) leaves no room for another trial of up to {Figures.Seconds(expected)}.", refused: false);
        }

        if (!Fits(trial.Requested))
        {
            throw new TuningStopped($"{trial.Requested.Describe()} would take {Figures.Memory(PricedMemory(trial.Requested))} of buffer memory, above {Figures.Memory(Cap())}.", refused: true);
        }

        if (await _server.BackupOrRestoreRunningAsync(_request.Database, cancellationToken))
        {
            throw new TuningStopped($"Another backup or restore of {_request.Database} is running: no trial runs beside it.", refused: true);
        }

        var run = trial.Runs.Count + 1;
        TrialSpace.Slot? slot = null;
        if (!trial.ToNul && _space is not null)
        {
            slot = _space.Take(trial.Requested, _facts.CompressionDefault)
                ?? throw new TuningStopped($"No room for trial {trial.Number}'s files within what the tune may leave behind ({Figures.Bytes(_space.LimitBytes)}).", refused: false);
        }

        var statement = trial.ToNul
            ? TrialStatement.ToNulDevice(_request.Database, trial.Requested, _request.RunId, trial.Number, run)
            : slot is not null
                ? TrialStatement.ToMediaSet(_request.Database, _request.Directories, trial.Requested, slot.MediaName, slot.Reused, _request.RunId, trial.Number, run)
                : TrialStatement.ToFiles(_request.Database, _request.Directories, trial.Requested, _request.RunId, trial.Number, run);
        if (!trial.ToNul)
        {
            await CheckTargetsAsync(statement, cancellationToken);
        }

        TrialCapture? capture = null;
        try
        {
            capture = await _server.RunTrialAsync(statement, _window, cancellationToken);
        }
        catch (TrialFailedException failure)
        {
            throw new TuningStopped($"Trial {trial.Number} failed: {failure.Message}", refused: true);
        }
        finally
        {
            if (!trial.ToNul)
            {
                await CleanUpAsync(statement);
            }
        }

        _spent += capture.WallSeconds;
        if (capture.Finished && !trial.ToNul && !_server.DeletesFiles && _finishedBackup is null)
        {
            // The restore trials read this backup: its media set is kept as it is, never overwritten.
            _finishedBackup = statement.Devices;
            slot?.Pinned = true;
        }

        var verdict = _diagnostician.Diagnose(capture.Operation).Verdict;
        var measured = TrialMeasure.Of(statement, capture, verdict, _facts.DatabaseBytes);
        trial.Add(measured);
        foreach (var ignored in measured.Ignored)
        {
            _ignored.TryAdd(ignored.Name, (trial, ignored, capture.Operation.BufferConfig?.MaxTransferSizeBytes));
        }

        if ((measured.ReportedBufferRatio ?? capture.Operation.BufferConfig?.SetsOfBuffers) is { } ratio)
        {
            _pricing.Learn(KindOf(trial.Requested), ratio);
        }

        if (measured.MemoryLimitBytes is { } limit)
        {
            _memoryLimit = _memoryLimit is { } known ? Math.Min(known, limit) : limit;
        }

        if (measured.BufferMemoryBytes > _request.MemoryBudgetBytes)
        {
            throw new TuningStopped($"The server reported {Figures.Memory(measured.BufferMemoryBytes.Value)} of buffer memory for trial {trial.Number}, above the budget of {Figures.Memory(_request.MemoryBudgetBytes)}: stopped.", refused: true);
        }
    }

    /// <summary>
    /// Restore trials: a complete backup restored into a new scratch database per trial (WITH MOVE under the scratch
    /// directory, never REPLACE, the name checked unused first), stopped at its window like a backup trial and dropped
    /// after it, Ctrl-C included. The server's defaults first, then a 4 MB transfer size, then larger buffer counts
    /// within the memory budget, while each step gains. Each runs once: a restore's rate is judged on one window.
    /// </summary>
    private async Task<RestoreTuningResult> RestoreAsync(RestoreTuneRequest request, CancellationToken cancellationToken)
    {
        // Checked before any trial (RunAsync): a host that got this far runs restore trials.
        var host = (IRestoreTrialHost)_server;

        var from = request.From.Count > 0 ? request.From : _finishedBackup;
        if (from is null)
        {
            return RestoreTuningResult.Nothing("No restore trial ran: no trial backup finished within its window (a longer --window lets one finish), and --restore-from names no complete backup.");
        }

        IReadOnlyList<BackupFileEntry> files;
        try
        {
            files = await host.FileListAsync(from, cancellationToken);
        }
        catch (TrialFailedException failure)
        {
            return RestoreTuningResult.Nothing($"No restore trial ran: the backup's file list cannot be read: {failure.Message}");
        }

        var ifi = await host.InstantFileInitializationAsync(cancellationToken);
        var trials = new List<RestoreTrial>();
        var notDropped = new List<string>();
        RestoreTrial? best = null;
        string reason;
        var refused = false;
        try
        {
            reason = await RestoreSearchAsync(host, request, from, files, trials, notDropped, b => best = b, () => best, cancellationToken);
        }
        catch (TuningStopped stop)
        {
            (reason, refused) = (stop.Message, stop.Refused);
        }

        return new RestoreTuningResult(trials, best, ifi, reason, refused, notDropped);
    }

    private async Task<string> RestoreSearchAsync(
        IRestoreTrialHost host, RestoreTuneRequest request, IReadOnlyList<string> from, IReadOnlyList<BackupFileEntry> files,
        List<RestoreTrial> trials, List<string> notDropped, Action<RestoreTrial> adopt, Func<RestoreTrial?> incumbent, CancellationToken cancellationToken)
    {
        var context = new RestoreContext(host, request, from, files, notDropped, trials);
        var steps = new List<(int? Count, long? Size)> { (null, null), (null, RestoreTuneRequest.LargeTransferSize) };
        var next = 0;
        while (trials.Count < RestoreTuneRequest.MaxTrials)
        {
            var best = incumbent();
            if (next >= steps.Count)
            {
                // Larger buffer counts at the best transfer size so far, as long as they fit the budget as the server counts them.
                var size = best?.MaxTransferSizeBytes;
                var count = RestoreTuneRequest.BufferCounts.FirstOrDefault(c => (best?.BufferCount is not { } b || c > b)
                    && RestoreFits(c, size));
                if (count == 0)
                {
                    return "No larger buffer count fits the memory budget.";
                }

                steps.Add((count, size));
            }

            var (bufferCount, transferSize) = steps[next++];
            if (!RestoreFits(bufferCount, transferSize))
            {
                continue;
            }

            if (!TimeForAnotherRun())
            {
                return $"The time budget ({Figures.Seconds(_request.TimeBudget.TotalSeconds)}) leaves no room for another restore trial.";
            }

            var trial = new RestoreTrial(trials.Count + 1, bufferCount, transferSize);
            trials.Add(trial);
            await RestoreRunAsync(context, trial, cancellationToken);
            if (best is null)
            {
                // The server's defaults run twice, as the backup baseline does: the first measure of the restores' noise.
                if (TimeForAnotherRun())
                {
                    await RestoreRunAsync(context, trial, cancellationToken);
                }

                adopt(trial);
                continue;
            }

            var gain = await CompareRestoresAsync(context, trial, best, cancellationToken);
            if (gain > 0 && !trial.OptionsDiffer)
            {
                adopt(trial);
            }

            // After the defaults and the transfer size, a buffer step that gains under a few percent ends the search.
            if (next > 2 && gain < MinimumGain)
            {
                return $"The last buffer step gained under {Figures.Percent(MinimumGain)}: the best restore trial is the optimum within reach.";
            }
        }

        return $"{RestoreTuneRequest.MaxTrials} restore trials ran, the most a tune runs.";
    }

    /// <summary>
    /// The relative gain of <paramref name="candidate"/> over <paramref name="incumbent"/> after repeating both while the
    /// noise is larger than the gain: the backup trials' rule (<see cref="CompareAsync"/>). Which of the two runs first
    /// in each round is drawn at random (seeded by the run id), since a restore right after another may find the backup's
    /// files in the server's cache.
    /// </summary>
    private async Task<double> CompareRestoresAsync(RestoreContext context, RestoreTrial candidate, RestoreTrial incumbent, CancellationToken cancellationToken)
    {
        while (true)
        {
            var gain = candidate.RateMBps / incumbent.RateMBps - 1;
            if (Math.Abs(gain) > 2 * RestoreNoiseOfDifference(candidate, incumbent, context.Trials) || candidate.Runs.Count >= MaxRunsPerTrial || candidate.OptionsDiffer || !TimeForAnotherRun())
            {
                return gain;
            }

            RestoreTrial[] round = _order.Next(2) == 0 ? [candidate, incumbent] : [incumbent, candidate];
            foreach (var trial in round.Where(t => t == candidate || t.Runs.Count < MaxRunsOfBest))
            {
                if (!TimeForAnotherRun())
                {
                    break;
                }

                await RestoreRunAsync(context, trial, cancellationToken);
            }
        }
    }

    private static double RestoreNoiseOfDifference(RestoreTrial a, RestoreTrial b, IReadOnlyList<RestoreTrial> trials)
        => Math.Max(MinimumNoise, PooledNoise(trials.Select(t => (t.RateMBps, (IReadOnlyList<double>)[.. t.Runs.Select(r => r.RateMBps)])))) * Math.Sqrt(1.0 / a.Runs.Count + 1.0 / b.Runs.Count);

    /// <summary>Relative run-to-run deviation pooled over every option set run more than once.</summary>
    private static double PooledNoise(IEnumerable<(double Mean, IReadOnlyList<double> Rates)> sets)
    {
        var repeated = sets.Where(s => s.Rates.Count >= 2 && s.Mean > 0).ToList();
        var degrees = repeated.Sum(s => s.Rates.Count - 1);
        var squares = repeated.Sum(s => s.Rates.Sum(r => (r - s.Mean) / s.Mean * ((r - s.Mean) / s.Mean)));
        return degrees == 0 ? 0 : Math.Sqrt(squares / degrees);
    }

    /// <summary>Restore buffers priced as the server counts them (<see cref="BufferPricing"/>), within the budget and the reported limit.</summary>
    private bool RestoreFits(int? count, long? size) =>
        count is not { } c || _pricing.Price(c * (size ?? OperationMeasures.DefaultMaxTransferSize), BufferKind.Restore) <= Cap();

    /// <summary>One run of a restore trial into a scratch database of its own, dropped after it whatever happens.</summary>
    private async Task RestoreRunAsync(RestoreContext context, RestoreTrial trial, CancellationToken cancellationToken)
    {
        var host = context.Host;
        var statement = RestoreTrialStatement.Of(context.From, context.Files, context.Request.ScratchDirectory, _request.RunId, trial.Number, trial.BufferCount, trial.MaxTransferSizeBytes, trial.Runs.Count + 1);
        if (await host.DatabaseExistsAsync(statement.Database, cancellationToken))
        {
            throw new TuningStopped($"A database named {statement.Database} exists: a restore trial never restores over a database.", refused: true);
        }

        // The restore creates every file at its full size before it copies.
        await CheckFreeAsync(context.Request.ScratchDirectory, context.Files.Sum(f => f.SizeBytes), "a restore trial", cancellationToken);
        TrialCapture capture;
        try
        {
            capture = await host.RunRestoreAsync(statement, _request.Window, cancellationToken);
        }
        catch (TrialFailedException failure)
        {
            throw new TuningStopped($"Restore trial {trial.Number} failed: {failure.Message}", refused: true);
        }
        finally
        {
            // Dropped whatever happened, Ctrl-C included: a scratch database left behind is listed with its DROP.
            if (await host.DropAsync(statement, CancellationToken.None) is { } problem)
            {
                context.NotDropped.Add($"{statement.DropSql} -- {problem}");
            }
        }

        _spent += capture.WallSeconds;
        var operation = capture.Operation;
        var (rate, window, _, _) = TrialMeasure.Rate(operation);
        var verdict = _diagnostician.Diagnose(operation).Verdict;
        var measures = OperationMeasures.Of(operation);
        var (differences, differ) = TrialMeasure.BufferDifferences(trial.BufferCount, trial.MaxTransferSizeBytes, operation.BufferConfig);
        trial.Add(new RestoreRun(statement.Database, rate, window, capture.Finished, operation.Zeroing, verdict?.Bottleneck,
            RestoreLimit.Of(operation, verdict, _diagnostician.Settings), measures.BufferMemoryBytes)
        {
            Differences = differences,
            OptionsDiffer = differ,
        });
        if ((measures.ReportedBufferRatio ?? operation.BufferConfig?.SetsOfBuffers) is { } ratio)
        {
            _pricing.Learn(BufferKind.Restore, ratio);
        }

        if (operation.BufferConfig?.MemoryLimitBytes is { } limit)
        {
            _memoryLimit = _memoryLimit is { } known ? Math.Min(known, limit) : limit;
        }

        if (measures.BufferMemoryBytes > _request.MemoryBudgetBytes)
        {
            throw new TuningStopped($"The server reported {Figures.Memory(measures.BufferMemoryBytes.Value)} of buffer memory for restore trial {trial.Number}, above the budget of {Figures.Memory(_request.MemoryBudgetBytes)}: stopped.", refused: true);
        }
    }

    /// <summary>What every restore run of one tune shares.</summary>
    private sealed record RestoreContext(
        IRestoreTrialHost Host, RestoreTuneRequest Request, IReadOnlyList<string> From, IReadOnlyList<BackupFileEntry> Files, List<string> NotDropped, List<RestoreTrial> Trials);

    /// <summary>
    /// The files are this trial's own (checked absent, or refused by the server through MEDIANAME, before it ran):
    /// deleted even when it failed or was cancelled, or, when the host cannot delete, kept and listed with at most the
    /// bytes the trial read (a compressed trial writes less).
    /// </summary>
    private async Task CleanUpAsync(TrialStatement statement)
    {
        foreach (var path in statement.Devices)
        {
            if (_server.DeletesFiles && _urls.Count == 0)
            {
                await _server.DeleteFileAsync(path, CancellationToken.None);
            }
            else if (!_kept.Any(f => f.Path == path))
            {
                // Each file, and the whole media set with it, holds at most one full backup: a stripe's share is not an
                // upper bound (stripes are not even, a compressed file is allocated ahead), the whole backup is.
                _kept.Add(new KeptTrialFile(path, FullBackupBytesAtMost(_facts)) { MediaName = statement.MediaName });
            }
        }
    }

    private async Task CheckTargetsAsync(TrialStatement statement, CancellationToken cancellationToken)
    {
        if (_urls.Count > 0)
        {
            // Blobs: the server refuses one that exists (no FORMAT), and their room was checked with the options (FitsTargets).
            return;
        }

        foreach (var path in statement.Devices.Where(path => !_kept.Any(f => f.Path == path && f.MediaName == statement.MediaName)))
        {
            // A file of this tune's own media set is overwritten WITH INIT under its media name; any other is never touched.
            if (await _server.FileExistsAsync(path, cancellationToken) == true)
            {
                throw new TuningStopped($"{path} already exists: a trial never writes over a file that is not the tune's own.", refused: true);
            }
        }

        // An uncompressed trial that finishes writes at most the database's size, split over its files.
        var perFile = _facts.DatabaseBytes / statement.Devices.Count;
        if (statement.Overwrite)
        {
            // The run overwrites its media set's own files, which already hold their share: room was checked when they were made.
            return;
        }

        foreach (var group in statement.Devices.GroupBy(path => _request.Directories.First(d => path.StartsWith(d.TrimEnd('\\', '/'), StringComparison.Ordinal))))
        {
            await CheckFreeAsync(group.Key, perFile * group.Count() + (perFile * group.Count() / 10), "a trial", cancellationToken);
        }
    }

    /// <summary>
    /// Room for <paramref name="needed"/> bytes in <paramref name="directory"/>, as the server reports it or, where it
    /// cannot, as the DBA stated it or accepted not to know; else the tune stops with the reason.
    /// </summary>
    private async Task CheckFreeAsync(string directory, long needed, string what, CancellationToken cancellationToken)
    {
        var free = await _server.FreeSpaceAsync(directory, cancellationToken);
        if (free.Bytes is null && Overridden(directory, free.Unknown ?? "the server did not say") is { } stated)
        {
            free = stated;
        }

        if (free.Bytes is null && _request.AcceptUnknownFreeSpace)
        {
            return;
        }

        if (free.Bytes is not { } bytes || bytes < needed)
        {
            throw new TuningStopped(free.Bytes is null
                ? $"The free space of {directory} cannot be read ({free.Unknown ?? "the server did not say"}): no trial writes there without it. State it with --free-space-mb \"{directory}=MB\", or accept the risk with --accept-unknown-free-space."
                : $"{directory} has {Figures.Memory(free.Bytes.Value)} free{(_request.StatedFreeBytes.ContainsKey(directory) && _overrides.ContainsKey(directory) ? " (as stated, less the trial files already kept there)" : "")}; {what} may write {Figures.Memory(needed)} there.", refused: true);
        }
    }

    /// <summary>
    /// The free space the DBA stated for <paramref name="directory"/>, less every byte the trials kept there may hold,
    /// or null when none was stated; either override is recorded, once per directory, for the report.
    /// </summary>
    private FreeSpace? Overridden(string directory, string why)
    {
        if (_request.StatedFreeBytes.TryGetValue(directory, out var stated))
        {
            _overrides.TryAdd(directory, $"{directory}: the server cannot report its free space ({why}); the stated {Figures.Memory(stated)} (--free-space-mb) was used in its place, less what earlier trials left there.");
            var kept = TrialFileCleanup.TotalBytesAtMost([.. _kept.Where(file => file.Path.StartsWith(TrialStatement.Join(directory, string.Empty), StringComparison.Ordinal))])
                ?? _kept.Count * FullBackupBytesAtMost(_facts);
            return FreeSpace.Of(Math.Max(0, stated - kept));
        }

        if (_request.AcceptUnknownFreeSpace)
        {
            _overrides.TryAdd(directory, $"{directory}: the server cannot report its free space ({why}); the check was overridden (--accept-unknown-free-space) and trials wrote there unchecked.");
        }

        return null;
    }

    private sealed class TuningStopped(string message, bool refused) : Exception(message)
    {
        public bool Refused { get; } = refused;
    }
}
