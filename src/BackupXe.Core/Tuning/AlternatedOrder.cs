namespace BackupXe.Core.Tuning;

/// <summary>
/// Backup trials alternate, so that a drift in the server's load does not always favour the same side (a drawn order
/// lost the 5% shape bound on 2 of 30 shape runs: docs/tuning.md, "Repeats").
/// </summary>
internal sealed class AlternatedOrder : IRepeatOrder
{
    public async Task RunRoundAsync<TTrial>(TTrial candidate, TTrial incumbent, Func<TTrial, Task> runAgain)
        where TTrial : class, IComparedTrial
    {
        if ((candidate.RunCount + incumbent.RunCount) % 2 == 0)
        {
            await runAgain(candidate);
            if (incumbent.RunCount < Tuner.MaxRunsOfBest)
            {
                await runAgain(incumbent);
            }
        }
        else
        {
            if (incumbent.RunCount < Tuner.MaxRunsOfBest)
            {
                await runAgain(incumbent);
            }

            await runAgain(candidate);
        }
    }
}
