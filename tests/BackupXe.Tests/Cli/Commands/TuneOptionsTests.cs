using System.CommandLine;
using BackupXe.Cli.Commands;
using Xunit;

namespace BackupXe.Tests.Cli.Commands;

/// <summary>The tune's command line into its settings: the values the runner gets and the problems it says, in order.</summary>
public sealed class TuneOptionsTests
{
    private static TuneSettings Parse(params string[] args)
    {
        var options = new TuneOptions();
        var command = new Command("tune");
        options.AddTo(command);
        return options.Settings(command.Parse(["--server", "sql01", "--database", "Sales", "--to", "/t", .. args]));
    }

    [Fact]
    public void The_values_given_reach_the_request_and_the_settings()
    {
        var settings = Parse("--execute", "--free-space-mb", "/t=2048", "--max-trial-space", "2GB", "--history", "h.db", "--instance", "PROD", "-f", "JSON");

        Assert.Empty(settings.Problems);
        Assert.Equal("Sales", settings.Request.Database);
        Assert.Equal(2048L << 20, settings.Request.StatedFreeBytes["/t"]);
        Assert.Equal(2L << 30, settings.Request.MaxTrialSpaceBytes);
        Assert.True(settings.Execute);
        Assert.Equal("h.db", settings.HistoryFile);
        Assert.Equal("PROD", settings.Instance);
        Assert.Equal("json", settings.Format);
        Assert.Null(settings.Central);
        Assert.Equal("sql01", settings.Connection.Server);
    }

    [Fact]
    public void Restore_options_without_restore_are_the_one_problem_said()
    {
        var settings = Parse("--scratch-dir", "/s", "--free-space-mb", "nonsense", "--history-server", "central");

        Assert.Equal(["--restore-from and --scratch-dir go with --restore, which runs the restore trials."], settings.Problems);
    }

    [Fact]
    public void A_central_server_without_its_database_is_said_before_the_request_problems()
    {
        var settings = Parse("--history-server", "central", "--free-space-mb", "nonsense");

        Assert.Equal(["--history-server and --history-database go together, each with a name: the central repository's server and database."], settings.Problems);
    }

    [Fact]
    public void Malformed_space_values_are_each_a_problem_in_the_order_given()
    {
        var settings = Parse("--free-space-mb", "nonsense", "--max-trial-space", "3XB");

        Assert.Equal(2, settings.Problems.Count);
        Assert.StartsWith("--free-space-mb must be DIR=MB", settings.Problems[0], StringComparison.Ordinal);
        Assert.StartsWith("--max-trial-space must be a whole number", settings.Problems[1], StringComparison.Ordinal);
    }
}
