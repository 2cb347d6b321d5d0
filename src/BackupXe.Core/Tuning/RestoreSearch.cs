using BackupXe.Core.Diagnosis;
using BackupXe.Core.Formatting;

namespace BackupXe.Core.Tuning;

/// <summary>
/// Restore trials: a complete backup restored into a new scratch database per trial (WITH MOVE under the scratch
/// directory, never REPLACE, the name checked unused first), stopped at its window like a backup trial and dropped
/// after it, Ctrl-C included. The server's defaults first, then a 4 MB transfer size, then larger buffer counts
/// within the memory budget, while each step gains. A candidate is judged by the backup trials' rule
/// (<see cref="RepeatedComparison{TTrial}"/>), its repeats in a drawn order (<see cref="DrawnOrder"/>).
/// </summary>
internal sealed class RestoreSearch(
    IRestoreTrialHost host, TuneRequest tune, RestoreTuneRequest request, TuningBudget budget, BackupDiagnostician diagnostician, TrialWrites writes, Random draw)
{
    private readonly List<RestoreTrial> _trials = [];
    private readonly List<string> _notDropped = [];

    /// <summary>Restores <see cref="RestoreTuneRequest.From"/>, else <paramref name="finishedBackup"/>: the last trial backup that finished.</summary>
    public async Task<RestoreTuningResult> RunAsync(IReadOnlyList<string>? finishedBackup, CancellationToken cancellationToken)
    {
        var from = request.From.Count > 0 ? request.From : finishedBackup;
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
        var backup = new RestoredBackup(from, files);
        var comparison = new RepeatedComparison<RestoreTrial>(budget, new DrawnOrder(draw, budget), (trial, token) => RunOnceAsync(backup, trial, token));
        RestoreTrial? best = null;
        string reason;
        var refused = false;
        try
        {
            reason = await SearchAsync(backup, comparison, b => best = b, () => best, cancellationToken);
        }
        catch (TuningStopped stop)
        {
            (reason, refused) = (stop.Message, stop.Refused);
        }

        return new RestoreTuningResult(_trials, best, ifi, reason, refused, _notDropped);
    }

    private async Task<string> SearchAsync(
        RestoredBackup backup, RepeatedComparison<RestoreTrial> comparison, Action<RestoreTrial> adopt, Func<RestoreTrial?> incumbent, CancellationToken cancellationToken)
    {
        var steps = new List<(int? Count, long? Size)> { (null, null), (null, RestoreTuneRequest.LargeTransferSize) };
        var next = 0;
        while (_trials.Count < RestoreTuneRequest.MaxTrials)
        {
            var best = incumbent();
            if (next >= steps.Count)
            {
                // Larger buffer counts at the best transfer size so far, as long as they fit the budget as the server counts them.
                var size = best?.MaxTransferSizeBytes;
                var count = RestoreTuneRequest.BufferCounts.FirstOrDefault(c => (best?.BufferCount is not { } b || c > b)
                    && Fits(c, size));
                if (count == 0)
                {
                    return "No larger buffer count fits the memory budget.";
                }

                steps.Add((count, size));
            }

            var (bufferCount, transferSize) = steps[next++];
            if (!Fits(bufferCount, transferSize))
            {
                continue;
            }

            if (!budget.TimeForAnotherRun())
            {
                return $"The time budget ({Figures.Seconds(tune.TimeBudget.TotalSeconds)}) leaves no room for another restore trial.";
            }

            var trial = new RestoreTrial(_trials.Count + 1, bufferCount, transferSize);
            _trials.Add(trial);
            await RunOnceAsync(backup, trial, cancellationToken);
            if (best is null)
            {
                // The server's defaults run twice, as the backup baseline does: the first measure of the restores' noise.
                if (budget.TimeForAnotherRun())
                {
                    await RunOnceAsync(backup, trial, cancellationToken);
                }

                adopt(trial);
                continue;
            }

            // A restore trial that ran has a rate, so the comparison always has a gain.
            var gain = (await comparison.CompareAsync(trial, best, _trials, cancellationToken)).GetValueOrDefault().Gain;
            if (gain > 0 && !trial.OptionsDiffer)
            {
                adopt(trial);
            }

            // After the defaults and the transfer size, a buffer step that gains under a few percent ends the search.
            if (next > 2 && gain < Tuner.MinimumGain)
            {
                return $"The last buffer step gained under {Figures.Percent(Tuner.MinimumGain)}: the best restore trial is the optimum within reach.";
            }
        }

        return $"{RestoreTuneRequest.MaxTrials} restore trials ran, the most a tune runs.";
    }

    /// <summary>Restore buffers priced as the server counts them (<see cref="BufferPricing"/>), within the budget and the reported limit.</summary>
    private bool Fits(int? count, long? size) =>
        count is not { } c || budget.Price(c * (size ?? OperationMeasures.DefaultMaxTransferSize), BufferKind.Restore) <= budget.MemoryCap;

    /// <summary>One run of a restore trial into a scratch database of its own, dropped after it whatever happens.</summary>
    private async Task RunOnceAsync(RestoredBackup backup, RestoreTrial trial, CancellationToken cancellationToken)
    {
        var statement = RestoreTrialStatement.Of(backup.From, backup.Files, request.ScratchDirectory, tune.RunId, trial.Number, trial.BufferCount, trial.MaxTransferSizeBytes, trial.Runs.Count + 1);
        if (await host.DatabaseExistsAsync(statement.Database, cancellationToken))
        {
            throw new TuningStopped($"A database named {statement.Database} exists: a restore trial never restores over a database.", refused: true);
        }

        // The restore creates every file at its full size before it copies.
        await writes.CheckFreeAsync(request.ScratchDirectory, backup.Files.Sum(f => f.SizeBytes), "a restore trial", cancellationToken);
        TrialCapture capture;
        try
        {
            capture = await host.RunRestoreAsync(statement, tune.Window, cancellationToken);
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
                _notDropped.Add($"{statement.DropSql} -- {problem}");
            }
        }

        budget.Spend(capture.WallSeconds);
        var operation = capture.Operation;
        var (rate, window, _, _) = TrialMeasure.Rate(operation);
        var verdict = diagnostician.Diagnose(operation).Verdict;
        var measures = OperationMeasures.Of(operation);
        var (differences, differ) = TrialMeasure.BufferDifferences(trial.BufferCount, trial.MaxTransferSizeBytes, operation.BufferConfig);
        trial.Add(new RestoreRun(statement.Database, rate, window, capture.Finished, operation.Zeroing, verdict?.Bottleneck,
            RestoreLimit.Of(operation, verdict, diagnostician.Settings), measures.BufferMemoryBytes)
        {
            Differences = differences,
            OptionsDiffer = differ,
        });
        budget.Learn(BufferKind.Restore, measures.ReportedBufferRatio ?? operation.BufferConfig?.SetsOfBuffers, operation.BufferConfig?.MemoryLimitBytes);
        if (measures.BufferMemoryBytes > tune.MemoryBudgetBytes)
        {
            throw new TuningStopped($"The server reported {Figures.Memory(measures.BufferMemoryBytes.Value)} of buffer memory for restore trial {trial.Number}, above the budget of {Figures.Memory(tune.MemoryBudgetBytes)}: stopped.", refused: true);
        }
    }

    /// <summary>The backup every restore trial of one tune restores: its devices and the files it holds.</summary>
    private sealed record RestoredBackup(IReadOnlyList<string> From, IReadOnlyList<BackupFileEntry> Files);
}
