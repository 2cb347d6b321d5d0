using BackupXe.Cli;
using BackupXe.Core.Drill;
using BackupXe.Core.Events;
using BackupXe.Core.Fleet;
using BackupXe.Core.History;
using BackupXe.Core.Reporting;
using BackupXe.Core.Restores;
using BackupXe.History;
using BackupXe.Sources;
using BackupXe.Tests.Cli.Rendering;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Cli.Commands;

/// <summary>
/// <c>backupxe fleet</c> on a history imported from msdb backup set rows (the shape RestoreChainTests builds) on two
/// instances whose servers run at UTC+1, judged at a fixed moment of a fake clock.
/// </summary>
public sealed class FleetCommandTests : IAsyncLifetime
{
    private static readonly TimeSpan Offset = TimeSpan.FromHours(1);
    private static readonly DateTime Night = new(2026, 11, 20, 1, 0, 0);
    private static readonly FakeClock Clock = new(new DateTimeOffset(2026, 11, 20, 5, 30, 0, TimeSpan.Zero));

    private readonly string _folder = Directory.CreateTempSubdirectory("backupxe-fleet-").FullName;

    private string ImportFile => Path.Combine(_folder, "history.db");

    private static BackupSetRow Set(string database, char type, int hour, int minutes, string model, decimal first, decimal last, bool copyOnly = false) =>
        new(database, type, copyOnly, first, last, 41000000016000037m, first, model, Night.AddHours(hour), Night.AddHours(hour).AddMinutes(minutes), 4L << 30, 1L << 30);

    public async ValueTask InitializeAsync()
    {
        var history = new SqliteImportedHistory(ImportFile, Clock);
        await history.InitializeAsync(CancellationToken.None);
        // sql01: SalesDB (FULL) whose last log backup is at 02:01 server time, Hr (SIMPLE) with a nightly full, and
        // Archive (SIMPLE) whose only full is COPY_ONLY; sql02: Orders (FULL), log backups every hour, restored once.
        BackupSetRow[] sql01 =
        [
            Set("SalesDB", 'D', 0, 10, "FULL", 41000000016000037m, 41000000017600001m),
            Set("SalesDB", 'L', 1, 1, "FULL", 41000000008800001m, 41000000018400001m),
            Set("SalesDB", 'L', 2, 1, "FULL", 41000000018400001m, 41000000020000001m),
            Set("Hr", 'D', 3, 5, "SIMPLE", 42000000016000037m, 42000000017600001m),
            Set("Archive", 'D', -48, 30, "SIMPLE", 43000000016000037m, 43000000017600001m, copyOnly: true),
        ];
        BackupSetRow[] sql02 =
        [
            Set("Orders", 'D', 0, 10, "FULL", 44000000016000037m, 44000000017600001m),
            .. Enumerable.Range(1, 5).Select(h => Set("Orders", 'L', h, 1, "FULL", 44000000017600001m + h, 44000000017600002m + h)),
        ];
        await history.ImportAsync("sql01", sql01.Select(s => MsdbBackupSets.ToHistory(s, Offset)), CancellationToken.None);
        await history.ImportAsync("sql02", [.. sql02.Select(s => MsdbBackupSets.ToHistory(s, Offset)), new HistoryOperation
        {
            Kind = OperationKind.Restore,
            Scope = OperationScope.Database,
            Database = "Orders",
            Start = new DateTime(2026, 11, 19, 22, 0, 0, DateTimeKind.Utc),
            End = new DateTime(2026, 11, 19, 22, 12, 0, DateTimeKind.Utc),
            TimeResolutionSeconds = 0.001,
            Status = OperationStatus.Completed,
            BytesRead = 4L << 30,
            Sources = [HistorySource.Capture],
        }], CancellationToken.None);
    }

    public ValueTask DisposeAsync()
    {
        Directory.Delete(_folder, recursive: true);
        return ValueTask.CompletedTask;
    }

    private async Task<CliRun> RunAsync(params string[] args)
    {
        var output = new StringWriter();
        var error = new StringWriter();
        var exit = await Program.RunAsync(["fleet", "--history", ImportFile, .. args], CliRun.Captured(output, error) with { Time = Clock });
        return new CliRun(exit, output.ToString(), error.ToString());
    }

    private async Task<string> SettingsAsync(string json)
    {
        var path = Path.Combine(_folder, "appsettings.json");
        await File.WriteAllTextAsync(path, json);
        return path;
    }

    [Theory]
    [InlineData("console", "fleet.console.txt")]
    [InlineData("json", "fleet.json.txt")]
    [InlineData("html", "fleet.html.txt")]
    public async Task The_fleet_page_lists_every_database_against_its_targets_worst_first(string format, string snapshot)
    {
        var settings = await SettingsAsync("""
            { "BackupXe": { "Targets": { "RpoMinutes": 1440, "RtoMinutes": 60,
              "Rules": [ { "RecoveryModel": "FULL", "RpoMinutes": 60 }, { "Database": "Sales*", "RpoMinutes": 15 } ] } } }
            """);

        var run = await RunAsync("--settings", settings, "--format", format);

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Equal(string.Empty, run.Error);
        await Snapshot.MatchAsync(snapshot, run.Output);
    }

    [Fact]
    public async Task A_drill_in_the_history_is_what_the_rto_rests_on_before_a_captured_restore()
    {
        // Given Orders, restored by hand in 12 minutes (captured), then drilled on sql02: its restores took 90 minutes
        await new SqliteRestoreDrills(ImportFile, Clock).SaveAsync(new StoredDrill(
            "sql02", "Orders", "Orders_drill", new DateTime(2026, 11, 20, 3, 0, 0, DateTimeKind.Utc), DrillStatus.Completed, 5400, 6100, [], null, null), CancellationToken.None);
        var settings = await SettingsAsync("""{ "BackupXe": { "Targets": { "RtoMinutes": 60 } } }""");

        // When
        var run = await RunAsync("--settings", settings, "--format", "json");

        // Then Orders's RTO is the drill's, outside the hour; the databases without drill or restore keep the estimate
        Assert.True(run.ExitCode == 0, run.Error);
        using var json = System.Text.Json.JsonDocument.Parse(run.Output);
        var databases = json.RootElement.GetProperty("databases").EnumerateArray().ToDictionary(d => d.GetProperty("database").GetString()!, d => d.GetProperty("rto"));
        Assert.Equal("drill", databases["Orders"].GetProperty("source").GetString());
        Assert.Equal(5400, databases["Orders"].GetProperty("seconds").GetDouble());
        Assert.Equal("outside", databases["Orders"].GetProperty("state").GetString());
        Assert.StartsWith("the last restore drill, 2026-11-20 03:00 on sql02", databases["Orders"].GetProperty("evidence").GetString(), StringComparison.Ordinal);
        Assert.Equal("estimate", databases["SalesDB"].GetProperty("source").GetString());
    }

    [Fact]
    public async Task The_database_furthest_past_its_rpo_comes_first()
    {
        var settings = await SettingsAsync("""{ "BackupXe": { "Targets": { "Rules": [ { "Database": "Sales*", "RpoMinutes": 15 } ] } } }""");

        var run = await RunAsync("--settings", settings);

        // SalesDB's last log backup finished 02:01 UTC, 3 h 29 min before 05:30: 14x its 15 minutes; Archive's COPY_ONLY
        // full two days old is past the standard day
        var lines = run.Output.Split('\n');
        Assert.StartsWith("Fleet at 2026-11-20 05:30 UTC: 4 databases on 2 instances, 2 out of target", lines[0], StringComparison.Ordinal);
        Assert.StartsWith("sql01     SalesDB", lines[2], StringComparison.Ordinal);
        Assert.StartsWith("sql01     Archive", lines[3], StringComparison.Ordinal);
        Assert.Contains("outside: 3 h 29 min against 15 min 00 s (rule 0) since 2026-11-20 02:16", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Targets_out_of_range_in_the_settings_are_refused_naming_the_key()
    {
        var settings = await SettingsAsync("""{ "BackupXe": { "Targets": { "RpoMinutes": 0, "Rules": [ { "Database": "", "RpoMinutes": 5 } ] } } }""");

        var run = await RunAsync("--settings", settings);

        Assert.Equal(1, run.ExitCode);
        Assert.Equal($"backupxe: {settings}: BackupXe:Targets:Rules:0:Database must not be empty.\n", run.Error.Replace("\r\n", "\n", StringComparison.Ordinal));
        Assert.Equal(string.Empty, run.Output);
    }

    [Fact]
    public async Task Html_is_refused_to_a_terminal()
    {
        var output = new StringWriter();
        var error = new StringWriter();
        var console = CliRun.Captured(output, error) with { Time = Clock, IsOutputRedirected = false };

        var exit = await Program.RunAsync(["fleet", "--history", ImportFile, "--format", "html"], console);

        Assert.Equal(1, exit);
        Assert.Contains("redirect it to a file", error.ToString(), StringComparison.Ordinal);
        Assert.Equal(string.Empty, output.ToString());
    }

    [Fact]
    public async Task A_missing_history_is_one_line_and_exit_1()
    {
        var output = new StringWriter();
        var error = new StringWriter();

        var exit = await Program.RunAsync(["fleet", "--history", Path.Combine(_folder, "none.db")], CliRun.Captured(output, error) with { Time = Clock });

        Assert.Equal(1, exit);
        Assert.StartsWith("backupxe: no history at", error.ToString(), StringComparison.Ordinal);
        Assert.False(File.Exists(Path.Combine(_folder, "none.db")));
    }
}
