using System.Text.Json;
using System.Text.RegularExpressions;
using BackupXe.Cli.Commands;
using BackupXe.Cli.Rendering;
using BackupXe.Core.Drill;
using BackupXe.Core.Restores;
using BackupXe.Core.Tuning;
using BackupXe.SqlServer.Preflight;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Cli.Rendering;

/// <summary>
/// Every verb's JSON besides the analysis report's, held against its one description in docs/json-schema.md as the
/// report's is (<see cref="Core.Rendering.ReportJson"/>'s contract test): each verb's writer is run on a model with
/// every field set (<see cref="EveryField"/>), every property name it writes must be named in the verb's sections of
/// the page, and every name the page lists in a <c>{a, b}</c> object must be one the verb writes. The JSON itself is
/// snapshotted, so that a change of shape is seen in review.
/// </summary>
public sealed partial class VerbJsonContractTests
{
    /// <summary>A verb's JSON documents and the sections of the page (### headings under "Other verbs") that describe them.</summary>
    private static readonly Dictionary<string, (Func<Task<IReadOnlyList<string>>> Documents, string[] Sections)> Contracts = new(StringComparer.Ordinal)
    {
        ["check"] = (CheckAsync, ["check", "history chain", "history restore-estimate"]),
        ["history chain"] = (() => Msdb<RestoreChainReport, RestoreChainWriter>(), ["history chain"]),
        ["history restore-estimate"] = (() => Msdb<RestoreEstimateReport, RestoreEstimateWriter>(), ["history restore-estimate"]),
        ["unreachable server"] = (UnreachableAsync, ["a server verb that cannot reach its server"]),
        ["tune"] = (TuneAsync, ["tune"]),
        ["fleet"] = (() => Task.FromResult<IReadOnlyList<string>>([FleetWriter.Json(EveryField.Of<FleetPage>())]), ["fleet"]),
        ["restore-drill"] = (RestoreDrillAsync, ["restore-drill", "history restore-estimate"]),
    };

    public static TheoryData<string> Verbs() => [.. Contracts.Keys];

    [Theory]
    [MemberData(nameof(Verbs))]
    public async Task Every_field_a_verb_writes_is_documented(string verb)
    {
        var (documents, sections) = Contracts[verb];
        var documented = Documented(sections);

        var undocumented = Written(await documents()).Where(name => !documented.Contains(name)).ToList();

        Assert.True(undocumented.Count == 0, $"docs/json-schema.md does not document {string.Join(", ", undocumented)} of {verb}");
    }

    [Theory]
    [MemberData(nameof(Verbs))]
    public async Task Every_object_the_page_lists_for_a_verb_is_written(string verb)
    {
        var (documents, sections) = Contracts[verb];
        var written = Written(await documents());

        var stale = sections.SelectMany(section => InlineObject().Matches(Section(section)))
            .SelectMany(match => match.Groups[1].Value.Split(',', StringSplitOptions.TrimEntries))
            .Where(name => !written.Contains(name))
            .Distinct(StringComparer.Ordinal)
            .ToList();

        Assert.True(stale.Count == 0, $"docs/json-schema.md lists {string.Join(", ", stale)} for {verb}, which it never writes");
    }

    [Theory]
    [MemberData(nameof(Verbs))]
    public async Task A_verbs_json_keeps_its_shape(string verb)
    {
        var documents = await Contracts[verb].Documents();

        await Snapshot.MatchAsync($"contract-{verb.Replace(' ', '-')}.json.txt", string.Join("\n", documents.Select(d => d.TrimEnd() + "\n")));
    }

    private static async Task<IReadOnlyList<string>> CheckAsync()
    {
        var output = new StringWriter();
        new ServerCheck(CliRun.Captured(output, new StringWriter())).WriteJson(
            "x",
            [EveryField.Of<PreflightCheck>()],
            ([EveryField.Of<RestoreChainReport>()], "x"),
            ([EveryField.Of<RestoreEstimateReport>()], "x"));
        await Task.CompletedTask;
        return [output.ToString()];
    }

    private static Task<IReadOnlyList<string>> Msdb<T, TWriter>()
        where TWriter : IMsdbReportWriter<T>
    {
        var output = new StringWriter();
        MsdbSpan.Write<T, TWriter>(output, "json", "x", new DateTime(2025, 3, 3, 1, 0, 0), [EveryField.Of<T>()]);
        return Task.FromResult<IReadOnlyList<string>>([output.ToString()]);
    }

    private static async Task<IReadOnlyList<string>> UnreachableAsync()
    {
        var output = new StringWriter();
        await ServerCall.FailAsync(CliRun.Captured(output, new StringWriter()), "x", "x", json: true);
        return [output.ToString()];
    }

    private static Task<IReadOnlyList<string>> TuneAsync()
    {
        var kept = EveryField.Of<IReadOnlyList<KeptTrialFile>>();
        return Task.FromResult<IReadOnlyList<string>>(
        [
            TuneReportWriter.Plan(EveryField.Of<TuningPlan>(), "json", executing: false),
            TuneReportWriter.Result(EveryField.Of<TuningResult>(), "json"),
            TuneReportWriter.Stopped("x", kept, linux: true, "json"),
        ]);
    }

    private static Task<IReadOnlyList<string>> RestoreDrillAsync()
    {
        var output = new StringWriter();
        RestoreDrillWriter.Write(output, "json", EveryField.Of<RestoreDrillPlan>(), EveryField.Of<RestoreDrillResult>(), EveryField.Of<StoredDrill>());
        return Task.FromResult<IReadOnlyList<string>>([output.ToString()]);
    }

    private static HashSet<string> Written(IEnumerable<string> documents)
    {
        var names = new HashSet<string>(StringComparer.Ordinal);
        foreach (var text in documents)
        {
            JsonPropertyNames.AddTo(names, text);
        }

        return names;
    }

    private static HashSet<string> Documented(IEnumerable<string> sections)
    {
        var names = new HashSet<string>(StringComparer.Ordinal);
        foreach (var text in sections.Select(Section))
        {
            names.UnionWith(Backticked().Matches(text).Select(match => match.Groups[1].Value));
            names.UnionWith(InlineObject().Matches(text).SelectMany(match => match.Groups[1].Value.Split(',', StringSplitOptions.TrimEntries)));
        }

        return names;
    }

    /// <summary>The text under "### <paramref name="heading"/>" up to the next heading.</summary>
    private static string Section(string heading)
    {
        var page = File.ReadAllText(Path.Combine(Repository.Root, "docs", "json-schema.md"));
        var start = page.IndexOf($"\n### {heading}\n", StringComparison.Ordinal);
        Assert.True(start >= 0, $"docs/json-schema.md has no '### {heading}' section");
        var end = page.IndexOf("\n#", start + heading.Length + 5, StringComparison.Ordinal);
        return page[start..(end < 0 ? page.Length : end)];
    }

    [GeneratedRegex(@"`([A-Za-z][A-Za-z0-9]*)`")]
    private static partial Regex Backticked();

    [GeneratedRegex(@"\{([A-Za-z][A-Za-z0-9]*(?:,\s+[A-Za-z][A-Za-z0-9]*)*)\}")]
    private static partial Regex InlineObject();
}
