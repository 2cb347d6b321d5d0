using BackupXe.Core.Reporting;
using BackupXe.History;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Sources.Support;
using Microsoft.Data.Sqlite;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// Command lines a hurried user types and files they point at by mistake: each is one line on stderr and the
/// documented exit code (1 usage or nothing usable, 2 partial), never a stack trace, and nothing is overwritten.
/// </summary>
public class MisuseTests
{
    [Theory]
    [InlineData("watch --replay SAMPLE --speed 1e-300", "--speed must be 0")]
    [InlineData("watch --replay SAMPLE --speed -1", "--speed must be 0")]
    [InlineData("watch --replay SAMPLE --speed NaN", "--speed must be 0")]
    [InlineData("watch --replay SAMPLE --server prod01", "--replay and --server are exclusive")]
    [InlineData("watch --speed 10", "--speed paces a replay")]
    [InlineData("analyze SAMPLE --verbos", "unknown option '--verbos'")]
    [InlineData("analyze --formt json SAMPLE", "unknown option '--formt'")]
    [InlineData("analyze SAMPLE --memory-budget-mb 0", "--memory-budget-mb must be at least 1")]
    [InlineData("history --limit 0", "--limit must be at least 1")]
    [InlineData("analyze SAMPLE --memory-budget-mb 99999999999", "--memory-budget-mb must be a whole number of MB from 1 to 2147483647; it is '99999999999'")]
    [InlineData("analyze SAMPLE --memory-budget-mb lots", "--memory-budget-mb must be a whole number of MB")]
    [InlineData("events --bogus SAMPLE", "unknown option '--bogus'")]
    [InlineData("events SAMPLE --bogus", "unknown option '--bogus'")]
    public async Task A_misused_option_is_a_usage_error(string commandLine, string expected)
    {
        // Given
        var args = commandLine.Split(' ').Select(a => a == "SAMPLE" ? CliRun.Sample("log-zeroing-restore.log") : a).ToArray();

        // When
        var run = await CliRun.RunAsync(args);

        // Then
        Assert.Equal(1, run.ExitCode);
        Assert.Contains(expected, run.Error);
        Assert.DoesNotContain("   at ", run.Error);
        Assert.DoesNotContain("System.", run.Error);
    }

    [Theory]
    [InlineData("analyse SAMPLE", "backupxe: unknown command 'analyse'; did you mean 'analyze'? (see `backupxe --help`)")]
    [InlineData("analyze --formt json SAMPLE", "backupxe: unknown option '--formt'; did you mean '--format'? (see `backupxe analyze --help`)")]
    [InlineData("history --limt 3", "backupxe: unknown option '--limt'; did you mean '--limit'? (see `backupxe history --help`)")]
    [InlineData("history import --bogus SAMPLE", "backupxe: unknown option '--bogus'; a file whose name starts with '-' is named as ./--bogus (see `backupxe history import --help`)")]
    [InlineData("analyze SAMPLE -f htm", "backupxe: --format 'htm' is not one of console, json, markdown, html; did you mean 'html'? (see `backupxe analyze --help`)")]
    [InlineData("check -S 127.0.0.1:1 --connect-timeout 1", "backupxe: --server '127.0.0.1:1': SQL Server writes the port after a comma, not a colon: --server 127.0.0.1,1.")]
    public async Task A_usage_error_is_one_line_with_the_nearest_spelling_and_where_the_help_is(string commandLine, string expected)
    {
        // Given
        var args = commandLine.Split(' ').Select(a => a == "SAMPLE" ? CliRun.Sample("log-zeroing-restore.log") : a).ToArray();

        // When
        var run = await CliRun.RunAsync(args);

        // Then one line, not the help after it (which scrolled the error off a 24-line terminal)
        Assert.Equal(1, run.ExitCode);
        Assert.Equal(expected, run.Error.TrimEnd());
        Assert.Equal(string.Empty, run.Output);
    }

    [Theory]
    [InlineData("JSON", "\"operations\"")]
    [InlineData("Markdown", "# ")]
    public async Task A_format_is_accepted_in_any_case(string format, string expected)
    {
        // When
        var run = await CliRun.RunAsync("analyze", CliRun.Sample("log-zeroing-restore.log"), "-f", format, "--no-color");

        // Then
        Assert.Equal(0, run.ExitCode);
        Assert.Contains(expected, run.Output, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("html", null, true, true)]
    [InlineData("html", "report.html", true, false)]
    [InlineData("html", null, false, false)]
    [InlineData("markdown", null, true, false)]
    public void Html_to_a_terminal_is_refused_with_the_way_to_write_it(string format, string? output, bool terminal, bool refused)
    {
        var problem = BackupXe.Cli.Commands.CommonOptions.HtmlToTerminal(format, output, terminal);
        Assert.Equal(refused, problem is not null);
        if (refused)
        {
            Assert.Contains("-o report.html", problem, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task Html_piped_elsewhere_is_written_as_asked()
    {
        // When standard output is not a terminal (a test's, like a pipe's)
        var run = await CliRun.RunAsync("analyze", CliRun.Sample("log-zeroing-restore.log"), "-f", "HTML");

        // Then
        Assert.Equal(0, run.ExitCode);
        Assert.Contains("<!DOCTYPE html>", run.Output, StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public async Task Given_an_unknown_option_when_importing_history_then_it_is_a_usage_error_and_no_history_is_created()
    {
        // Given
        using var folder = TempInput.Nowhere("history.db");

        // When
        var run = await CliRun.RunAsync("history", "import", "--path", folder.Path, "--bogus", CliRun.Sample("log-zeroing-restore.log"));

        // Then
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("unknown option '--bogus'", run.Error);
        Assert.False(File.Exists(folder.Path));
    }

    [Fact]
    public async Task History_with_an_unreadable_row_lists_the_others_and_names_the_row()
    {
        // Given a history with two backups, one of whose stored report was damaged
        using var folder = TempInput.Nowhere("history.db");
        var store = new SqliteHistoryStore(folder.Path, TimeProvider.System);
        await store.InitializeAsync(CancellationToken.None);
        foreach (var day in new[] { 1, 2 })
        {
            var start = new DateTime(2024, 5, day, 1, 0, 0, DateTimeKind.Utc);
            await store.SaveAsync("prod01", new OperationReport
            {
                Kind = Core.Events.OperationKind.Backup, Database = "Sales", Start = start, End = start.AddMinutes(1),
                Status = OperationStatus.Completed, DurationSeconds = 60, ThroughputMBps = 100,
            }, CancellationToken.None);
        }

        await Execute(folder.Path, "UPDATE operations SET report_json = '{\"kind\": \"backup\", broken' WHERE id = 2;");

        // When
        var run = await CliRun.RunAsync("history", "--path", folder.Path, "--format", "json");

        // Then
        Assert.Equal(2, run.ExitCode);
        Assert.Contains($"{folder.Path}: row id 2: the stored report cannot be read", run.Error);
        Assert.Contains("2024-05-01", run.Output);
        Assert.DoesNotContain("   at ", run.Error);
    }

    [Theory]
    [InlineData("corrupt")]
    [InlineData("foreign")]
    [InlineData("foreign operations table")]
    public async Task History_on_a_file_that_is_not_ours_is_refused_read_only(string kind)
    {
        // Given a damaged file, or another program's SQLite database (one even has a table named operations)
        using var folder = TempInput.Nowhere("other.db");
        if (kind == "corrupt")
        {
            // Seeded: the same damage every run, so a failure can be reproduced.
            var noise = new byte[8192];
            new Random(7).NextBytes(noise);
            await File.WriteAllBytesAsync(folder.Path, [.. "SQLite format 3\0"u8, .. noise]);
        }
        else
        {
            var table = kind == "foreign" ? "customers (id INTEGER, name TEXT)" : "operations (id INTEGER, total REAL)";
            await Execute(folder.Path, $"CREATE TABLE {table}; INSERT INTO {table[..table.IndexOf(' ')]} (id) VALUES (1);");
        }

        var before = await File.ReadAllBytesAsync(folder.Path);

        // When
        var run = await CliRun.RunAsync("history", "--path", folder.Path);

        // Then it says what the file is, and the file is exactly as it was: no tables added, no WAL switch
        Assert.Equal(1, run.ExitCode);
        Assert.StartsWith($"backupxe: {folder.Path}: ", run.Error);
        Assert.DoesNotContain("   at ", run.Error);
        SqliteConnection.ClearAllPools();
        Assert.Equal(before, await File.ReadAllBytesAsync(folder.Path));
        Assert.False(File.Exists(folder.Path + "-wal"));
    }

    [Fact]
    public async Task Reading_a_history_the_daemon_closed_leaves_no_journal_files_beside_it()
    {
        // Given a history written as the daemon writes it (WAL mode), and closed
        using var folder = TempInput.Nowhere("history.db");
        var store = new SqliteHistoryStore(folder.Path, TimeProvider.System);
        await store.InitializeAsync(CancellationToken.None);
        var start = new DateTime(2024, 5, 1, 1, 0, 0, DateTimeKind.Utc);
        await store.SaveAsync("prod01", new OperationReport
        {
            Kind = Core.Events.OperationKind.Backup, Database = "Sales", Start = start, End = start.AddMinutes(1),
            Status = OperationStatus.Completed, DurationSeconds = 60, ThroughputMBps = 100,
        }, CancellationToken.None);
        SqliteConnection.ClearAllPools();
        Assert.False(File.Exists(folder.Path + "-wal"));

        // When it is listed, and set against an analysis
        var listed = await CliRun.RunAsync("history", "--path", folder.Path);
        var compared = await CliRun.RunAsync("analyze", CliRun.Sample("log-zeroing-restore.log"), "--history", folder.Path, "-f", "json");

        // Then
        Assert.Equal(0, listed.ExitCode);
        Assert.Contains("Sales", listed.Output, StringComparison.Ordinal);
        Assert.Equal(0, compared.ExitCode);
        Assert.False(File.Exists(folder.Path + "-wal"));
        Assert.False(File.Exists(folder.Path + "-shm"));
    }

    private static async Task Execute(string path, string sql)
    {
        await using var connection = new SqliteConnection($"Data Source={path};Pooling=False");
        await connection.OpenAsync();
        await using var command = connection.CreateCommand();
        command.CommandText = sql;
        await command.ExecuteNonQueryAsync();
    }
}
