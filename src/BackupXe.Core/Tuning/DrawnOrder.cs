namespace BackupXe.Core.Tuning;

/// <summary>
/// Restore trials draw which runs first (seeded by the run id, so a run replays), since a restore right after another
/// may find the backup's files in the server's cache; a round ends early when the time budget has no room.
/// </summary>
internal sealed class DrawnOrder(Random draw, TuningBudget budget) : IRepeatOrder
{
    public async Task RunRoundAsync<TTrial>(TTrial candidate, TTrial incumbent, Func<TTrial, Task> runAgain)
        where TTrial : class, IComparedTrial
    {
        TTrial[] round = draw.Next(2) == 0 ? [candidate, incumbent] : [incumbent, candidate];
        foreach (var trial in round.Where(t => t == candidate || t.RunCount < Tuner.MaxRunsOfBest))
        {
            if (!budget.TimeForAnotherRun())
            {
                break;
            }

            await runAgain(trial);
        }
    }
}
