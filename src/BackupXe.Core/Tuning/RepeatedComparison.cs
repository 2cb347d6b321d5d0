namespace BackupXe.Core.Tuning;

/// <summary>
/// The one rule both searches judge a candidate by: the candidate and the best trial so far run again, round after
/// round (<see cref="IRepeatOrder"/>), while the noise hides the difference. It ends when the gain clears
/// <see cref="Tuner.ConfidenceDeviations"/> standard deviations of the difference either way, when the candidate has
/// <see cref="Tuner.MaxRunsPerTrial"/> measured runs or was not run as asked, or when the time budget has no room.
/// </summary>
internal sealed class RepeatedComparison<TTrial>(TuningBudget budget, IRepeatOrder order, Func<TTrial, CancellationToken, Task> runAgain)
    where TTrial : class, IComparedTrial
{
    /// <summary>The gain of <paramref name="candidate"/> over <paramref name="incumbent"/>; null when either gave no rate.</summary>
    public async Task<Comparison?> CompareAsync(TTrial candidate, TTrial incumbent, IReadOnlyList<TTrial> trials, CancellationToken cancellationToken)
    {
        while (true)
        {
            if (!candidate.Measured || !incumbent.Measured)
            {
                return null;
            }

            var gain = candidate.RateMBps / incumbent.RateMBps - 1;
            var bound = Tuner.ConfidenceDeviations * RunNoise.OfDifference(candidate, incumbent, trials);
            if (gain > bound || gain < -bound || candidate.MeasuredRates.Count >= Tuner.MaxRunsPerTrial || !candidate.AsAsked || !budget.TimeForAnotherRun())
            {
                return new Comparison(gain, bound);
            }

            await order.RunRoundAsync(candidate, incumbent, trial => runAgain(trial, cancellationToken));
        }
    }
}

/// <summary>A candidate's relative gain over the best trial, and the noise bound it was judged against.</summary>
internal readonly record struct Comparison(double Gain, double Bound);
