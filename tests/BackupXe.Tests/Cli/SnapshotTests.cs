using BackupXe.Tests.Cli.Rendering;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Cli;

/// <summary>The samples' report (buffer-starved and file-zeroing) compared with committed snapshots (<see cref="Snapshot"/>), and its layout.</summary>
[Collection(ConsoleCollection.Name)]
public class SnapshotTests
{
    [Theory]
    [InlineData("console", "analyze-samples.console.txt", 120)]
    [InlineData("console", "analyze-samples.console-80.txt", 80)]
    [InlineData("markdown", "analyze-samples.markdown.txt", 120)]
    [InlineData("json", "analyze-samples.json.txt", 120)]
    public async Task Renders_the_samples_as_the_committed_snapshot(string format, string snapshot, int columns)
    {
        // Given: relative paths, as a user types them; the table's column widths follow the path's length,
        // so an absolute path would tie the snapshot to one checkout folder.
        var args = new[] { "analyze", "samples/buffer-starved-backup.xml", "samples/log-zeroing-restore.log", "--format", format, "--no-color" };

        // When
        var run = await CliRun.RunInAsync(Repository.Root, columns, args);

        // Then
        await Snapshot.MatchAsync(snapshot, run.Output);
    }

    [Fact]
    public void The_readmes_sample_output_is_the_samples_report_abridged_only_where_it_says_so()
    {
        // Given the README's block under "What it prints", cut where a line says "... (what is left out)"
        var readme = File.ReadAllText(Path.Combine(Repository.Root, "README.md")).Replace("\r\n", "\n", StringComparison.Ordinal);
        var start = readme.IndexOf("## What it prints", StringComparison.Ordinal);
        start = readme.IndexOf("```text\n", start, StringComparison.Ordinal) + "```text\n".Length;
        var block = readme[start..readme.IndexOf("```", start, StringComparison.Ordinal)];
        var parts = System.Text.RegularExpressions.Regex.Split(block, @"^\.\.\. \(.*\)$", System.Text.RegularExpressions.RegexOptions.Multiline)
            .Select(part => part.Trim('\n'))
            .ToList();

        // When: the report README command 1 prints at 120 columns, as the snapshot above holds it
        var report = File.ReadAllText(Path.Combine(Repository.Root, "tests", "BackupXe.Tests", "Snapshots", "analyze-samples.console.txt")).Replace("\r\n", "\n", StringComparison.Ordinal);

        // Then each part is in the report word for word, in order
        Assert.True(parts.Count >= 2, "the block names what it leaves out");
        var at = 0;
        foreach (var part in parts)
        {
            var found = report.IndexOf(part, at, StringComparison.Ordinal);
            Assert.True(found >= 0, $"README's sample output is not what the tool prints; regenerate it from the snapshot. Not found:\n{part}");
            at = found + part.Length;
        }
    }

    [Theory]
    [InlineData(80)]
    [InlineData(120)]
    public async Task The_console_report_fits_the_width_ends_no_line_in_spaces_and_shows_each_verdict_within_24_lines(int columns)
    {
        // Given
        // When
        var run = await CliRun.RunAsync(columns, "analyze", CliRun.Sample("buffer-starved-backup.xml"), CliRun.Sample("log-zeroing-restore.log"), "--no-color");

        // Then
        var lines = run.Output.Replace("\r\n", "\n", StringComparison.Ordinal).Split('\n');
        Assert.All(lines, line => Assert.True(line.Length <= columns && !line.EndsWith(' '), $"[{line}]"));
        var titles = lines.Select((line, i) => (line, i)).Where(x => x.line.StartsWith("── ", StringComparison.Ordinal) && x.line.Contains('[', StringComparison.Ordinal)).Select(x => x.i).ToList();
        Assert.Equal(2, titles.Count);
        foreach (var title in titles)
        {
            var verdict = Array.FindIndex(lines, title, line => line.Contains("Verdict:", StringComparison.Ordinal));
            Assert.InRange(verdict - title, 1, 23);
        }
    }
}
