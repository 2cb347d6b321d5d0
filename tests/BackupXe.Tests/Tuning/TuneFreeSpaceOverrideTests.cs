using BackupXe.Core.Tuning;
using Xunit;

namespace BackupXe.Tests.Tuning;

/// <summary>
/// The free-space refusal for a directory the server cannot report on (no database file on its volume, or Linux) is
/// overridden only by the DBA: a stated free space, used less what earlier trials kept there, or the risk accepted.
/// A free space the server does report is never overridden, and the result names every override.
/// </summary>
public class TuneFreeSpaceOverrideTests
{
    private const long MB = ServerModel.MB;

    private static (SimulatedServer Server, TuneRequest Request) Unknown(bool deletes = true)
    {
        var (model, directories) = Shapes.Get("striping");
        var server = new SimulatedServer(model, directories) { DeletesFiles = deletes };
        foreach (var directory in directories)
        {
            server.FreeBytes[directory] = null;
        }

        return (server, TunerTests.Request(directories));
    }

    [Fact]
    public async Task A_stated_free_space_lets_trials_write_where_the_server_cannot_tell_and_the_result_says_so()
    {
        var (server, request) = Unknown();
        request = request with { StatedFreeBytes = request.Directories.ToDictionary(d => d, _ => 10L * 1024 * 1024 * MB) };

        var result = await new Tuner(server, request).RunAsync(CancellationToken.None);

        Assert.False(result.Refused, result.StopReason);
        Assert.Contains(server.Statements, s => !s.ToNul);
        Assert.Equal(request.Directories.Count(d => server.Statements.Any(s => !s.ToNul && s.Devices.Any(p => p.StartsWith(d, StringComparison.Ordinal)))), result.FreeSpaceOverrides.Count);
        Assert.All(result.FreeSpaceOverrides, line => Assert.Contains("(--free-space-mb)", line, StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_stated_free_space_too_small_for_a_trial_still_refuses_it()
    {
        var (server, request) = Unknown();
        request = request with { StatedFreeBytes = new Dictionary<string, long> { [request.Directories[0]] = 100 * MB } };

        var result = await new Tuner(server, request).RunAsync(CancellationToken.None);

        Assert.True(result.Refused);
        Assert.Contains("as stated", result.StopReason, StringComparison.Ordinal);
        Assert.All(server.Statements, s => Assert.True(s.ToNul));
    }

    [Fact]
    public async Task Trial_files_kept_on_a_live_server_count_against_the_stated_free_space()
    {
        var (server, request) = Unknown(deletes: false);
        // Room for one trial of the whole database (plus 10%) and one MB more: the first trial's kept file uses the rest.
        var database = server.Model.DatabaseBytes;
        var stated = database + (database / 10) + MB;
        request = request with { Directories = [request.Directories[0]], StatedFreeBytes = new Dictionary<string, long> { [request.Directories[0]] = stated } };

        var result = await new Tuner(server, request).RunAsync(CancellationToken.None);

        Assert.True(result.Refused);
        Assert.Contains("as stated, less the trial files already kept there", result.StopReason, StringComparison.Ordinal);
        // The first media set takes the stated room; runs of the same shape overwrite it, a new one is refused.
        Assert.Single(result.KeptFiles);
        Assert.All(server.Statements.Where(s => !s.ToNul), s => Assert.Equal(result.KeptFiles[0].MediaName, s.MediaName));
    }

    [Fact]
    public async Task Accepting_the_risk_writes_unchecked_and_the_result_says_the_check_was_overridden()
    {
        var (server, request) = Unknown();
        request = request with { AcceptUnknownFreeSpace = true };

        var result = await new Tuner(server, request).RunAsync(CancellationToken.None);

        Assert.False(result.Refused, result.StopReason);
        Assert.Contains(server.Statements, s => !s.ToNul);
        Assert.NotEmpty(result.FreeSpaceOverrides);
        Assert.All(result.FreeSpaceOverrides, line => Assert.Contains("--accept-unknown-free-space", line, StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_shortage_the_server_reports_is_never_overridden()
    {
        var (model, directories) = Shapes.Get("striping");
        var server = new SimulatedServer(model, directories);
        server.FreeBytes[directories[0]] = 1024 * MB;
        var request = TunerTests.Request(directories) with
        {
            AcceptUnknownFreeSpace = true,
            StatedFreeBytes = new Dictionary<string, long> { [directories[0]] = 10L * 1024 * 1024 * MB },
        };

        var result = await new Tuner(server, request).RunAsync(CancellationToken.None);

        Assert.True(result.Refused);
        Assert.Empty(result.FreeSpaceOverrides);
        Assert.All(server.Statements, s => Assert.True(s.ToNul));
    }

    [Theory]
    [InlineData("X:\\bak=0", "from 1 to")]
    [InlineData("X:\\bak", "DIR=MB")]
    [InlineData("X:\\bak=12x", "DIR=MB")]
    [InlineData("Q:\\elsewhere=100", "not one of the --to directories")]
    public void A_malformed_or_foreign_stated_free_space_is_a_located_problem(string value, string expected)
    {
        var (stated, problems) = BackupXe.Cli.Commands.TuneOptions.StatedFreeSpace([value]);
        var request = TunerTests.Request(["X:\\bak"]) with { StatedFreeBytes = stated };

        var all = problems.Concat(request.Validate()).ToList();

        Assert.Contains(all, p => p.Contains(expected, StringComparison.Ordinal));
    }
}
