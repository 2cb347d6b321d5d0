using System.Collections.Concurrent;
using Xunit;

[assembly: AssemblyFixture(typeof(BackupXe.Tests.Hostile.CleanAnalyses))]

namespace BackupXe.Tests.Hostile;

/// <summary>
/// The clean analysis of each corpus input up to a record, made once for the whole run: the cut and damage tests
/// (<see cref="TruncationTests"/>, <see cref="DamageTests"/>) compare every damaged capture against one, and making
/// them was about half of those tests' cost. An assembly fixture, so the classes sharing it still run side by side.
/// </summary>
public sealed class CleanAnalyses
{
    private readonly ConcurrentDictionary<(string Input, int Records), Task<HostileRun>> _runs = new();

    internal Task<HostileRun> OfAsync(CorpusInput input, int records) =>
        _runs.GetOrAdd((input.Name, records), _ => HostileRun.AnalyzeAsync(input.Clean(records), input.FileName));
}
