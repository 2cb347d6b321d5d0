using BackupXe.Core.Reporting;
using BackupXe.History;
using System.Diagnostics;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Support;
using Microsoft.Data.Sqlite;
using Xunit;

namespace BackupXe.Tests.Cli.Commands;

/// <summary>
/// <c>--output</c> pointed, by mistake, at a file the same command reads: by its own name, another relative path, a
/// symbolic link to it or to its folder, a hard link to it, a member of an input pattern, or a history database and its
/// journal, named or found by <c>--history</c>. Every
/// verb that writes refuses with one line and exit code 1 before opening anything, and the file keeps every byte.
/// </summary>
public sealed class OutputTargetTests : IDisposable
{
    private readonly string _folder = Directory.CreateTempSubdirectory("backupxe-output-").FullName;

    public void Dispose()
    {
        SqliteConnection.ClearAllPools();
        Directory.Delete(_folder, recursive: true);
    }

    [Theory]
    [InlineData("analyze CAPTURE -f json -o CAPTURE")]
    [InlineData("analyze CAPTURE -f json -o LINK")]
    [InlineData("analyze LINK -f markdown -o CAPTURE")]
    [InlineData("analyze CAPTURE -f html -o LINKED_FOLDER/restore.log")]
    [InlineData("analyze CAPTURE -f json -o SAME_BY_ANOTHER_PATH")]
    [InlineData("events CAPTURE -o CAPTURE")]
    [InlineData("events CAPTURE --format csv -o LINK")]
    [InlineData("watch --replay CAPTURE --speed 0 -f html -o CAPTURE")]
    [InlineData("watch --replay LINK --speed 0 -f html -o CAPTURE")]
    public async Task Output_over_a_capture_the_command_reads_is_refused_and_the_capture_is_untouched(string commandLine)
    {
        // Given
        var capture = await File.ReadAllBytesAsync(CliRun.Sample("log-zeroing-restore.log"));
        var path = Path.Combine(_folder, "restore.log");
        await File.WriteAllBytesAsync(path, capture);
        File.CreateSymbolicLink(Path.Combine(_folder, "link.log"), path);
        Directory.CreateSymbolicLink(Path.Combine(_folder, "linked"), _folder);
        Directory.CreateDirectory(Path.Combine(_folder, "sub"));

        // When
        var run = await CliRun.RunAsync(Arguments(commandLine));

        // Then
        Assert.True(run.ExitCode == 1, $"{commandLine}: exit {run.ExitCode}\n{run.Error}");
        Assert.Contains("writing the report would destroy it", run.Error);
        Assert.DoesNotContain("   at ", run.Error);
        Assert.Equal(capture, await File.ReadAllBytesAsync(path));
    }

    [Theory]
    [InlineData("analyze CAPTURE -f json -o HARD_LINK")]
    [InlineData("analyze HARD_LINK -f markdown -o CAPTURE")]
    [InlineData("events CAPTURE -o HARD_LINK")]
    [InlineData("events CAPTURE --format csv -o HARD_LINK")]
    [InlineData("watch --replay CAPTURE --speed 0 -f html -o HARD_LINK")]
    [InlineData("analyze CAPTURE --history HISTORY -f json -o HISTORY")]
    [InlineData("analyze CAPTURE --history HISTORY -f json -o HISTORY_HARD_LINK")]
    [InlineData("analyze CAPTURE --history HISTORY_HARD_LINK -f markdown -o HISTORY")]
    [InlineData("analyze CAPTURE --history HISTORY -f json -o HISTORY-wal")]
    [InlineData("watch --replay CAPTURE --speed 0 --history HISTORY -f html -o HISTORY_HARD_LINK")]
    [InlineData("history --path HISTORY -f html -o HISTORY_HARD_LINK")]
    [InlineData("history import CAPTURE_HARD_LINK --path CAPTURE")]
    public async Task Output_through_a_hard_link_or_over_the_history_is_refused_and_what_is_read_is_untouched(string commandLine)
    {
        // Given a history with one backup, a capture, and a hard link to each: two names, one file, which no path
        // comparison can tell
        var history = await HistoryWithOneBackupAsync();
        SqliteConnection.ClearAllPools();
        await HardLinkAsync(history, Path.Combine(_folder, "history-hard.db"));
        var before = await File.ReadAllBytesAsync(history);
        var capture = await File.ReadAllBytesAsync(CliRun.Sample("log-zeroing-restore.log"));
        var path = Path.Combine(_folder, "restore.log");
        await File.WriteAllBytesAsync(path, capture);
        await HardLinkAsync(path, Path.Combine(_folder, "hard.log"));

        // When
        var run = await CliRun.RunAsync(Arguments(commandLine));

        // Then
        Assert.True(run.ExitCode == 1, $"{commandLine}: exit {run.ExitCode}\n{run.Error}");
        Assert.Contains("would destroy it", run.Error);
        Assert.Single(run.Error.Split('\n', StringSplitOptions.RemoveEmptyEntries), line => line.Contains("would destroy it", StringComparison.Ordinal));
        SqliteConnection.ClearAllPools();
        Assert.Equal(before, await File.ReadAllBytesAsync(history));
        Assert.Equal(capture, await File.ReadAllBytesAsync(path));
    }

    [Fact]
    public async Task Analyze_with_its_history_writes_the_report_to_another_file()
    {
        // Given
        var history = await HistoryWithOneBackupAsync();
        var report = Path.Combine(_folder, "report.json");

        // When
        var run = await CliRun.RunAsync("analyze", CliRun.Sample("log-zeroing-restore.log"), "--history", history, "-f", "json", "-o", report);

        // Then the identity check refuses nothing that is another file
        Assert.True(run.ExitCode is 0 or 2, $"exit {run.ExitCode}\n{run.Error}");
        Assert.Contains("\"operations\"", await File.ReadAllTextAsync(report));
    }

    [Fact]
    public async Task Output_over_a_member_of_an_input_pattern_is_refused()
    {
        // Given a rollover set named by a pattern, and --output naming its second file
        var bytes = await File.ReadAllBytesAsync(Path.Combine(AppContext.BaseDirectory, "Fixtures", "xel", "TestXel_0.xel"));
        foreach (var name in new[] { "trace_0_1.xel", "trace_0_2.xel" })
        {
            await File.WriteAllBytesAsync(Path.Combine(_folder, name), bytes);
        }

        // When
        var run = await CliRun.RunAsync("analyze", Path.Combine(_folder, "trace_0_*.xel"), "-f", "json", "-o", Path.Combine(_folder, "trace_0_2.xel"));

        // Then
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("trace_0_2.xel", run.Error);
        Assert.Equal(bytes, await File.ReadAllBytesAsync(Path.Combine(_folder, "trace_0_2.xel")));
    }

    [Theory]
    [InlineData("html", "")]
    [InlineData("json", "")]
    [InlineData("html", "-wal")]
    [InlineData("csv", "")]
    public async Task History_output_over_the_history_database_or_its_journal_is_refused(string format, string suffix)
    {
        // Given a history with one backup
        var history = await HistoryWithOneBackupAsync();
        SqliteConnection.ClearAllPools();
        var before = await File.ReadAllBytesAsync(history);

        // When
        var run = await CliRun.RunAsync("history", "--path", history, "--format", format, "-o", history + suffix);

        // Then
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("writing the report would destroy it", run.Error);
        Assert.Equal(before, await File.ReadAllBytesAsync(history));
    }

    [Theory]
    [InlineData("json", "\"operations\"")]
    [InlineData("markdown", "|")]
    [InlineData("csv", ",")]
    [InlineData("console", "History")]
    public async Task History_writes_every_format_to_the_output_file(string format, string expected)
    {
        // Given
        var history = await HistoryWithOneBackupAsync();
        var report = Path.Combine(_folder, "report.txt");

        // When
        var run = await CliRun.RunAsync("history", "--path", history, "--format", format, "-o", report);

        // Then
        Assert.Equal((0, string.Empty), (run.ExitCode, run.Output));
        Assert.Contains(expected, await File.ReadAllTextAsync(report));
    }

    private async Task<string> HistoryWithOneBackupAsync()
    {
        var history = Path.Combine(_folder, "history.db");
        var store = new SqliteHistoryStore(history, TimeProvider.System);
        await store.InitializeAsync(CancellationToken.None);
        var start = new DateTime(2024, 5, 1, 1, 0, 0, DateTimeKind.Utc);
        await store.SaveAsync("prod01", new OperationReport
        {
            Kind = Core.Events.OperationKind.Backup, Database = "Sales", Start = start, End = start.AddMinutes(1),
            Status = OperationStatus.Completed, DurationSeconds = 60, ThroughputMBps = 100,
        }, CancellationToken.None);
        return history;
    }

    /// <summary>A second name for <paramref name="existing"/> (.NET has no call for a hard link; ln is POSIX).</summary>
    private static async Task HardLinkAsync(string existing, string link)
    {
        Skipped.Unless(!OperatingSystem.IsWindows(), "the hard link is made with POSIX ln", "run the tests on Linux or macOS");
        using var ln = Process.Start(new ProcessStartInfo("ln", [existing, link]) { RedirectStandardError = true })!;
        await ln.WaitForExitAsync();
        Assert.True(ln.ExitCode == 0, await ln.StandardError.ReadToEndAsync());
    }

    private string[] Arguments(string commandLine) => commandLine.Split(' ').Select(a => a switch
    {
        "CAPTURE" => Path.Combine(_folder, "restore.log"),
        "HARD_LINK" or "CAPTURE_HARD_LINK" => Path.Combine(_folder, "hard.log"),
        "HISTORY" => Path.Combine(_folder, "history.db"),
        "HISTORY-wal" => Path.Combine(_folder, "history.db-wal"),
        "HISTORY_HARD_LINK" => Path.Combine(_folder, "history-hard.db"),
        "LINK" => Path.Combine(_folder, "link.log"),
        "SAME_BY_ANOTHER_PATH" => Path.Combine(_folder, "sub", "..", "restore.log"),
        _ when a.StartsWith("LINKED_FOLDER/", StringComparison.Ordinal) => Path.Combine(_folder, "linked", a["LINKED_FOLDER/".Length..]),
        _ => a,
    }).ToArray();
}
