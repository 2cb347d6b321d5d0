using System.CommandLine;
using BackupXe.Cli.Commands;
using Xunit;

namespace BackupXe.Tests.Cli.Commands;

/// <summary>The restore drill's command line into its settings: the request, the time --since counts back from, and the first rule broken.</summary>
public sealed class RestoreDrillOptionsTests
{
    private static readonly DateTime Now = new(2024, 5, 31, 12, 0, 0);

    private static RestoreDrillSettings Parse(params string[] args)
    {
        var options = new RestoreDrillOptions();
        var command = new Command("restore-drill");
        options.AddTo(command);
        return options.Settings(command.Parse(["--server", "test01", "--database", " Sales ", .. args]), Now);
    }

    [Fact]
    public void The_values_given_reach_the_request_and_since_counts_back_from_now()
    {
        var settings = Parse("--since", "12h", "--stopat", "2024-05-30 23:15", "--execute", "--checkdb", "--from-server", " prod01 ", "-f", "JSON");

        Assert.Null(settings.Problem);
        Assert.Equal(Now.AddHours(-12), settings.Since);
        Assert.Equal("Sales", settings.Request?.Database);
        Assert.Equal(new DateTime(2024, 5, 30, 23, 15, 0), settings.Request?.StopAt);
        Assert.True(settings.Request?.CheckDb);
        Assert.Equal("prod01", settings.FromServer);
        Assert.Equal("json", settings.Format);
        Assert.Null(settings.HistoryFile);
    }

    [Theory]
    [InlineData("--since|yesterday", "--since 'yesterday': expected a number of days or hours (30d, 12h) or a date (2024-05-01)")]
    [InlineData("--stopat|31/05/2024", "--stopat '31/05/2024': expected yyyy-mm-dd hh:mm[:ss]")]
    [InlineData("--keep", "--checkdb and --keep go with --execute, which runs the drill.")]
    [InlineData("--scratch-name| ", "--database and --scratch-name need a name of 1 to 128 characters.")]
    public void A_broken_rule_is_the_problem_said_and_no_request_is_made(string args, string problem)
    {
        var settings = Parse(args.Split('|'));

        Assert.Equal(problem, settings.Problem);
        Assert.Null(settings.Request);
    }
}
