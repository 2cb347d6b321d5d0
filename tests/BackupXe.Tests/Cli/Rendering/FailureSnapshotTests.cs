using BackupXe.Tests.Support;
using BackupXe.Tests.Worker;
using Xunit;

namespace BackupXe.Tests.Cli.Rendering;

/// <summary>
/// A failed backup as a DBA reads it in each report (console, Markdown, JSON), against a committed snapshot
/// (<c>Snapshots/failed-backup.FORMAT.txt</c>): the root error, its operating system error decoded, the target and the
/// remedy with its source, and no bottleneck. The input is SQL Agent's job step output of a backup to a share the service
/// account may not write (Msg 3201 with OS error 5, then 3013).
/// </summary>
[Collection(ConsoleCollection.Name)]
public sealed class FailureSnapshotTests
{
    private const string AgentStepOutput =
        "Msg 3201, Sev 16, State 1, Line 1 : Cannot open backup device '\\\\backup01\\sql\\Sales_FULL.bak'. Operating system error 5(Access is denied.). [SQLSTATE 42000]\r\n"
        + "Msg 3013, Sev 16, State 1, Line 1 : BACKUP DATABASE is terminating abnormally. [SQLSTATE 42000]\r\n";

    [Theory]
    [InlineData("console")]
    [InlineData("markdown")]
    [InlineData("json")]
    public async Task Renders_the_failure_with_its_cause_and_remedy(string format)
    {
        // Given
        using var folder = new TempDirectory();
        File.WriteAllText(folder.File("job-step.txt"), AgentStepOutput);

        // When
        var run = await CliRun.RunInAsync(folder.Path, 120, "analyze", "job-step.txt", "--format", format, "--no-color");

        // Then
        await Snapshot.MatchAsync($"failed-backup.{format}.txt", run.Output);
    }
}
