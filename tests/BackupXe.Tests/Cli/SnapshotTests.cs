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
        // Given
        var args = new[] { "analyze", CliRun.Sample("buffer-starved-backup.xml"), CliRun.Sample("log-zeroing-restore.log"), "--format", format, "--no-color" };

        // When
        var run = await CliRun.RunAsync(args);

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

    // Paths differ between machines; trailing spaces are the table renderer's padding.
    private static string Normalise(string text)
        => string.Join('\n', text.Replace(Path.GetDirectoryName(CliRun.Sample("x"))! + Path.DirectorySeparatorChar, "samples/", StringComparison.Ordinal)
            .Replace("\r\n", "\n", StringComparison.Ordinal)
            .Split('\n')
            .Select(line => line.TrimEnd()));
}
