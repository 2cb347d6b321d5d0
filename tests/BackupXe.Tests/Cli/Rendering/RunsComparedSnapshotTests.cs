using BackupXe.Tests.Support;
using BackupXe.Tests.Worker;
using Xunit;

namespace BackupXe.Tests.Cli.Rendering;

/// <summary>
/// The "Runs compared" section in each format, on the four Ola Hallengren runs of a 381 GiB database
/// (Support/OlaNightlyRuns: 790, 810, 568 s with the default buffers, 152 s with BUFFERCOUNT 50 and MAXTRANSFERSIZE 4 MB).
/// </summary>
[Collection(ConsoleCollection.Name)]
public sealed class RunsComparedSnapshotTests
{
    [Theory]
    [InlineData("console")]
    [InlineData("markdown")]
    [InlineData("json")]
    public async Task Renders_the_runs_compared_as_the_committed_snapshot(string format)
    {
        // Given: the job output in a folder of its own, named relatively as a user types it
        using var folder = new TempDirectory();
        await File.WriteAllTextAsync(folder.File("bigdb-job.txt"), OlaNightlyRuns.Output("BigDB", OlaNightlyRuns.BigDbNights));

        // When
        var run = await CliRun.RunInAsync(folder.Path, 120, "analyze", "bigdb-job.txt", "--format", format, "--no-color");

        // Then: a finding, so the exit code stays 0
        Assert.True(run.ExitCode == 0, run.Error);
        await Snapshot.MatchAsync($"runs-compared.{format}.txt", run.Output);
    }
}
