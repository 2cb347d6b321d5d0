using BackupXe.Core.Formatting;
using BackupXe.Core.Reporting;
using BackupXe.Sources;
using BackupXe.Tests.Support;
using BackupXe.Tests.Worker;
using Xunit;

namespace BackupXe.Tests.Cli.Rendering;

/// <summary>
/// Each verdict as a DBA reads it, in the console, Markdown and JSON reports, against a committed snapshot
/// (<c>Snapshots/verdict-KIND.FORMAT.txt</c>); the input is built in a format BackupXe reads (<see cref="VerdictInputs"/>).
/// buffer-starved and file-zeroing are the samples' snapshots (<see cref="SnapshotTests"/>).
/// </summary>
[Collection(ConsoleCollection.Name)]
public sealed class VerdictSnapshotTests
{
    public static TheoryData<Bottleneck> Verdicts => [.. VerdictInputs.Files.Keys];

    public static TheoryData<Bottleneck, string> VerdictsAndFormats =>
        [.. VerdictInputs.Files.Keys.SelectMany(verdict => new[] { "console", "markdown", "json" }.Select(format => (verdict, format)))];

    [Theory]
    [MemberData(nameof(Verdicts))]
    public async Task Each_input_is_analysed_to_its_verdict(Bottleneck verdict)
    {
        // Given
        using var folder = new TempDirectory();
        var input = folder.File(VerdictInputs.Write(verdict, folder.Path));

        // When
        var report = Assert.Single((await PipelineRun.OfAsync(InputSources.Open(input))).Reports);

        // Then
        Assert.Equal(verdict, report.Verdict!.Bottleneck);
    }

    [Theory]
    [MemberData(nameof(VerdictsAndFormats))]
    public async Task Renders_each_verdict_as_the_committed_snapshot(Bottleneck verdict, string format)
    {
        // Given: the input in a folder of its own, named relatively as a user types it (the column widths follow its length)
        using var folder = new TempDirectory();
        var input = VerdictInputs.Write(verdict, folder.Path);

        // When
        var run = await CliRun.RunInAsync(folder.Path, 120, "analyze", input, "--format", format, "--no-color");

        // Then
        Assert.True(run.ExitCode == 0, run.Error);
        await Snapshot.MatchAsync($"verdict-{Kebab.Of(verdict)}.{format}.txt", run.Output);
    }
}
