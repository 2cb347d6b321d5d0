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

    private static async Task Execute(string path, string sql)
    {
        await using var connection = new SqliteConnection($"Data Source={path};Pooling=False");
        await connection.OpenAsync();
        await using var command = connection.CreateCommand();
        command.CommandText = sql;
        await command.ExecuteNonQueryAsync();
    }
}
