using System.Text.Json;
using BackupXe.Core.Reporting;
using BackupXe.History;
using Xunit;
using BackupXe.Tests.Support;

namespace BackupXe.Tests.Cli;

public class OtherCommandTests
{
    [Fact]
    public async Task Watch_replay_shows_progress_then_the_verdict_of_each_operation()
    {
        // Given / When
        var run = await CliRun.RunAsync("watch", "--replay", CliRun.Sample("buffer-starved-backup.xml"), "--speed", "0", "--no-color");

        // Then
        Assert.Equal(0, run.ExitCode);
        var lines = run.Output.Split('\n');
        Assert.Contains(lines, l => l.Contains("copy-data", StringComparison.Ordinal) && l.Contains(" 50% [##########", StringComparison.Ordinal) && l.Contains("MB/s", StringComparison.Ordinal));
        Assert.Contains("buffer-starved (high confidence)", run.Output);
        Order.Before(run.Output, " 50% [", "Verdict");
    }

    [Fact]
    public async Task Watch_json_streams_one_report_object_per_completed_operation()
    {
        // Given / When
        var run = await CliRun.RunAsync("watch", "--replay", CliRun.Sample("log-zeroing-restore.log"), "--speed", "0", "--format", "json");

        // Then
        var line = Assert.Single(run.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        using var json = JsonDocument.Parse(line);
        Assert.Equal("file-zeroing", json.RootElement.GetProperty("verdict").GetProperty("bottleneck").GetString());
    }

    [Fact]
    public async Task Watch_html_needs_a_file_because_the_console_shows_progress()
    {
        // Given / When
        var run = await CliRun.RunAsync("watch", "--replay", CliRun.Sample("buffer-starved-backup.xml"), "--speed", "0", "--format", "html");

        // Then
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("--output", run.Error);
        Assert.Empty(run.Output);
    }

    [Fact]
    public async Task Watch_without_server_or_replay_says_it_needs_one()
    {
        // Given / When
        var run = await CliRun.RunAsync("watch");

        // Then
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("--server S", run.Error);
        Assert.Contains("--replay FILE", run.Error);
        Assert.Empty(run.Output);
    }

    [Fact]
    public async Task Session_script_prints_the_embedded_install_script_with_the_chosen_name()
    {
        // Given / When
        var run = await CliRun.RunAsync("session", "script", "--session-name", "NightlyBackups");

        // Then
        Assert.Equal(0, run.ExitCode);
        Assert.Contains("backup_restore_progress_trace", run.Output);
        Assert.Contains("N'NightlyBackups'", run.Output);
    }

    [Fact]
    public async Task Session_script_rejects_a_session_name_that_is_not_an_identifier()
    {
        // Given / When
        var run = await CliRun.RunAsync("session", "script", "--session-name", "x]; DROP LOGIN sa; --");

        // Then
        Assert.Equal(1, run.ExitCode);
        Assert.DoesNotContain("DROP LOGIN", run.Output);
    }

    [Fact]
    public async Task History_lists_stored_operations_with_their_trend()
    {
        // Given: three backups of one database in a real SQLite history file
        var path = Path.Combine(Path.GetTempPath(), $"backupxe-history-{Guid.NewGuid():N}.db");
        var store = new SqliteHistoryStore(path, TimeProvider.System);
        await store.InitializeAsync(CancellationToken.None);
        foreach (var (day, rate) in new[] { (1, 100.0), (2, 120.0), (3, 40.0) })
        {
            var start = new DateTime(2024, 5, day, 1, 0, 0, DateTimeKind.Utc);
            await store.SaveAsync("prod01", new OperationReport
            {
                Kind = Core.Events.OperationKind.Backup, Scope = Core.Events.OperationScope.Database, Database = "Sales", SessionId = 61,
                Start = start, End = start.AddMinutes(10), Status = OperationStatus.Completed, DurationSeconds = 600, ThroughputMBps = rate,
            }, CancellationToken.None);
        }

        try
        {
            // When
            var run = await CliRun.RunAsync("history", "--path", path, "--database", "Sales");

            // Then
            Assert.True(run.ExitCode == 0, run.Error);
            Assert.Contains("40 MB/s", run.Output);

            // Two earlier runs are below the regression rule's minimum of five: no baseline, so no percentage.
            Assert.DoesNotContain("%", run.Output.Split("History")[1].Split("\n\n")[0]);
        }
        finally
        {
            Microsoft.Data.Sqlite.SqliteConnection.ClearAllPools();
            File.Delete(path);
        }
    }
}
