using BackupXe.Core.Analysis;
using BackupXe.Core.Events;
using BackupXe.Core.Reporting;
using BackupXe.Sources;
using BackupXe.Tests.Sources.Support;
using Xunit;

namespace BackupXe.Tests.Correlation;

/// <summary>
/// Inputs given together give the operations each gives alone: a line of one input never joins an operation of another
/// unless both carry clocks that tie them. Client output has no clock, so two job outputs dropped into one command
/// once joined the second one's first completion line to the first one's failed restore.
/// </summary>
public sealed class InputsKeptApartTests
{
    private const string FailedRestore = "T09a_lessthandot_2013_sql2012_restore_fails_buffer_latch_timeout.txt";
    private const string FourRestores = "T10_lessthandot_2009_sql2008_restores_from_compressed_vs_uncompressed.txt";

    [Fact]
    public async Task A_failed_restore_keeps_its_figures_when_another_clientless_input_follows_it()
    {
        // Given T09a (a restore that fails after its copy, no completion line) and T10 (four completed restores)
        var paths = new[] { Fixture.RealWorld2(FailedRestore), Fixture.RealWorld2(FourRestores) };

        // When
        var together = await AnalyseAsync(paths);

        // Then T10's first line (23.524 s, 202.578 MB/s) stays with T10's first restore, and T09a's restore stays failed
        Assert.Equal(5, together.Count);
        var failed = Assert.Single(together, r => r.Status == OperationStatus.Failed);
        Assert.Equal("TEMPRESTORE", failed.Database);
        Assert.Null(failed.EngineSummary);
        Assert.Equal([23.524, 38.951, 215.319, 456.590], together.Where(r => r.Status == OperationStatus.Completed).Select(r => r.DurationSeconds!.Value));
    }

    public static TheoryData<string, string> NeighbouringGenuineInputs()
    {
        var data = new TheoryData<string, string>();
        foreach (var folder in new[] { "realworld", "realworld2" })
        {
            var files = Directory.GetFiles(Path.Combine(AppContext.BaseDirectory, "Fixtures", folder), "*.txt").Order(StringComparer.Ordinal).ToList();
            for (var i = 0; i + 1 < files.Count; i++)
            {
                data.Add(Path.Combine(folder, Path.GetFileName(files[i])), Path.Combine(folder, Path.GetFileName(files[i + 1])));
            }

            // And each in the other order, which is how a second folder listing may give them.
            data.Add(Path.Combine(folder, Path.GetFileName(files[^1])), Path.Combine(folder, Path.GetFileName(files[0])));
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(NeighbouringGenuineInputs))]
    public async Task Two_genuine_inputs_together_give_the_operations_each_gives_alone(string first, string second)
    {
        // Given
        var a = At(first);
        var b = At(second);

        // When
        var alone = (await AnalyseAsync([a])).Concat(await AnalyseAsync([b])).Select(Facts).Order(StringComparer.Ordinal);
        var together = (await AnalyseAsync([a, b])).Select(Facts).Order(StringComparer.Ordinal);

        // Then
        Assert.Equal(alone, together);
    }

    private static string At(string relative) => Path.Combine(AppContext.BaseDirectory, "Fixtures", relative);

    /// <summary>What an operation measured, apart from verdicts that may rightly compare it with another input's runs.</summary>
    private static string Facts(OperationReport r) => string.Join(
        " | ",
        r.Kind, r.Scope, r.Database, r.Status, r.Start, r.End, r.DurationSeconds, r.BytesProcessed, r.ThroughputMBps,
        r.EngineSummary?.Pages, r.FailureError?.Number, r.FailureReason);

    private static async Task<IReadOnlyList<OperationReport>> AnalyseAsync(IReadOnlyList<string> paths)
    {
        var reports = new List<OperationReport>();
        var session = new AnalysisSession(InputSources.OpenAll(paths).Sources, new AnalysisOptions { CompareRuns = true });
        await foreach (var report in session.ReadOperationsAsync(CancellationToken.None))
        {
            reports.Add(report);
        }

        return reports;
    }
}
