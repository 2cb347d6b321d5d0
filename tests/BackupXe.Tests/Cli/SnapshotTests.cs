using Xunit;

namespace BackupXe.Tests.Cli;

/// <summary>
/// Rendered output compared with committed snapshots. A difference writes <c>*.received.txt</c> beside the
/// snapshot in the source tree so that a reviewer can diff and accept it deliberately.
/// </summary>
[Collection(ConsoleCollection.Name)]
public class SnapshotTests
{
    [Theory]
    [InlineData("console", "analyze-samples.console.txt")]
    [InlineData("markdown", "analyze-samples.markdown.txt")]
    public async Task Renders_the_samples_as_the_committed_snapshot(string format, string snapshot)
    {
        // Given: relative paths, as a user types them; the table's column widths follow the path's length,
        // so an absolute path would tie the snapshot to one checkout folder.
        var args = new[] { "analyze", "samples/buffer-starved-backup.xml", "samples/log-zeroing-restore.log", "--format", format, "--no-color" };
        var repository = Path.GetDirectoryName(Path.GetDirectoryName(CliRun.Sample("x")))!;
        var previous = Directory.GetCurrentDirectory();

        // When
        CliRun run;
        Directory.SetCurrentDirectory(repository);
        try
        {
            run = await CliRun.RunAsync(args);
        }
        finally
        {
            Directory.SetCurrentDirectory(previous);
        }

        // Then
        var actual = Normalise(run.Output);
        var path = Path.Combine(Path.GetDirectoryName(CliRun.Sample("x"))!, "..", "tests", "BackupXe.Tests", "Snapshots", snapshot);
        var expected = File.Exists(path) ? Normalise(await File.ReadAllTextAsync(path)) : null;
        if (expected != actual)
        {
            await File.WriteAllTextAsync(Path.ChangeExtension(path, ".received.txt"), actual);
        }

        Assert.Equal(expected, actual);
    }

    // Trailing spaces are the table renderer's padding.
    private static string Normalise(string text)
        => string.Join('\n', text
            .Replace("\r\n", "\n", StringComparison.Ordinal)
            .Split('\n')
            .Select(line => line.TrimEnd()));
}
