using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Cli.Rendering;

/// <summary>
/// Genuine output that gave no operation before the engine-message layer read it by what SQL Server writes (issue 39),
/// as a DBA reads its report, against committed snapshots: V14, ERRORLOG lines of a failed backup quoted without their
/// date and process columns (root error 18204 with OS error 3, no clock); V17, an Ola job's output under SQL Agent cut
/// before its Command: line (a completed differential at the engine's figures).
/// </summary>
[Collection(ConsoleCollection.Name)]
public sealed class QuotedMessagesSnapshotTests
{
    [Theory]
    [InlineData("V14_troubleshootingsql_2011_errorlog_18204_os_error_3_and_3041.txt", "realworld4-v14-quoted-errorlog.console.txt")]
    [InlineData("V17_ola_2022_agent_job_output_diff_backup_12201_pages_and_verify.txt", "realworld4-v17-ola-cut-command.console.txt")]
    public async Task Renders_the_operation_the_engines_messages_give(string fixture, string snapshot)
    {
        // Given: the path relative to the repository, as a user types it (the inputs table's widths follow it)
        var path = $"tests/BackupXe.Tests/Fixtures/realworld4/{fixture}";

        // When
        var run = await CliRun.RunInAsync(Repository.Root, 120, "analyze", path, "--no-color");

        // Then
        await Snapshot.MatchAsync(snapshot, run.Output);
    }
}
