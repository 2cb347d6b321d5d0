using BackupXe.Worker.Configuration;
using Microsoft.Extensions.Configuration;
using Xunit;

namespace BackupXe.Tests.Worker.Configuration;

/// <summary>The daemon's restore drill settings (docs/configuration.md, "Restore drill windows") as start-up checks them.</summary>
public sealed class RestoreDrillsOptionsTests
{
    private const string Drills = "BackupXe:Instances:0:RestoreDrills";

    private static readonly (string, string?)[] ProdAndTest =
    [
        ("BackupXe:Instances:0:Name", "prod"),
        ("BackupXe:Instances:0:Server", "prod-01.corp"),
        ("BackupXe:Instances:1:Name", "test"),
        ("BackupXe:Instances:1:Server", "test-01.corp"),
    ];

    private static readonly (string, string?)[] SalesDbOnTest =
    [
        .. ProdAndTest,
        ($"{Drills}:Databases:0", "SalesDB"),
        ($"{Drills}:TargetInstance", "test"),
        ($"{Drills}:Windows:0:Start", "0 2 * * 6"),
        ($"{Drills}:Windows:0:DurationMinutes", "240"),
    ];

    private static IReadOnlyList<string> Failures(params (string Key, string? Value)[] settings)
    {
        var options = new BackupXeOptions();
        new ConfigurationBuilder()
            // A later setting of the same key replaces the earlier one, as a later configuration source does.
            .AddInMemoryCollection(settings.GroupBy(setting => setting.Key).Select(g => new KeyValuePair<string, string?>(g.Key, g.Last().Value)))
            .Build()
            .GetSection(BackupXeOptions.SectionName).Bind(options);
        return new BackupXeOptionsValidator().Validate(null, options).Failures?.ToList() ?? [];
    }

    [Fact]
    public void Drills_are_off_by_default_and_a_database_on_another_instance_in_a_window_is_valid()
    {
        Assert.False(new InstanceOptions().RestoreDrills.Enabled);
        Assert.Equal(1, new BackupXeOptions().MaxConcurrentDrills);
        Assert.Empty(Failures(SalesDbOnTest));
    }

    [Fact]
    public void The_target_must_be_another_live_instance_unless_the_source_server_is_allowed()
    {
        Assert.Contains($"{Drills}:TargetInstance 'nowhere' is not the Name of a live instance in BackupXe:Instances.",
            Failures([.. SalesDbOnTest, ($"{Drills}:TargetInstance", "nowhere")]));
        Assert.Contains(Failures([.. SalesDbOnTest, ($"{Drills}:TargetInstance", "prod")]), f => f.StartsWith($"{Drills}:TargetInstance is the instance itself", StringComparison.Ordinal));
        Assert.Empty(Failures([.. SalesDbOnTest, ($"{Drills}:TargetInstance", "prod"), ($"{Drills}:AllowSourceServer", "true")]));
        Assert.Contains(Failures([.. SalesDbOnTest.Where(setting => setting.Item1 != $"{Drills}:TargetInstance")]), f => f.StartsWith($"{Drills}:TargetInstance is required", StringComparison.Ordinal));
    }

    [Fact]
    public void Drills_need_a_window_a_valid_rule_and_names_once_each_in_either_history()
    {
        var noWindow = Failures([.. ProdAndTest, ($"{Drills}:Databases:0", "SalesDB"), ($"{Drills}:TargetInstance", "test")]);
        Assert.Contains(noWindow, f => f.StartsWith($"{Drills}:Windows is empty", StringComparison.Ordinal));
        Assert.Contains(Failures([.. SalesDbOnTest, ($"{Drills}:Windows:0:Start", "0 0 30 2 *")]), f => f.Contains("never fires", StringComparison.Ordinal));
        Assert.Contains($"{Drills}:Databases:1 names 'salesdb' a second time.", Failures([.. SalesDbOnTest, ($"{Drills}:Databases:1", "salesdb")]));
        Assert.Contains(Failures([.. SalesDbOnTest, ($"{Drills}:Databases:1", new string('x', 129))]), f => f.StartsWith($"{Drills}:Databases:1 must be a database name", StringComparison.Ordinal));
        Assert.Empty(Failures([.. SalesDbOnTest, ("BackupXe:History:Provider", "sqlserver"), ("BackupXe:History:ConnectionString", "Server=h;Integrated Security=true")]));
        Assert.Contains(Failures([.. SalesDbOnTest, ($"{Drills}:LookbackDays", "0")]), f => f.StartsWith($"{Drills}:LookbackDays must be", StringComparison.Ordinal));
        Assert.Contains(Failures([.. SalesDbOnTest, ($"{Drills}:DataFolder", " ")]), f => f.StartsWith($"{Drills}:DataFolder must be", StringComparison.Ordinal));
    }

    [Fact]
    public void Windows_or_a_target_without_databases_and_a_concurrency_out_of_range_are_refused()
    {
        Assert.Contains(Failures([.. ProdAndTest, ($"{Drills}:TargetInstance", "test")]), f => f.StartsWith($"{Drills}:Databases is empty", StringComparison.Ordinal));
        Assert.Contains("BackupXe:MaxConcurrentDrills must be from 1 to 64; it is 0.", Failures([.. SalesDbOnTest, ("BackupXe:MaxConcurrentDrills", "0")]));
    }
}
