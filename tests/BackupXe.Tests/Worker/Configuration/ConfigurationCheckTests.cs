using System.Text.RegularExpressions;
using BackupXe.Tests.Hostile;
using BackupXe.Tests.Support;
using BackupXe.Worker;
using BackupXe.Worker.Configuration;
using Microsoft.Extensions.Configuration;
using Xunit;

namespace BackupXe.Tests.Worker.Configuration;

/// <summary>
/// <c>BackupXe.Worker --validate [FILE]</c>: the bundled and documented configurations pass, a broken one exits 2 naming
/// the setting, and nothing is connected to or written.
/// </summary>
public sealed partial class ConfigurationCheckTests : IDisposable
{
    private static readonly string RepositoryRoot = Repository.Root;
    private readonly string _folder = Directory.CreateTempSubdirectory("backupxe-validate-").FullName;

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    [Fact]
    public void The_bundled_appsettings_is_valid()
    {
        // The file the publish and the release archives ship: a service started from them must pass its own check.
        var result = ConfigurationCheck.Check(Path.Combine(RepositoryRoot, "src", "BackupXe.Worker", "appsettings.json"));

        Assert.Equal(ExitCodes.Success, result.ExitCode);
        Assert.Equal(1, result.InstanceCount);
    }

    [Fact]
    public void The_demo_configuration_that_replays_the_samples_is_valid()
    {
        var result = ConfigurationCheck.Check(Path.Combine(RepositoryRoot, "deploy", "demo", "appsettings.json"));

        Assert.Equal(ExitCodes.Success, result.ExitCode);
        Assert.Equal(2, result.InstanceCount);
    }

    [Theory]
    [InlineData("configuration.md")]
    [InlineData("deploy.md")]
    public async Task Every_configuration_example_in_the_docs_is_valid(string page)
    {
        // The examples' relative ReplayPaths (../../samples/...) are written for src/BackupXe.Worker: the same shape here.
        var settingsFolder = Path.Combine(_folder, "src", "worker");
        Directory.CreateDirectory(settingsFolder);
        Directory.CreateSymbolicLink(Path.Combine(_folder, "samples"), Path.Combine(RepositoryRoot, "samples"));
        var examples = JsonBlock().Matches(await File.ReadAllTextAsync(Path.Combine(RepositoryRoot, "docs", page)))
            .Select(match => match.Groups[1].Value)
            .Where(json => json.Contains("\"BackupXe\"", StringComparison.Ordinal))
            .ToList();
        Assert.NotEmpty(examples);

        foreach (var (json, index) in examples.Select((json, index) => (json, index)))
        {
            var file = Path.Combine(settingsFolder, $"example-{index}.json");
            await File.WriteAllTextAsync(file, json);

            var result = ConfigurationCheck.Check(file);

            Assert.True(result.ExitCode == ExitCodes.Success, $"{page} example {index + 1}: {string.Join("; ", result.Problems)}");
        }

        Assert.False(File.Exists(Path.Combine(settingsFolder, "backupxe-history.db")), "validation must not create the history");
    }

    [Fact]
    public async Task A_configuration_with_an_error_exits_2_naming_the_setting_and_writes_nothing()
    {
        await File.WriteAllTextAsync(Path.Combine(_folder, "appsettings.json"), """
            { "BackupXe": { "Instances": [ { "Name": "prod", "ReplayPath": "missing.xml" } ], "RetryDelaySeconds": -1 } }
            """);

        var run = await ChildProcess.RunAsync(ChildProcess.Worker, _folder, TimeSpan.FromSeconds(60), "--validate");

        Assert.Equal(ExitCodes.InvalidConfiguration, run.ExitCode);
        Assert.Contains("BackupXe:RetryDelaySeconds", run.Error);
        Assert.Contains("BackupXe:Instances:0:ReplayPath", run.Error);
        Assert.False(run.ShowsStackTrace, run.Error);
        Assert.Equal(["appsettings.json"], Directory.EnumerateFileSystemEntries(_folder).Select(Path.GetFileName));
    }

    [Fact]
    public async Task A_capture_window_rule_of_a_hundred_thousand_items_exits_2_naming_the_key_not_134()
    {
        // Given the rule that overflowed the cron parser's stack
        var rule = string.Join(',', Enumerable.Repeat("0", 100_000)) + " 3 * * *";
        await File.WriteAllTextAsync(Path.Combine(_folder, "appsettings.json"), $$"""
            { "BackupXe": { "Instances": [ { "Name": "prod", "Server": "db01", "EnsureSession": true,
              "CaptureWindows": { "Windows": [ { "Start": "{{rule}}", "DurationMinutes": 60 } ] } } ] } }
            """);

        // When
        var run = await ChildProcess.RunAsync(ChildProcess.Worker, _folder, TimeSpan.FromSeconds(60), "--validate");

        // Then
        Assert.Equal(ExitCodes.InvalidConfiguration, run.ExitCode);
        Assert.Contains("BackupXe:Instances:0:CaptureWindows:Windows:0:Start is 200007 characters long", run.Error);
        Assert.False(run.ShowsStackTrace, run.Error);
    }

    [Fact]
    public async Task Recovery_targets_out_of_range_exit_2_naming_each_key()
    {
        File.Copy(Path.Combine(RepositoryRoot, "samples", "buffer-starved-backup.xml"), Path.Combine(_folder, "backup.xml"));
        var settings = Path.Combine(_folder, "settings.json");
        await File.WriteAllTextAsync(settings, """
            { "BackupXe": { "Instances": [ { "Name": "backup", "ReplayPath": "backup.xml" } ],
              "Targets": { "RpoMinutes": -5, "Rules": [ { "Database": "Sales*", "RecoveryModel": "FAST", "RtoMinutes": 60 }, { "Instance": "backup" } ] } } }
            """);

        var result = ConfigurationCheck.Check(settings);

        Assert.Equal(ExitCodes.InvalidConfiguration, result.ExitCode);
        Assert.Equal(
        [
            "BackupXe:Targets:RpoMinutes must be from 0 (no target) to 525600 (a year); it is -5.",
            "BackupXe:Targets:Rules:0:RecoveryModel must be one of FULL, BULK_LOGGED, SIMPLE; it is 'FAST'.",
            "BackupXe:Targets:Rules:1 sets no target: give it RpoMinutes, RtoMinutes or both.",
        ], result.Problems);
    }

    [Fact]
    public async Task A_per_database_series_pattern_and_its_cap_are_checked_each_named_by_its_key()
    {
        var settings = Path.Combine(_folder, "settings.json");
        await File.WriteAllTextAsync(settings, """
            { "BackupXe": { "Instances": [ { "Name": "backup", "ReplayPath": "backup.xml" } ],
              "Targets": { "DatabaseSeries": " ", "MaxDatabaseSeries": 501 } } }
            """);

        var result = ConfigurationCheck.Check(settings);

        Assert.Equal(ExitCodes.InvalidConfiguration, result.ExitCode);
        Assert.Contains("BackupXe:Targets:DatabaseSeries must not be empty.", result.Problems);
        Assert.Contains("BackupXe:Targets:MaxDatabaseSeries must be from 1 to 500; it is 501.", result.Problems);
    }

    [Fact]
    public async Task Recovery_targets_bind_into_the_rule_the_compliance_uses()
    {
        var settings = Path.Combine(_folder, "settings.json");
        await File.WriteAllTextAsync(settings, """
            { "BackupXe": { "Instances": [ { "Name": "sql01", "Server": "sql01" } ],
              "Targets": { "RpoMinutes": 60, "RtoMinutes": 240, "Rules": [ { "Database": "Sales*", "RpoMinutes": 15 } ] } } }
            """);
        var options = new ConfigurationBuilder().AddJsonFile(settings).Build()
            .GetSection(BackupXeOptions.SectionName).Get<BackupXeOptions>(binder => binder.ErrorOnUnknownConfiguration = true)!;

        var targets = options.Targets.ToTargets();

        Assert.Equal(ExitCodes.Success, ConfigurationCheck.Check(settings).ExitCode);
        Assert.Equal(TimeSpan.FromMinutes(15), targets.RpoFor("sql01", "SalesDB", "FULL")!.Value);
        Assert.Equal(TimeSpan.FromMinutes(60), targets.RpoFor("sql01", "Hr", "FULL")!.Value);
        Assert.Equal(TimeSpan.FromHours(4), targets.RtoFor("sql01", "SalesDB", "FULL")!.Value);
    }

    [Fact]
    public async Task A_valid_file_given_by_path_exits_0_and_says_nothing_was_connected()
    {
        File.Copy(Path.Combine(RepositoryRoot, "samples", "buffer-starved-backup.xml"), Path.Combine(_folder, "backup.xml"));
        var settings = Path.Combine(_folder, "settings.json");
        await File.WriteAllTextAsync(settings, """
            { "BackupXe": { "Instances": [ { "Name": "backup", "ReplayPath": "backup.xml" } ] } }
            """);

        var run = await ChildProcess.RunAsync(ChildProcess.Worker, Path.GetTempPath(), TimeSpan.FromSeconds(60), "--validate", settings);

        Assert.Equal(ExitCodes.Success, run.ExitCode);
        Assert.Contains($"{settings}: valid (1 instance)", run.Output);
    }

    [Fact]
    public async Task A_file_that_is_not_json_exits_2_with_the_parsers_line()
    {
        await File.WriteAllTextAsync(Path.Combine(_folder, "appsettings.json"), "{ \"BackupXe\": { \"Instances\": [ ");

        var run = await ChildProcess.RunAsync(ChildProcess.Worker, _folder, TimeSpan.FromSeconds(60), "--validate");

        Assert.Equal(ExitCodes.InvalidConfiguration, run.ExitCode);
        Assert.Contains("cannot be read", run.Error);
        Assert.False(run.ShowsStackTrace, run.Error);
    }

    [GeneratedRegex(@"```json\n(.*?)\n```", RegexOptions.Singleline)]
    private static partial Regex JsonBlock();
}
