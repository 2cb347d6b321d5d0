using BackupXe.Core.Analysis;
using BackupXe.Core.Diagnosis;
using BackupXe.Core.Reporting;
using BackupXe.Sources;
using BackupXe.Tests.Worker;
using Xunit;
using static BackupXe.Tests.Support.OlaNightlyRuns;

namespace BackupXe.Tests.Diagnosis;

/// <summary>
/// Runs of one series set side by side (docs/diagnosis.md, "Runs compared"), on Ola Hallengren job output built in
/// CommandExecute's format with the engine's own completion lines: the four runs of a 381 GiB database
/// (790, 810, 568 s with the default buffers, 152 s with BUFFERCOUNT 50 and MAXTRANSFERSIZE 4 MB).
/// </summary>
public sealed class RunsComparedTests : IDisposable
{
    private readonly TempDirectory _folder = new();

    public void Dispose() => _folder.Dispose();

    private async Task<AnalysisFindings> AnalyseAsync(params (string Name, string Text)[] inputs)
    {
        var paths = inputs.Select(i =>
        {
            var path = Path.Combine(_folder.Path, i.Name);
            File.WriteAllText(path, i.Text);
            return path;
        }).ToList();
        var session = new AnalysisSession(InputSources.OpenAll(paths).Sources, new AnalysisOptions { CompareRuns = true });
        await foreach (var unused in session.ReadOperationsAsync(CancellationToken.None))
        {
        }

        return session.Findings;
    }

    [Fact]
    public async Task Four_runs_of_one_database_give_the_buffers_alone_as_the_finding_with_buffer_advice()
    {
        // Given: the four runs in one job output, the last with its command wrapped over three lines
        var text = Output("BigDB", BigDbNights);

        // When
        var findings = await AnalyseAsync(("bigdb.txt", text));

        // Then: the pair that differs in the buffers alone, closest in the output: 568.903 / 152.118 = 3.74x, believed
        // because runs 1-3 with the same settings drifted 1.42x at most
        var series = Assert.Single(findings.RunsCompared);
        Assert.Equal("full backup of [BigDB]", series.Series);
        Assert.Equal([790.412, 810.237, 568.903, 152.118], series.Runs.Select(r => r.Seconds));
        Assert.Equal((50, 4_194_304L), (series.Runs[3].BufferCount, series.Runs[3].MaxTransferSizeBytes!.Value));
        var buffers = series.Conclusions[0];
        Assert.Equal(("buffers", 4, 3, 3.74, Confidence.High), (buffers.Factor, buffers.FasterRun, buffers.SlowerRun, buffers.Ratio, buffers.Confidence));
        Assert.Equal(RecommendationIds.RaiseBuffers, buffers.RecommendationId);
        Assert.Equal(["BUFFERCOUNT default then 50", "MAXTRANSFERSIZE default then 4 MB"], buffers.Differed);
        Assert.Contains("Runs with the same settings were at most 1.42x apart, so the setting, not chance, made the difference.", buffers.Sentence);
        Assert.Contains("Against the other 2 run pairs that differ in the buffers alone: 5.20x-5.33x.", buffers.Sentence);
        Assert.EndsWith("Buffer advice: run the backup with BUFFERCOUNT 50 and MAXTRANSFERSIZE 4 MB, as run 4 did: 3.74x faster, measured on this database.", buffers.Sentence);

        // And: the drift of the same-settings runs is its own finding, low, with nothing recorded to explain it
        var drift = series.Conclusions[1];
        Assert.Equal(("none-recorded", 3, 2, 1.42, Confidence.Low), (drift.Factor, drift.FasterRun, drift.SlowerRun, drift.Ratio, drift.Confidence));

        // And: a finding, not a problem of the input, so the exit code stays 0
        Assert.Empty(Assert.Single(findings.Inputs).Problems);
        Assert.False(findings.Partial);
    }

    [Fact]
    public async Task Runs_of_the_same_database_are_compared_across_inputs_and_name_their_input()
    {
        // Given: the first three nights in one job output, the fourth in the next night's
        var findings = await AnalyseAsync(("night1-3.txt", Output("BigDB", BigDbNights.Take(3))), ("night4.txt", Output("BigDB", BigDbNights.Skip(3))));

        // Then
        var series = Assert.Single(findings.RunsCompared);
        Assert.Equal(["night1-3.txt", "night1-3.txt", "night1-3.txt", "night4.txt"], series.Runs.Select(r => Path.GetFileName(r.Input)));
        Assert.Equal((4, 3, 3.74), (series.Conclusions[0].FasterRun, series.Conclusions[0].SlowerRun, series.Conclusions[0].Ratio));
    }

    [Fact]
    public async Task A_setting_that_does_not_clear_the_drift_of_same_settings_runs_is_low_confidence()
    {
        // Given: the same settings at 400 and 800 s (2x), then more buffers at 500 s (1.6x against 800 s, under 2 x 1.25)
        var start = new DateTime(2024, 5, 1, 1, 0, 0);
        var text = Output("Sales", [
            new Run(start, 400, BigDbPages), new Run(start.AddDays(1), 800, BigDbPages),
            new Run(start.AddDays(2), 500, BigDbPages, "BUFFERCOUNT = 50")]);

        // When
        var series = Assert.Single((await AnalyseAsync(("sales.txt", text))).RunsCompared);

        // Then
        var buffers = Assert.Single(series.Conclusions, c => c.Factor == "buffers");
        Assert.Equal((3, 2, 1.6, Confidence.Low), (buffers.FasterRun, buffers.SlowerRun, buffers.Ratio, buffers.Confidence));
        Assert.Contains("so this is within how much the runs vary anyway", buffers.Sentence);
    }

    [Fact]
    public async Task Runs_that_differ_in_several_settings_cannot_be_told_apart()
    {
        // Given: one stripe with the default buffers, then four stripes with BUFFERCOUNT 50
        var start = new DateTime(2024, 5, 1, 1, 0, 0);
        var text = Output("Sales", [new Run(start, 600, BigDbPages), new Run(start.AddDays(1), 200, BigDbPages, "BUFFERCOUNT = 50", Stripes: 4)]);

        // When
        var series = Assert.Single((await AnalyseAsync(("sales.txt", text))).RunsCompared);

        // Then
        var several = Assert.Single(series.Conclusions);
        Assert.Equal(("several", 3.0, Confidence.Low, (string?)null), (several.Factor, several.Ratio, several.Confidence, several.RecommendationId));
        Assert.Equal(["BUFFERCOUNT default then 50", "1 then 4 stripes"], several.Differed);
        Assert.Contains("the input cannot tell which of them made the difference", several.Sentence);
    }

    [Fact]
    public async Task Quick_runs_are_no_throughput_problem_whatever_the_setting()
    {
        // Given: 6 and 2 s, only the buffers apart
        var start = new DateTime(2024, 5, 1, 1, 0, 0);
        var text = Output("Small", [new Run(start, 6, 128_000), new Run(start.AddDays(1), 2, 128_000, "BUFFERCOUNT = 50")]);

        // When
        var conclusion = Assert.Single(Assert.Single((await AnalyseAsync(("small.txt", text))).RunsCompared).Conclusions);

        // Then
        Assert.Equal((Confidence.High, (string?)null), (conclusion.Confidence, conclusion.RecommendationId));
        Assert.Contains("Both ran under 10.0 s: not a throughput problem", conclusion.Sentence);
    }

    [Fact]
    public async Task Runs_of_sizes_further_apart_than_a_tenth_are_not_compared()
    {
        // Given: the same database at 381 GiB and at 300 GiB
        var start = new DateTime(2024, 5, 1, 1, 0, 0);
        var text = Output("Sales", [new Run(start, 600, BigDbPages), new Run(start.AddDays(1), 200, 300L * 131_072, "BUFFERCOUNT = 50")]);

        // Then
        Assert.Empty((await AnalyseAsync(("sales.txt", text))).RunsCompared);
    }
}
