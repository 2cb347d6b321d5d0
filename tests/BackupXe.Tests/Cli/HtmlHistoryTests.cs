using BackupXe.Core.Reporting;
using BackupXe.History;
using BackupXe.Tests.Rendering.Support;
using Xunit;

namespace BackupXe.Tests.Cli;

public sealed class HtmlHistoryTests
{
    [Fact]
    public async Task History_html_plots_each_database_and_marks_what_the_regression_rule_flags()
    {
        // Given
        var path = Path.Combine(Path.GetTempPath(), $"backupxe-history-{Guid.NewGuid():N}.db");
        var file = Path.ChangeExtension(path, ".html");
        var store = new SqliteHistoryStore(path, TimeProvider.System);
        await store.InitializeAsync(CancellationToken.None);
        await SeedAsync(store);
        try
        {
            // When
            var run = await CliRun.RunAsync("history", "--path", path, "--format", "html", "--output", file);

            // Then: one regression, the last Sales backup (40 against a median of 100)
            Assert.True(run.ExitCode == 0, run.Error);
            var page = HtmlPage.Parse(await File.ReadAllTextAsync(file));
            var rows = HtmlPage.Table(page.Section("history"), "history").Descendants("tr").Where(r => r.Attribute("data-regression") is not null).ToList();
            Assert.Equal(9, rows.Count);
            var flagged = Assert.Single(rows, r => (string?)r.Attribute("data-regression") == "true");
            Assert.Equal("40", HtmlPage.Column(flagged.Parent!.Parent!, "throughputMBps").Last());
            Assert.Equal("100", flagged.Descendants("td").Single(td => (string?)td.Attribute("data-field") == "medianMBps").Attribute("data-value")!.Value);

            var data = page.Data["history-data"].RootElement.GetProperty("history");
            Assert.Equal(2, data.GetProperty("series").GetArrayLength());
            Assert.Equal([40.0], data.GetProperty("regressions").GetProperty("mbps").EnumerateArray().Select(v => v.GetDouble()));
            Assert.Equal("3", (string?)page.WithAttribute("data-chart", "history").Single().Attribute("data-series"));
        }
        finally
        {
            Microsoft.Data.Sqlite.SqliteConnection.ClearAllPools();
            File.Delete(path);
            File.Delete(file);
        }
    }

    /// <summary>Six nightly Sales backups (the last at 40% of the others) and three of Orders at a steady rate.</summary>
    internal static async Task SeedAsync(SqliteHistoryStore store)
    {
        var rates = new (string Database, int Day, double Rate)[]
        {
            ("Sales", 1, 100), ("Sales", 2, 95), ("Sales", 3, 105), ("Sales", 4, 100), ("Sales", 5, 110), ("Sales", 6, 40),
            ("Orders", 2, 60), ("Orders", 4, 62), ("Orders", 6, 58),
        };
        foreach (var (database, day, rate) in rates)
        {
            var start = new DateTime(2024, 5, day, 1, 0, 0, DateTimeKind.Utc);
            await store.SaveAsync("prod01", new OperationReport
            {
                Kind = Core.Events.OperationKind.Backup, Scope = Core.Events.OperationScope.Database, Database = database, SessionId = 61,
                Start = start, End = start.AddMinutes(10), Status = OperationStatus.Completed, DurationSeconds = 600, ThroughputMBps = rate,
            }, CancellationToken.None);
        }
    }
}
