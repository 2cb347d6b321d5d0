namespace BackupXe.Core.Tuning;

/// <summary>
/// Which of the two trials compared runs first in a round of repeats: the best trial runs again only while it has
/// fewer than <see cref="Tuner.MaxRunsOfBest"/> runs, since it was adopted on its high runs.
/// </summary>
internal interface IRepeatOrder
{
    Task RunRoundAsync<TTrial>(TTrial candidate, TTrial incumbent, Func<TTrial, Task> runAgain)
        where TTrial : class, IComparedTrial;
}
