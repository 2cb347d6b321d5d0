using System.Text.Json;
using BackupXe.Core.Events;
using BackupXe.Core.History;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using BackupXe.History;
using BackupXe.Tests.Cli.Rendering;
using BackupXe.Tests.History;
using BackupXe.Tests.Support;
using BackupXe.Tests.Worker;
using Xunit;

namespace BackupXe.Tests.Cli;

/// <summary>
/// <c>analyze --history</c> and <c>watch --history</c> on the sample backup (samples/buffer-starved-backup.xml: [SalesDB],
/// 2 GB at 165 MB/s with BUFFERCOUNT 7 to \\backup01\sql) against a generated history of instance SQL01: ten usual
/// nights at about 500 MB/s with BUFFERCOUNT 50, one slow night at BUFFERCOUNT 7, and an [Orders] backup to the
/// same share that overlaps the sample's run. The sample's restore has no series in it.
/// </summary>
[Collection(ConsoleCollection.Name)]
public sealed class AnalyzeHistoryTests : IDisposable
{
    private const long TwoGiB = 2L << 30;
    private static readonly double[] Nights = [498, 510, 505, 490, 520, 502, 495, 515, 500, 508];

    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    private static HistoryOperation Backup(string database, DateTime start, double mbps, int bufferCount, long bytes = TwoGiB)
        => HistoryOperations.Captured(database, start, mbps, bytes, $@"\\backup01\sql\{database}_FULL_{start:yyyyMMdd}.bak",
            new HistoryOptions { BufferCount = bufferCount, MaxTransferSizeBytes = 1 << 20, Compression = false, Checksum = false });

    private async Task<string> HistoryAsync()
    {
        var path = _directory.File("history.db");
        await WriteHistoryAsync(path);
        return path;
    }

    /// <summary>The generated history of instance SQL01 described above, written to <paramref name="path"/>.</summary>
    internal static async Task WriteHistoryAsync(string path)
    {
        var history = new SqliteImportedHistory(path, TimeProvider.System);
        await history.InitializeAsync(CancellationToken.None);
        var first = new DateTime(2024, 4, 20, 1, 30, 0, DateTimeKind.Utc);
        List<HistoryOperation> records =
        [
            .. Nights.Select((rate, night) => Backup("SalesDB", first.AddDays(night), rate, 50)),
            Backup("SalesDB", first.AddDays(10), 170, 7),
            Backup("Orders", new DateTime(2024, 5, 1, 1, 29, 55, DateTimeKind.Utc), 60, 50, bytes: 4L << 30),
        ];
        await history.ImportAsync("SQL01", records, CancellationToken.None);
    }

    private static Task<CliRun> InRepositoryAsync(params string[] args) => CliRun.RunInAsync(Repository.Root, 120, args);

    [Theory]
    [InlineData("console")]
    [InlineData("markdown")]
    [InlineData("json")]
    public async Task Analyze_with_a_history_shows_the_verdict_since_and_what_changed_as_the_committed_snapshot(string format)
    {
        var history = await HistoryAsync();

        var run = await InRepositoryAsync("analyze", "samples/buffer-starved-backup.xml", "samples/log-zeroing-restore.log", "--history", history, "--format", format, "--no-color");

        Assert.Equal(0, run.ExitCode);
        await Snapshot.MatchAsync($"analyze-history.{format}.txt", run.Output);

        // The console wraps its panel's lines at the width: its sentences are checked in the snapshot.
        Assert.Contains("3.0x slower than usual", run.Output);
        if (format == "console")
        {
            return;
        }

        Assert.Contains("slow since 2024-04-30 01:30:00.000Z (2 runs)", run.Output);
        Assert.Contains("BUFFERCOUNT (usually 50, here 7)", run.Output);
        Assert.Contains(format == "json" ? @"wrote to \\\\backup01\\sql" : @"wrote to \\backup01\sql", run.Output);
        Assert.Contains("too few runs: the history holds no run of this series", run.Output);
    }

    [Fact]
    public async Task The_json_history_object_carries_the_baseline_the_changes_and_the_overlap()
    {
        var history = await HistoryAsync();

        var run = await InRepositoryAsync("analyze", "samples/buffer-starved-backup.xml", "--history", history, "--format", "json");

        using var document = JsonDocument.Parse(run.Output);
        var comparison = document.RootElement.GetProperty("operations")[0].GetProperty("history");
        Assert.Equal("slower", comparison.GetProperty("verdict").GetString());
        Assert.Equal("SQL01", comparison.GetProperty("instance").GetString());
        Assert.Equal(503.5, comparison.GetProperty("medianMBps").GetDouble());
        Assert.Equal("2024-04-30T01:30:00Z", comparison.GetProperty("since").GetString());
        Assert.Equal("BUFFERCOUNT", comparison.GetProperty("changes")[0].GetProperty("factor").GetString());
        var overlap = comparison.GetProperty("concurrent")[0];
        Assert.Equal("Orders", overlap.GetProperty("database").GetString());
        Assert.True(overlap.GetProperty("sameTarget").GetBoolean());
    }

    [Fact]
    public async Task A_full_backup_after_a_tune_of_its_database_is_shown_beside_the_tune()
    {
        var history = await HistoryAsync();
        await new SqliteHistoryStore(history, TimeProvider.System).SaveTuneAsync(
            TuneHistoryTests.Tune("SalesDB", new DateTime(2024, 4, 29, 9, 0, 0, DateTimeKind.Utc), best: 520), CancellationToken.None);

        var run = await InRepositoryAsync("analyze", "samples/buffer-starved-backup.xml", "--history", history, "--format", "markdown");

        Assert.Equal(0, run.ExitCode);
        Assert.Contains("last tuned 2024-04-29 09:00 UTC: best 2 files, BUFFERCOUNT 64, MAXTRANSFERSIZE 4 MB, NO_COMPRESSION at 520 MB/s", run.Output);
        Assert.Contains("of the tuned rate", run.Output);
    }

    [Fact]
    public async Task The_html_report_draws_the_run_on_its_series()
    {
        var history = await HistoryAsync();
        var file = _directory.File("report.html");

        var run = await InRepositoryAsync("analyze", "samples/buffer-starved-backup.xml", "--history", history, "--format", "html", "--output", file);

        Assert.Equal(0, run.ExitCode);
        var html = await File.ReadAllTextAsync(file);
        Assert.Contains("data-section=\"history-comparison\" data-verdict=\"slower\"", html);
        Assert.Contains("<svg class=\"series-strip\"", html);
        Assert.Equal(10, html.Split("data-role=\"usual\"").Length - 1);
        Assert.Equal(1, html.Split("data-role=\"slow\"").Length - 1);
        Assert.Equal(1, html.Split("data-role=\"this\"").Length - 1);
    }

    [Fact]
    public async Task Watch_replay_with_a_history_writes_the_verdict_on_each_json_line()
    {
        var history = await HistoryAsync();

        var run = await InRepositoryAsync("watch", "--replay", "samples/buffer-starved-backup.xml", "--speed", "0", "--history", history, "--format", "json");

        Assert.Equal(0, run.ExitCode);
        var line = run.Output.Split('\n').First(l => l.StartsWith('{'));
        using var document = JsonDocument.Parse(line);
        Assert.Equal("slower", document.RootElement.GetProperty("history").GetProperty("verdict").GetString());
    }

    [Fact]
    public async Task Watch_with_a_history_gives_an_ETA_from_the_usual_rates_before_its_own_progress_can_and_says_which_it_used()
    {
        var history = await HistoryAsync();

        var run = await InRepositoryAsync("watch", "--replay", "samples/buffer-starved-backup.xml", "--speed", "0", "--history", history, "--no-color");

        // Then: before three percent readings the interval is the size at the usual 10 nights' rates (490 to 515 MB/s),
        // and once the backup's own readings give one, that is used and said
        Assert.Equal(0, run.ExitCode);
        var lines = run.Output.Split('\n');
        var fromHistory = lines.First(l => l.Contains("from history: its size at the usual 49", StringComparison.Ordinal));
        Assert.Contains("BACKUP DATABASE [SalesDB]", fromHistory, StringComparison.Ordinal);
        Assert.Contains("MB/s of 10 runs)", fromHistory, StringComparison.Ordinal);
        // (before the size is known, the usual durations less the time run)
        Assert.Contains(lines, l => l.Contains(" of 10 runs, less the time run)", StringComparison.Ordinal));
        var own = lines.First(l => l.Contains(", from its progress)", StringComparison.Ordinal));
        Assert.True(Array.IndexOf(lines, fromHistory) < Array.IndexOf(lines, own), run.Output);
        Assert.Contains("3.0x slower than usual", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Watch_without_a_history_says_nothing_of_where_its_ETA_comes_from()
    {
        var run = await InRepositoryAsync("watch", "--replay", "samples/buffer-starved-backup.xml", "--speed", "0", "--no-color");

        Assert.Equal(0, run.ExitCode);
        Assert.DoesNotContain("from history", run.Output, StringComparison.Ordinal);
        Assert.DoesNotContain("from its progress", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_history_file_that_is_not_there_is_one_line_and_exit_code_1()
    {
        var run = await InRepositoryAsync("analyze", "samples/buffer-starved-backup.xml", "--history", _directory.File("missing.db"));

        Assert.Equal(1, run.ExitCode);
        Assert.Equal($"backupxe: no history at '{_directory.File("missing.db")}': the daemon writes it (History:Path); name it with --history.", run.Error.Trim());
        Assert.Equal(string.Empty, run.Output);
    }

    [Fact]
    public async Task History_alone_reads_the_file_the_daemons_setting_names_and_names_every_place_looked_when_none_is_there()
    {
        // Given: the daemon's History:Path in the environment, as the systemd unit sets it, naming the generated history
        var history = await HistoryAsync();
        var previous = Environment.GetEnvironmentVariable("BackupXe__History__Path");
        Environment.SetEnvironmentVariable("BackupXe__History__Path", history);
        try
        {
            // When
            var run = await InRepositoryAsync("analyze", "samples/buffer-starved-backup.xml", "--history", "--format", "json");

            // Then: the verdict comes from that file
            Assert.True(run.ExitCode == 0, run.Error);
            using var document = JsonDocument.Parse(run.Output);
            Assert.Equal("slower", document.RootElement.GetProperty("operations")[0].GetProperty("history").GetProperty("verdict").GetString());

            // And with the setting naming a file that is not there (and none in the folder): one line, every place looked, exit 1
            Environment.SetEnvironmentVariable("BackupXe__History__Path", _directory.File("gone.db"));
            var missing = await InRepositoryAsync("analyze", "samples/buffer-starved-backup.xml", "--history");
            Assert.Equal(1, missing.ExitCode);
            Assert.StartsWith($"backupxe: no daemon history found (looked at '{_directory.File("gone.db")}', 'backupxe-history.db', ", missing.Error.Trim(), StringComparison.Ordinal);
            Assert.Single(missing.Error.Trim().Split('\n'));
            Assert.Equal(string.Empty, missing.Output);
        }
        finally
        {
            Environment.SetEnvironmentVariable("BackupXe__History__Path", previous);
        }
    }

    [Fact]
    public async Task History_alone_lists_the_file_the_daemons_setting_names_as_analyze_history_does()
    {
        // Given: the daemon's History:Path in the environment, naming the generated history
        var history = await HistoryAsync();
        var previous = Environment.GetEnvironmentVariable(BackupXe.Cli.Commands.DaemonHistory.Variable);
        Environment.SetEnvironmentVariable(BackupXe.Cli.Commands.DaemonHistory.Variable, history);
        try
        {
            // When
            var run = await InRepositoryAsync("history", "--format", "json");

            // Then the operations come from that file
            Assert.True(run.ExitCode == 0, run.Error);
            Assert.Contains("SalesDB", run.Output, StringComparison.Ordinal);

            // And with none there: every place looked, as analyze --history says it
            Environment.SetEnvironmentVariable(BackupXe.Cli.Commands.DaemonHistory.Variable, _directory.File("gone.db"));
            var missing = await InRepositoryAsync("history");
            Assert.Equal(1, missing.ExitCode);
            Assert.StartsWith($"backupxe: no daemon history found (looked at '{_directory.File("gone.db")}', 'backupxe-history.db', ", missing.Error.Trim(), StringComparison.Ordinal);
        }
        finally
        {
            Environment.SetEnvironmentVariable(BackupXe.Cli.Commands.DaemonHistory.Variable, previous);
        }
    }

    [Fact]
    public async Task Without_a_history_the_report_has_no_comparison()
    {
        var run = await InRepositoryAsync("analyze", "samples/buffer-starved-backup.xml", "--format", "json");

        using var document = JsonDocument.Parse(run.Output);
        Assert.Equal(JsonValueKind.Null, document.RootElement.GetProperty("operations")[0].GetProperty("history").ValueKind);
    }
}
