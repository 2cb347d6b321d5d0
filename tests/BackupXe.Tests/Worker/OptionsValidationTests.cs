using BackupXe.Worker.Configuration;
using Microsoft.Extensions.Configuration;
using Xunit;

namespace BackupXe.Tests.Worker;

public sealed class OptionsValidationTests
{
    private static IReadOnlyList<string> Failures(params (string Key, string? Value)[] settings)
    {
        var configuration = new ConfigurationBuilder()
            .AddInMemoryCollection(settings.Select(setting => new KeyValuePair<string, string?>(setting.Key, setting.Value)))
            .Build();
        var options = new BackupXeOptions();
        configuration.GetSection(BackupXeOptions.SectionName).Bind(options);
        var result = new BackupXeOptionsValidator().Validate(null, options);
        return result.Failures?.ToList() ?? [];
    }

    private static readonly (string, string?)[] TwoReplays =
    [
        ("BackupXe:Instances:0:Name", "prod"),
        ("BackupXe:Instances:0:ReplayPath", "samples/a.xml"),
        ("BackupXe:Instances:1:Name", "test"),
        ("BackupXe:Instances:1:ReplayPath", "samples/b.log"),
    ];

    [Fact]
    public void Replayed_instances_with_defaults_are_valid()
    {
        Assert.Empty(Failures(TwoReplays));
    }

    [Fact]
    public void A_missing_name_is_reported_with_its_index()
    {
        var failures = Failures([.. TwoReplays, ("BackupXe:Instances:2:ReplayPath", "c.xml")]);

        Assert.Equal(["BackupXe:Instances:2:Name is required."], failures);
    }

    [Fact]
    public void Duplicate_names_point_at_the_first_use()
    {
        var failures = Failures([.. TwoReplays, ("BackupXe:Instances:2:Name", "PROD"), ("BackupXe:Instances:2:ReplayPath", "c.xml")]);

        Assert.Equal(
            ["BackupXe:Instances:2:Name 'PROD' is already used by BackupXe:Instances:0:Name; instance names must be unique."],
            failures);
    }

    [Fact]
    public void An_instance_without_any_source_says_which_setting_to_add()
    {
        var failures = Failures(("BackupXe:Instances:0:Name", "prod"));

        Assert.Equal(
            ["BackupXe:Instances:0 has no source: set BackupXe:Instances:0:Server (or ConnectionString) for a live instance, or BackupXe:Instances:0:ReplayPath."],
            failures);
    }

    [Theory]
    [InlineData("ConnectionString", "Server=db1;Database=master;Integrated Security=true")]
    [InlineData("Server", "db1")]
    public void A_live_connection_is_accepted_on_the_file_transport(string setting, string value)
    {
        Assert.Empty(Failures(("BackupXe:Instances:0:Name", "prod"), ($"BackupXe:Instances:0:{setting}", value)));
    }

    [Fact]
    public void A_malformed_connection_string_is_refused_without_quoting_it()
    {
        var failure = Assert.Single(Failures(("BackupXe:Instances:0:Name", "prod"), ("BackupXe:Instances:0:ConnectionString", "Server=db1;Password=hunter2;Bogus Keyword=1")));

        Assert.StartsWith("BackupXe:Instances:0:ConnectionString is not a valid connection string", failure);
        Assert.DoesNotContain("hunter2", failure);
    }

    [Fact]
    public void A_live_connection_and_a_replay_together_are_ambiguous()
    {
        var failure = Assert.Single(Failures([.. TwoReplays, ("BackupXe:Instances:1:Server", "db2")]));

        Assert.Equal("BackupXe:Instances:1 has both a live connection (ConnectionString/Server) and BackupXe:Instances:1:ReplayPath; set only one.", failure);
    }

    [Fact]
    public void The_sql_server_history_needs_a_connection_string()
    {
        var failure = Assert.Single(Failures([.. TwoReplays, ("BackupXe:History:Provider", "sqlserver")]));

        Assert.Equal("BackupXe:History:ConnectionString is required when BackupXe:History:Provider is 'sqlserver'.", failure);
        Assert.Empty(Failures([.. TwoReplays, ("BackupXe:History:Provider", "sqlserver"), ("BackupXe:History:ConnectionString", "Server=repo;Database=BackupXe;Integrated Security=true")]));
    }

    [Theory]
    [InlineData("2")]
    [InlineData("3601")]
    public void A_lease_outside_its_range_is_refused_with_the_range(string seconds)
    {
        var failure = Assert.Single(Failures([.. TwoReplays, ("BackupXe:History:Provider", "sqlserver"),
            ("BackupXe:History:ConnectionString", "Server=repo;Database=BackupXe;Integrated Security=true"), ("BackupXe:History:LeaseSeconds", seconds)]));

        Assert.Equal($"BackupXe:History:LeaseSeconds must be from 3 to 3600; it is {seconds}.", failure);
        Assert.Empty(Failures([.. TwoReplays, ("BackupXe:History:Provider", "sqlserver"),
            ("BackupXe:History:ConnectionString", "Server=repo;Database=BackupXe;Integrated Security=true"), ("BackupXe:History:LeaseSeconds", "3")]));
    }

    [Fact]
    public void An_unknown_history_provider_lists_the_known_ones()
    {
        var failure = Assert.Single(Failures([.. TwoReplays, ("BackupXe:History:Provider", "postgres")]));

        Assert.Equal("BackupXe:History:Provider must be 'sqlite' or 'sqlserver'; it is 'postgres'.", failure);
    }

    [Theory]
    [InlineData("BackupXe:Regression:WindowSize", "0", "BackupXe:Regression:WindowSize must be from 1 to 10000; it is 0.")]
    [InlineData("BackupXe:Regression:MinimumSamples", "12", "BackupXe:Regression:MinimumSamples (12) cannot exceed BackupXe:Regression:WindowSize (10): no regression could ever be reported.")]
    [InlineData("BackupXe:Regression:MinimumSamples", "0", "BackupXe:Regression:MinimumSamples must be at least 1; it is 0.")]
    [InlineData("BackupXe:Regression:ThresholdRatio", "1.5", "BackupXe:Regression:ThresholdRatio must be between 0 and 1 exclusive (0.7 = warn below 70% of the median); it is 1.5.")]
    [InlineData("BackupXe:MaxConcurrentReads", "0", "BackupXe:MaxConcurrentReads must be from 1 to 1024; it is 0.")]
    [InlineData("BackupXe:MaxConcurrentReads", "5000", "BackupXe:MaxConcurrentReads must be from 1 to 1024; it is 5000.")]
    [InlineData("BackupXe:RetryDelaySeconds", "0", "BackupXe:RetryDelaySeconds must be greater than 0 and at most 86400 (a day); it is 0.")]
    [InlineData("BackupXe:Instances:1:ReplaySpeed", "-2", "BackupXe:Instances:1:ReplaySpeed must be 0 (as fast as possible) or a multiple of real time from 0.001 up; it is -2.")]
    [InlineData("BackupXe:Instances:0:SessionName", " ", "BackupXe:Instances:0:SessionName must not be empty (default 'BackupXe').")]
    [InlineData("BackupXe:Metrics:OtlpEndpoint", "localhost:4317", "BackupXe:Metrics:OtlpEndpoint must be an absolute http or https address such as http://localhost:4317; it is 'localhost:4317'.")]
    [InlineData("BackupXe:History:Path", "", "BackupXe:History:Path is required when BackupXe:History:Provider is 'sqlite'.")]
    public void A_bad_setting_is_named_with_its_value(string key, string value, string expected)
    {
        Assert.Equal([expected], Failures([.. TwoReplays, (key, value)]));
    }

    [Fact]
    public void No_instances_at_all_is_an_error()
    {
        Assert.Equal(["BackupXe:Instances is empty: configure at least one instance to monitor."], Failures());
    }

    [Fact]
    public void Every_problem_is_reported_at_once()
    {
        var failures = Failures(
            ("BackupXe:Instances:0:ReplayPath", "a.xml"),
            ("BackupXe:Regression:WindowSize", "0"),
            ("BackupXe:History:Provider", "sqlserver"));

        Assert.Equal(3, failures.Count);
    }

    private static readonly (string, string?)[] LiveProd =
    [
        ("BackupXe:Instances:0:Name", "prod"),
        ("BackupXe:Instances:0:Server", "PROD01"),
    ];

    [Fact]
    public void Capture_windows_need_the_daemons_opt_in_to_changing_the_session()
    {
        (string, string?)[] windows = [("BackupXe:Instances:0:CaptureWindows:Windows:0:Start", "0 22 * * *"), ("BackupXe:Instances:0:CaptureWindows:Windows:0:DurationMinutes", "180")];

        Assert.Empty(Failures([.. LiveProd, .. windows, ("BackupXe:Instances:0:EnsureSession", "true")]));
        Assert.Equal(
            ["BackupXe:Instances:0:CaptureWindows starts and stops the session on the server, a change: allow it with BackupXe:Instances:0:EnsureSession true (the daemon's opt-in to changing the session)."],
            Failures([.. LiveProd, .. windows]));
    }

    [Fact]
    public void A_periodic_history_import_on_a_live_instance_is_valid()
    {
        Assert.Empty(Failures([.. LiveProd, ("BackupXe:Instances:0:HistoryImport:IntervalMinutes", "60"), ("BackupXe:Instances:0:HistoryImport:LookbackDays", "7")]));
    }

    [Fact]
    public void Bad_history_import_settings_are_reported_by_their_keys()
    {
        var failures = Failures([.. LiveProd, ("BackupXe:Instances:0:HistoryImport:IntervalMinutes", "-1"), ("BackupXe:Instances:0:HistoryImport:LookbackDays", "0")]);

        Assert.Equal(
            [
                "BackupXe:Instances:0:HistoryImport:IntervalMinutes must be 0 (off) or greater, at most 10080 (a week); it is -1.",
                "BackupXe:Instances:0:HistoryImport:LookbackDays must be greater than 0 and at most 3650; it is 0.",
            ],
            failures);
    }

    [Fact]
    public void A_history_import_needs_a_live_instance_and_is_kept_by_either_history_provider()
    {
        var replay = Failures([.. TwoReplays, ("BackupXe:Instances:1:HistoryImport:IntervalMinutes", "60")]);
        var central = Failures([.. LiveProd, ("BackupXe:Instances:0:HistoryImport:IntervalMinutes", "60"),
            ("BackupXe:History:Provider", "sqlserver"), ("BackupXe:History:ConnectionString", "Server=REPO01;Integrated Security=true")]);

        Assert.Equal(
            ["BackupXe:Instances:1:HistoryImport:IntervalMinutes is set but BackupXe:Instances:1 has no live connection (Server or ConnectionString): history is imported from a server."],
            replay);
        // The central store keeps imports since its migration 6 (docs/fleet.md)
        Assert.Empty(central);
    }
}
