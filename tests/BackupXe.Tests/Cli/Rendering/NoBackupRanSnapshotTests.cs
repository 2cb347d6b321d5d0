using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Cli.Rendering;

/// <summary>
/// Genuine output holding only an error that stopped the work before any backup ran (realworld4 V28: SSMS's Msg 924 from
/// Ola's DatabaseBackup; V29: Msg 924 alone), in each report a DBA reads (console, Markdown, JSON), against committed
/// snapshots: the error named, the database, "no backup ran" and the remedy, and no bottleneck.
/// </summary>
[Collection(ConsoleCollection.Name)]
public sealed class NoBackupRanSnapshotTests
{
    [Theory]
    [InlineData("V28_ola_2026_ssms_databasebackup_924_single_user.txt", "realworld4-v28-no-backup-ran", "console")]
    [InlineData("V28_ola_2026_ssms_databasebackup_924_single_user.txt", "realworld4-v28-no-backup-ran", "markdown")]
    [InlineData("V28_ola_2026_ssms_databasebackup_924_single_user.txt", "realworld4-v28-no-backup-ran", "json")]
    [InlineData("V29_ola_2019_924_single_user_not_skipped.txt", "realworld4-v29-no-backup-ran", "console")]
    [InlineData("V29_ola_2019_924_single_user_not_skipped.txt", "realworld4-v29-no-backup-ran", "markdown")]
    [InlineData("V29_ola_2019_924_single_user_not_skipped.txt", "realworld4-v29-no-backup-ran", "json")]
    public async Task Renders_the_error_that_stopped_the_work_with_no_backup_ran_and_its_remedy(string fixture, string snapshot, string format)
    {
        // Given: the path relative to the repository, as a user types it (the inputs table's widths follow it)
        var path = $"tests/BackupXe.Tests/Fixtures/realworld4/{fixture}";

        // When
        var run = await CliRun.RunInAsync(Repository.Root, 120, "analyze", path, "--format", format, "--no-color");

        // Then: a failed operation is reported with exit code 0 (everything was read), as docs/commands/analyze.md says
        Assert.Equal(0, run.ExitCode);
        await Snapshot.MatchAsync($"{snapshot}.{format}.txt", run.Output);
    }
}
