using System.Text.Json;
using BackupXe.Cli.Commands;
using BackupXe.SqlServer.Client;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Cli.Commands;

/// <summary>
/// The watch runner on settings built by hand, writing to a console of its own: what the verb's parser hands it is
/// all it reads, and a usage problem is said before any server or history is touched.
/// </summary>
public sealed class WatchRunTests
{
    private static readonly string Sample = Path.Combine(Repository.Root, "samples", "buffer-starved-backup.xml");

    /// <summary>A connection that fails the test when read: the runner must not reach for a server it was not given.</summary>
    private static readonly ServerConnection NoServer = new(null, false, _ => throw new InvalidOperationException("the connection was read"));

    private static WatchSettings Replay(string format = "console", IReadOnlySet<string>? databases = null) => new()
    {
        Replay = Sample,
        Speed = 0,
        Format = format,
        Databases = databases ?? new HashSet<string>(),
        NoColor = true,
        SessionName = "backupxe",
        Transport = "file",
        StallAfter = TimeSpan.FromMinutes(5),
        Connection = NoServer,
    };

    private static async Task<CliRun> RunAsync(WatchSettings settings)
    {
        var output = new StringWriter();
        var error = new StringWriter();
        var exit = await new WatchRun(CliRun.Captured(output, error)).RunAsync(settings, CancellationToken.None);
        return new CliRun(exit, output.ToString(), error.ToString());
    }

    [Fact]
    public async Task Without_a_replay_or_a_server_it_says_what_to_give_and_reads_nothing()
    {
        var run = await RunAsync(Replay() with { Replay = null });

        Assert.Equal(1, run.ExitCode);
        Assert.Equal("backupxe: watch needs --server S (a live server) or --replay FILE (a capture).", run.Error.TrimEnd());
        Assert.Empty(run.Output);
    }

    [Fact]
    public async Task Html_without_a_file_to_write_is_refused_before_the_replay_is_read()
    {
        var run = await RunAsync(Replay("html") with { Replay = Path.Combine(Repository.Root, "samples", "no-such-capture.xml") });

        Assert.Equal(1, run.ExitCode);
        Assert.StartsWith("backupxe: --format html writes a file while the console shows progress", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_replay_shows_each_operations_verdict_on_the_injected_console()
    {
        var run = await RunAsync(Replay());

        Assert.True(run.ExitCode == 0, run.Error);
        Assert.Contains("BACKUP DATABASE [SalesDB]", run.Output, StringComparison.Ordinal);
        Assert.Contains("Verdict: buffer-starved", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_replay_as_json_writes_one_report_object_per_line()
    {
        var run = await RunAsync(Replay("json"));

        Assert.True(run.ExitCode == 0, run.Error);
        var lines = run.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.NotEmpty(lines);
        Assert.All(lines, line => Assert.Equal(JsonValueKind.Object, JsonDocument.Parse(line).RootElement.ValueKind));
    }

    [Fact]
    public async Task The_database_filter_of_the_settings_leaves_other_databases_out()
    {
        var run = await RunAsync(Replay(databases: new HashSet<string>(StringComparer.OrdinalIgnoreCase) { "NotSalesDB" }));

        Assert.DoesNotContain("[SalesDB]", run.Output, StringComparison.Ordinal);
    }
}
