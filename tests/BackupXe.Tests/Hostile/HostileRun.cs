using System.Diagnostics;
using System.Text;
using System.Text.Json;
using System.Text.RegularExpressions;
using BackupXe.Cli.Analysis;
using BackupXe.Cli.Rendering;
using BackupXe.Core.Analysis;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.Sources;
using BackupXe.Tests.Sources.Support;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// One analysis of a (possibly damaged) input, exactly as <c>backupxe analyze</c> runs it, with the invariants
/// every input must keep, whatever was done to it.
/// </summary>
internal sealed partial record HostileRun(IReadOnlyList<OperationReport> Operations, IReadOnlyList<Core.Events.SourceStatus> Statuses, int ExitCode, string Json, TimeSpan Elapsed)
{
    /// <summary>Generous for inputs of a few hundred KB on a shared 2-core machine under load; a quadratic path still blows it.</summary>
    public static readonly TimeSpan TimeBound = TimeSpan.FromSeconds(30);

    public static async Task<HostileRun> AnalyzeAsync(byte[] bytes, string fileName)
    {
        using var input = TempInput.WithBytes(bytes, fileName);
        var clock = Stopwatch.StartNew();
        var session = new AnalysisSession([InputSources.Open(input.Path)]);
        using var json = new MemoryStream();
        var operations = new List<OperationReport>();
        AnalysisFindings findings;
        using (var writer = new JsonReportWriter(json))
        {
            findings = await session.RunAsync(new Both(operations, writer), CancellationToken.None);
            writer.Complete(findings);
        }

        var text = Encoding.UTF8.GetString(json.ToArray());

        // Damaged input makes odd strings (control characters, stray bytes decoded): the writer still writes what the serializer would.
        Assert.Equal(Reporting.Support.SerializerOracle.Document(operations, findings), text);
        return new HostileRun(operations, session.Inputs.Select(i => i.Status).ToList(), ExitCodes.For(findings), text, clock.Elapsed);
    }

    public IReadOnlyList<Core.Events.InputProblem> Problems => Statuses.SelectMany(s => s.Problems).ToList();

    /// <summary>Backups and restores reported as completed, by what identifies them.</summary>
    public IReadOnlySet<string> Completed => Operations
        .Where(o => o.Status == OperationStatus.Completed)
        .Select(o => $"{o.Kind} {o.Database} started {o.Start:O}")
        .ToHashSet();

    /// <summary>What holds for every input: documented exit code, parseable JSON, located problems, sane numbers, bounded time.</summary>
    public void AssertInvariants(string what)
    {
        // Exit code: 1 when nothing was usable, 2 when something was damaged (README "Exit codes"), else 0.
        var statuses = Statuses;
        var documented = statuses.All(s => s.Unusable) ? 1 : statuses.Any(s => s.Unusable || s.Problems.Count > 0) ? 2 : 0;
        Assert.True(documented == ExitCode, $"{what}: exit code {ExitCode}, documented {documented}");

        foreach (var problem in Problems)
        {
            Assert.True(Location().IsMatch(problem.Location), $"{what}: problem not located: '{problem.Location}: {problem.Message}'");
        }

        using var document = JsonDocument.Parse(Json);
        foreach (var operation in document.RootElement.GetProperty("operations").EnumerateArray())
        {
            AssertNotNegative(operation, what);
        }

        Assert.True(Elapsed < TimeBound, $"{what}: took {Elapsed.TotalSeconds:0.0} s");
    }

    /// <summary>Every operation <paramref name="clean"/> (the undamaged records before the damage) completed is still completed here.</summary>
    public void AssertKeeps(HostileRun clean, string what)
    {
        var lost = clean.Completed.Except(Completed).ToList();
        Assert.True(lost.Count == 0, $"{what}: lost {string.Join("; ", lost)}");
    }

    // Every number in a report (durations, totals, shares, bytes) is a measure: a negative one is an overflow.
    private static void AssertNotNegative(JsonElement element, string what)
    {
        switch (element.ValueKind)
        {
            case JsonValueKind.Object:
                foreach (var property in element.EnumerateObject())
                {
                    AssertNotNegative(property.Value, what);
                }

                break;
            case JsonValueKind.Array:
                foreach (var item in element.EnumerateArray())
                {
                    AssertNotNegative(item, what);
                }

                break;
            case JsonValueKind.Number:
                Assert.True(element.GetDouble() >= 0, $"{what}: negative number {element.GetRawText()} in the report");
                break;
        }
    }

    [GeneratedRegex(@"^(line \d+(, position \d+)?|offset \d+|file|source)$")]
    private static partial Regex Location();

    /// <summary>The operations kept for the assertions and written to the JSON document, as analyze writes it.</summary>
    private sealed class Both(List<OperationReport> operations, JsonReportWriter writer) : Core.Pipeline.IOperationSink
    {
        public void OnOperationCompleted(OperationReport report)
        {
            operations.Add(report);
            writer.OnOperationCompleted(report);
        }
    }
}
