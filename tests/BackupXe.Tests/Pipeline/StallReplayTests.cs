using BackupXe.Tests.Cli;
using BackupXe.Tests.Support;
using BackupXe.Tests.Worker;
using Xunit;

namespace BackupXe.Tests.Pipeline;

/// <summary>
/// The bundled samples replayed with a seven-minute gap: once in the backup's copy (after its 40 percent line), once in
/// the restore's log zeroing (whose eighteen minutes become seven). The limit is the default five minutes. A paced
/// replay runs on a fake clock (<see cref="WatchAsync"/>).
/// </summary>
public sealed class StallReplayTests : IDisposable
{
    private static readonly TimeSpan Gap = TimeSpan.FromMinutes(7);

    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    private string CopyGap() => GappedCapture.XeXml(CliRun.Sample("buffer-starved-backup.xml"), "40 percent", Gap, _directory.Path);

    private string ZeroingGap() => GappedCapture.Errorlog(CliRun.Sample("log-zeroing-restore.log"), "Waiting for log zero", Gap, _directory.Path);

    private static int Count(string text, string what) => text.Split(what).Length - 1;

    /// <summary>
    /// watch run on a fake clock, moved from one timer to the next once the replay waits for its next event and the
    /// analysis for its next quiet tick (two timers): the replay's pace and the ticks take no real time.
    /// </summary>
    private static Task<CliRun> WatchAsync(params string[] args)
    {
        var clock = new FakeClock();
        return ClockDriver.UntilDoneAsync(clock, CliRun.RunAsync(clock, ["watch", .. args]), () => clock.PendingTimers >= 2, TimeSpan.FromHours(1));
    }

    [Theory]
    [InlineData("0")]
    [InlineData("100")]
    public async Task A_seven_minute_gap_in_the_copy_is_named_as_one_stall(string speed)
    {
        // When replayed at once (the stall is seen when bytes move again) or paced (seen while it lasts)
        var run = await WatchAsync("--replay", CopyGap(), "--speed", speed, "--no-color");

        // Then one live line names it, with the phase and what to look at, and the diagnosis keeps it
        Assert.Equal(0, run.ExitCode);
        Assert.Equal(1, Count(run.Output, "  stalled: no bytes moved for "));
        Assert.Contains("in copy-data (", run.Output, StringComparison.Ordinal);
        Assert.Contains("look at the current wait: read it: SELECT wait_type, wait_time, last_wait_type, percent_complete FROM sys.dm_exec_requests WHERE session_id = 61", run.Output, StringComparison.Ordinal);
        Assert.Equal(0, Count(run.Output, "waiting: no bytes moved"));
        Assert.Contains("Stalled", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task The_same_gap_in_log_zeroing_is_expected_waiting_not_a_stall()
    {
        // When
        var run = await WatchAsync("--replay", ZeroingGap(), "--speed", "500", "--no-color");

        // Then
        Assert.Equal(0, run.ExitCode);
        Assert.Equal(1, Count(run.Output, "waiting: no bytes moved for "));
        Assert.Contains("in wait-log-zero", run.Output, StringComparison.Ordinal);
        Assert.Contains("expected waiting: the log file is being zeroed", run.Output, StringComparison.Ordinal);
        Assert.DoesNotContain("stalled", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_gap_shorter_than_the_limit_is_not_named()
    {
        // When the limit is raised above the gap
        var run = await WatchAsync("--replay", CopyGap(), "--speed", "0", "--stall-after", "480", "--no-color");

        // Then
        Assert.Equal(0, run.ExitCode);
        Assert.DoesNotContain("stalled", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Watch_json_carries_the_stall_in_the_operations_quiet_periods()
    {
        // When
        var run = await WatchAsync("--replay", CopyGap(), "--speed", "0", "--format", "json");

        // Then
        Assert.Equal(0, run.ExitCode);
        Assert.Contains("\"quietPeriods\":[{\"from\":\"2024-05-01T01:30:05", run.Output, StringComparison.Ordinal);
        Assert.Contains("\"phase\":\"copy-data\",\"kind\":\"stall\",\"ongoing\":false,\"seconds\":420", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Analyze_names_the_stall_and_the_expected_wait_in_markdown()
    {
        // When
        var run = await CliRun.RunAsync("analyze", CopyGap(), ZeroingGap(), "--format", "markdown");

        // Then
        Assert.Equal(0, run.ExitCode);
        Assert.Contains("- **Stalled**: no bytes moved for 7 min 00 s in copy-data (", run.Output, StringComparison.Ordinal);
        Assert.Contains("- **Waiting**: no bytes moved for 7 min 00 s in wait-log-zero (", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_stall_in_the_copy_weighs_in_the_verdict_and_the_same_gap_in_log_zeroing_does_not()
    {
        // When
        var copy = await CliRun.RunAsync("analyze", CopyGap(), "--format", "json");
        var zeroing = await CliRun.RunAsync("analyze", ZeroingGap(), "--format", "json");

        // Then: seven of the backup's minutes moved no bytes, which comes first in the evidence and lowers the confidence.
        Assert.Equal(0, copy.ExitCode);
        using var stalled = System.Text.Json.JsonDocument.Parse(copy.Output);
        var verdict = stalled.RootElement.GetProperty("operations")[0].GetProperty("verdict");
        Assert.StartsWith("Stalled: no bytes moved for 7 min 00 s in copy-data (", verdict.GetProperty("evidence")[0].GetString(), StringComparison.Ordinal);
        Assert.Contains("of the operation's", verdict.GetProperty("evidence")[0].GetString(), StringComparison.Ordinal);
        Assert.Equal("low", verdict.GetProperty("confidence").GetString());
        Assert.Equal(0, zeroing.ExitCode);
        using var waited = System.Text.Json.JsonDocument.Parse(zeroing.Output);
        Assert.All(waited.RootElement.GetProperty("operations")[0].GetProperty("verdict").GetProperty("evidence").EnumerateArray(),
            e => Assert.DoesNotContain("Stalled", e.GetString(), StringComparison.Ordinal));
    }
}
