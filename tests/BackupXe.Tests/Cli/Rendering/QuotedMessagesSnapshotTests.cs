using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Cli.Rendering;

/// <summary>
/// Genuine output that gave no operation before the engine-message layer read it by what SQL Server writes (issue 39),
/// as a DBA reads its report, against committed snapshots: V14, ERRORLOG lines of a failed backup quoted without their
/// date and process columns (root error 18204 with OS error 3, no clock); V17, an Ola job's output under SQL Agent cut
/// before its Command: line (a completed differential at the engine's figures); V09, a backup to URL refused because its
/// blob exists (WITH FORMAT); V16, a differential without its base (3035); V25, a 3201 with OS error 32 inside a dbatools
/// warning folded at 120 columns; V27, a command the client's time-out stopped and SQL Server then aborted.
/// </summary>
[Collection(ConsoleCollection.Name)]
public sealed class QuotedMessagesSnapshotTests
{
    [Theory]
    [InlineData("V14_troubleshootingsql_2011_errorlog_18204_os_error_3_and_3041.txt", "realworld4-v14-quoted-errorlog.console.txt")]
    [InlineData("V17_ola_2022_agent_job_output_diff_backup_12201_pages_and_verify.txt", "realworld4-v17-ola-cut-command.console.txt")]
    [InlineData("V09_ola_2019_backup_to_url_3271_blob_exists_without_format.txt", "realworld4-v09-blob-exists.console.txt")]
    [InlineData("V16_ola_2022_agent_job_output_diff_3035_no_full_backup.txt", "realworld4-v16-differential-without-base.console.txt")]
    [InlineData("V25_dbatools_2023_restore_headeronly_os_error_32_azure_files.txt", "realworld4-v25-folded-warning-3201.console.txt")]
    [InlineData("V27_roundhouse_2013_15GB_restore_aborted_by_client_timeout.txt", "realworld4-v27-client-timeout.console.txt")]
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
