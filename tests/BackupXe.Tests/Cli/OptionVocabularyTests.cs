using System.Text.Json;
using BackupXe.Tests.Support;
using Microsoft.Data.Sqlite;
using Xunit;

namespace BackupXe.Tests.Cli;

/// <summary>
/// <c>--database</c> filters operations in every verb that lists or imports them; a file after it stays a file, and a
/// file given as its value is a usage error. <c>--since</c> and <c>--until</c> bound the operations' start.
/// </summary>
public sealed class OptionVocabularyTests : IDisposable
{
    private readonly string _folder = Directory.CreateTempSubdirectory("backupxe-options-").FullName;

    public void Dispose()
    {
        SqliteConnection.ClearAllPools();
        Directory.Delete(_folder, recursive: true);
    }

    [Theory]
    [InlineData("SalesDB", "SalesDB")]
    [InlineData("salesarchive", "SalesArchive")]
    [InlineData("SalesDB,SalesArchive", "SalesArchive SalesDB")]
    [InlineData("NoSuchDb", "")]
    public async Task Analyze_database_keeps_only_those_operations(string filter, string expected)
    {
        // When
        var run = await CliRun.RunAsync("analyze", CliRun.Sample("buffer-starved-backup.xml"), CliRun.Sample("log-zeroing-restore.log"), "--database", filter, "--format", "json");

        // Then
        Assert.Equal(0, run.ExitCode);
        Assert.Equal(expected, string.Join(' ', Databases(run.Output)));
    }

    [Theory]
    [InlineData("--since", "2024-05-02", "SalesArchive")]
    [InlineData("--until", "2024-05-02", "SalesDB")]
    [InlineData("--since", "2024-05-03", "")]
    public async Task Analyze_since_and_until_bound_the_operations_start(string option, string value, string expected)
    {
        // When
        var run = await CliRun.RunAsync("analyze", CliRun.Sample("buffer-starved-backup.xml"), CliRun.Sample("log-zeroing-restore.log"), option, value, "--format", "json");

        // Then
        Assert.Equal(0, run.ExitCode);
        Assert.Equal(expected, string.Join(' ', Databases(run.Output)));
    }

    [Theory]
    [InlineData("--since", "yesterday")]
    [InlineData("--until", "2024-13-01")]
    public async Task A_time_bound_that_is_no_time_is_a_usage_error(string option, string value)
    {
        var run = await CliRun.RunAsync("analyze", CliRun.Sample("buffer-starved-backup.xml"), option, value);
        Assert.Equal(1, run.ExitCode);
        Assert.Contains($"{option} '{value}'", run.Error);
    }

    [Fact]
    public async Task History_import_with_database_imports_only_that_database_and_keeps_the_file_argument()
    {
        // Given job output of two databases
        var output = new OlaJobOutput();
        output.Command(new DateTime(2024, 5, 1, 1, 0, 0), TimeSpan.FromSeconds(40), "BACKUP DATABASE [HR] TO DISK = N'X:\\b\\HR.bak'", pages: 1_310_720, engineSeconds: 39.75);
        output.Command(new DateTime(2024, 5, 1, 2, 0, 0), TimeSpan.FromSeconds(40), "BACKUP DATABASE [Sales] TO DISK = N'X:\\b\\Sales.bak'", pages: 1_310_720, engineSeconds: 39.75);
        var file = output.WriteTo(_folder, "DatabaseBackup.txt");
        var db = Path.Combine(_folder, "history.db");

        // When the file follows the option, as users type it
        var import = await CliRun.RunAsync("history", "import", "--path", db, "--database", "HR", file);
        var history = await CliRun.RunAsync("history", "--path", db, "--format", "json");

        // Then
        Assert.True(import.ExitCode == 0, import.Error);
        Assert.Contains("1 operations (1 of other databases left out): 1 added", import.Output);
        Assert.Equal("HR", string.Join(' ', Databases(history.Output)));
    }

    [Fact]
    public async Task A_file_given_as_a_database_is_a_usage_error_and_creates_no_history()
    {
        // Given
        var file = Path.Combine(_folder, "job.txt");
        await File.WriteAllTextAsync(file, "Date and time: 2024-05-01 01:00:00\n");
        var db = Path.Combine(_folder, "history.db");

        // When
        var run = await CliRun.RunAsync("history", "import", "--path", db, "--database", file);

        // Then
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("is a file", run.Error);
        Assert.False(File.Exists(db));
    }

    [Theory]
    [InlineData("2")]
    [InlineData("50")]
    public async Task History_vs_median_is_against_the_whole_series_whatever_the_limit(string limit)
    {
        // Given ten nights at 100 MB/s, then one at 40 MB/s
        var db = Path.Combine(_folder, "history.db");
        var store = new BackupXe.History.SqliteHistoryStore(db, TimeProvider.System);
        await store.InitializeAsync(CancellationToken.None);
        for (var night = 0; night < 11; night++)
        {
            var start = new DateTime(2024, 5, 1 + night, 1, 0, 0, DateTimeKind.Utc);
            await store.SaveAsync("prod01", new BackupXe.Core.Reporting.OperationReport
            {
                Kind = BackupXe.Core.Events.OperationKind.Backup, Database = "Sales", Start = start, End = start.AddMinutes(1),
                Status = BackupXe.Core.Reporting.OperationStatus.Completed, DurationSeconds = 60, ThroughputMBps = night < 10 ? 100 : 40,
            }, CancellationToken.None);
        }

        // When
        var run = await CliRun.RunAsync("history", "--path", db, "--limit", limit, "--no-color");

        // Then the newest row, listed first, is 40% of the series' usual rate
        Assert.Equal(0, run.ExitCode);
        var newest = run.Output.Split('\n').First(line => line.Contains("2024-05-11", StringComparison.Ordinal));
        Assert.Contains(" 40%", newest);
    }

    private static IEnumerable<string> Databases(string json)
    {
        using var document = JsonDocument.Parse(json);
        var operations = document.RootElement.ValueKind == JsonValueKind.Array
            ? document.RootElement
            : document.RootElement.GetProperty("operations");
        return operations.EnumerateArray()
            .Select(o => (o.TryGetProperty("operation", out var inner) ? inner : o).GetProperty("database").GetString()!)
            .Order(StringComparer.Ordinal)
            .ToList();
    }
}
