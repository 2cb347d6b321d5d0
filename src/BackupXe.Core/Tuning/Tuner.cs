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
/// The restore trials that follow (<see cref="RestoreSearch"/>) judge by the same comparison
/// (<see cref="RepeatedComparison{TTrial}"/>) and spend the same budget (<see cref="TuningBudget"/>); the dry run's
/// plan is <see cref="TuningPlanner"/>'s, and where trials write is guarded by <see cref="TrialWrites"/>.
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
    private readonly TuningBudget _budget;
    private readonly RepeatedComparison<Trial> _comparison;
    private readonly IgnoredOptions _ignored = new();

    /// <summary>Draws which of two restore trials runs first in a round of repeats; seeded by the run id, so a run replays.</summary>
    private readonly Random _order;
    private IReadOnlyList<string>? _finishedBackup;
    private readonly IReadOnlyList<UrlTarget> _urls;
    private TuningFacts _facts = null!;
    private TrialWrites? _writes;
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
        _budget = new TuningBudget(request);
        _comparison = new RepeatedComparison<Trial>(_budget, new AlternatedOrder(), RunAgainAsync);
    }

    /// <summary>The dry run, the default: asks the server for its facts and nothing else; no trial runs, no file is touched.</summary>
    public static async Task<TuningPlan> PlanAsync(ITuningServer server, TuneRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(server);
        ArgumentNullException.ThrowIfNull(request);
        var facts = await server.DescribeAsync(request.Database, cancellationToken);
        var plan = TuningPlanner.ForHost(TuningPlanner.Plan(facts, request), server, facts, request);
        return await server.BackupOrRestoreRunningAsync(request.Database, cancellationToken)
            ? plan with { Notes = [.. plan.Notes, $"Another backup or restore of {request.Database} is running now: --execute refuses to start beside it."] }
            : plan;
    }

    /// <summary>
    /// Trial files left on the server because the host cannot delete them, so far: after <see cref="RunAsync"/> threw
    /// (Ctrl-C), the ones to list for the DBA.
    /// </summary>
    public IReadOnlyList<KeptTrialFile> KeptFiles => _writes?.Kept ?? [];

    /// <summary>The server's facts once <see cref="RunAsync"/> has read them (the platform decides the clean-up command).</summary>
    public TuningFacts? Facts { get; private set; }

    /// <summary>Runs the trials. Cancellation stops the running backup, deletes or keeps its files (<see cref="KeptFiles"/>) and throws.</summary>
    public async Task<TuningResult> RunAsync(CancellationToken cancellationToken)
    {
        _facts = await _server.DescribeAsync(_request.Database, cancellationToken);
        Facts = _facts;
        var plan = TuningPlanner.ForHost(TuningPlanner.Plan(_facts, _request), _server, _facts, _request);
        _writes = new TrialWrites(_server, _request, _facts);
        var unready = _urls is [{ Storage: UrlStorage.S3Compatible }, ..] ? [TuningPlanner.S3NotRun] : await _server.CheckReadyAsync(_request, cancellationToken);
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
            return new TuningResult(plan, _facts, [], null, null, null, null, "Nothing ran: " + string.Join(" ", unready), Refused: true, 0, 0) { KeptFiles = _writes.Kept, FreeSpaceOverrides = _writes.Overrides };
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
                : await new RestoreSearch((IRestoreTrialHost)_server, _request, restoreRequest, _budget, _diagnostician, _writes, _order)
                    .RunAsync(_finishedBackup, cancellationToken);
        }

        return new TuningResult(plan, _facts, _trials, ceiling is { Measured: true } ? ceiling : null, compressed is { Measured: true } ? compressed : null, baseline, best, reason, refused, _budget.SpentSeconds, RunNoise.Pooled(_trials))
        {
            KeptFiles = _writes.Kept,
            FreeSpaceOverrides = _writes.Overrides,
            Restore = restore,
            IgnoredOptions = _ignored.Notes(_facts, _urls),
            WindowSeconds = _budget.Window.TotalSeconds,
            KeptBytesAtMost = _space?.BytesAtMost,
            KeptBytesLimit = _space?.LimitBytes,
        };
    }

    /// <summary>Why nothing can be recommended when even the longest window the budget allows gave no rate.</summary>
    private string CannotMeasure(string what) => string.Create(CultureInfo.InvariantCulture,
        $"Cannot tell: {what} gave too little progress to measure in a window of up to {Figures.Seconds(_budget.Window.TotalSeconds)} (no progress line past the warm-up, no percent_complete, no finished trial in msdb): a longer --window or --time-budget lets a trial move far enough to be measured.");

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

        return _trials.Where(t => !t.ToNul && t.Measured && t.Confirmed && t.RateMBps >= fastest.RateMBps * (1 - RunNoise.OfDifference(t, fastest, _trials)))
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
                .Select(move => (move.Purpose, Options: ForTargets(_ignored.Without(move.Options))))
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
                    .Select(move => (move.Purpose, Options: ForTargets(_ignored.Without(move.Options))))
                    .FirstOrDefault(move => !_tried.Contains((move.Options, false)) && Fits(move.Options) && FitsTargets(move.Options) && FitsSpace(move.Options));
                if (next.Options is not null && _budget.TimeForAnotherRun())
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
    /// The relative gain of <paramref name="candidate"/> over <paramref name="incumbent"/> by the shared comparison
    /// (<see cref="RepeatedComparison{TTrial}"/>, repeats in alternating order); adopted only when the gain exceeds
    /// <see cref="ConfidenceDeviations"/> standard deviations of the difference and every option was confirmed.
    /// </summary>
    private async Task<(double Gain, bool Adopted)> CompareAsync(Trial candidate, Trial incumbent, CancellationToken cancellationToken)
    {
        if (await _comparison.CompareAsync(candidate, incumbent, _trials, cancellationToken) is not { } comparison)
        {
            candidate.Judgement = "not adopted: not measured (too little progress in its window)";
            return (0, false);
        }

        var (gain, bound) = comparison;

        var adopted = gain > bound && candidate.Confirmed;
        candidate.Judgement = string.Create(CultureInfo.InvariantCulture, $"{(adopted ? "adopted" : "not adopted")}: {(gain >= 0 ? "+" : "")}{gain * 100:0.0}% over trial {incumbent.Number}, ")
            + (candidate.OptionsDiffer ? "but the server did not apply its options as asked"
                : !candidate.Confirmed ? "but an option it asked for is not confirmed"
                : string.Create(CultureInfo.InvariantCulture, $"{(adopted ? "above" : gain < -bound ? "below" : "within")} the noise (±{bound * 100:0.0}%, {ConfidenceDeviations:0} standard deviations of the difference over {candidate.MeasuredRuns.Count} and {incumbent.MeasuredRuns.Count} runs)"));
        return (gain, adopted);
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
        var cap = (long)(_budget.MemoryCap * measured / _budget.Ratio(KindOf(requested)));
        for (var target = _diagnostician.Settings.TargetBuffersPerDevice; target <= 4096; target *= 2)
        {
            if (BufferPlan.Propose(measures, _diagnostician.Settings with { MemoryBudgetBytes = cap }, target) is not { } plan)
            {
                continue;
            }

            var options = _ignored.Without(requested with { BufferCount = plan.BufferCount, MaxTransferSizeBytes = plan.MaxTransferSizeBytes });
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

    /// <summary>
    /// The buffer memory a trial will take as the server counts it (<see cref="BufferPricing"/>): BUFFERCOUNT x
    /// MAXTRANSFERSIZE at the ratio of Total buffer space the server reported for its kind; the default count by the
    /// published formula (5 per file and 2 per volume, 4 volumes assumed).
    /// </summary>
    internal long PricedMemory(TrialOptions options)
    {
        var bytes = options.RequestedBufferBytes
            ?? ((options.BufferCount ?? (options.Files * 5) + 8) * (options.MaxTransferSizeBytes ?? OperationMeasures.DefaultMaxTransferSize));
        return _budget.Price(bytes, KindOf(options));
    }

    private BufferKind KindOf(TrialOptions options) => options.Compression ?? _facts.CompressionDefault ? BufferKind.CompressedBackup : BufferKind.Backup;

    private bool Fits(TrialOptions options) => PricedMemory(options) <= _budget.MemoryCap;

    /// <summary>Options striped over the URLs the database needs (<see cref="TuningPlanner.UrlsFor"/>); as they are for directories.</summary>
    private TrialOptions ForTargets(TrialOptions options) => _urls.Count > 0 ? TuningPlanner.UrlsFor(_urls[0].Limits, _facts.DatabaseBytes, options) : options;

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
        while (!trial.Runs[^1].Measured && (growing = _budget.GrowWindow()) && _budget.TimeForAnotherRun())
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
        var expected = _budget.Window.TotalSeconds + TrialOverheadSeconds;
        if (_budget.SpentSeconds + expected > _request.TimeBudget.TotalSeconds)
        {
            throw new TuningStopped($"The time budget ({Figures.Seconds(_request.TimeBudget.TotalSeconds)}) leaves no room for another trial of up to {Figures.Seconds(expected)}.", refused: false);
        }

        if (!Fits(trial.Requested))
        {
            throw new TuningStopped($"{trial.Requested.Describe()} would take {Figures.Memory(PricedMemory(trial.Requested))} of buffer memory, above {Figures.Memory(_budget.MemoryCap)}.", refused: true);
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
            await _writes!.CheckTargetsAsync(statement, cancellationToken);
        }

        TrialCapture? capture = null;
        try
        {
            capture = await _server.RunTrialAsync(statement, _budget.Window, cancellationToken);
        }
        catch (TrialFailedException failure)
        {
            throw new TuningStopped($"Trial {trial.Number} failed: {failure.Message}", refused: true);
        }
        finally
        {
            if (!trial.ToNul)
            {
                await _writes!.CleanUpAsync(statement);
            }
        }

        _budget.Spend(capture.WallSeconds);
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
            _ignored.Add(trial, ignored, capture.Operation.BufferConfig?.MaxTransferSizeBytes);
        }

        _budget.Learn(KindOf(trial.Requested), measured.ReportedBufferRatio ?? capture.Operation.BufferConfig?.SetsOfBuffers, measured.MemoryLimitBytes);

        if (measured.BufferMemoryBytes > _request.MemoryBudgetBytes)
        {
            throw new TuningStopped($"The server reported {Figures.Memory(measured.BufferMemoryBytes.Value)} of buffer memory for trial {trial.Number}, above the budget of {Figures.Memory(_request.MemoryBudgetBytes)}: stopped.", refused: true);
        }
    }
}
