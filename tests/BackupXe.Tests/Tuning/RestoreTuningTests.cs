using BackupXe.Core.Tuning;
using Xunit;

namespace BackupXe.Tests.Tuning;

/// <summary>
/// The restore trials against the simulated server: the published SAN restore's optimum reached, repeats under noise,
/// what limits each, the memory budget.
/// </summary>
public class RestoreTuningTests
{
    private const long MB = ServerModel.MB;

    private static (SimulatedRestoreHost Host, TuneRequest Request) Setup(Func<SimulatedServer, SimulatedRestoreHost> host, long budgetMb = 1024, string runId = "t1")
    {
        var (model, directories) = Shapes.Get("read-bound");
        var request = TunerTests.Request(directories, budgetMb, minutes: 120) with
        {
            RunId = runId,
            Restore = new RestoreTuneRequest([@"Z:\Sales.bak"], @"X:\Scratch"),
        };
        return (host(new SimulatedServer(model, directories)), request);
    }

    [Fact]
    public void The_san_restore_model_reproduces_the_published_times_of_each_step()
    {
        var san = RestoreModel.San;
        var defaults = san.Rate(null, null).Rate;

        // 171 s at the defaults, 81 s with MAXTRANSFERSIZE 4 MB, 62 s with BUFFERCOUNT 100 too, no better with more.
        Assert.InRange(defaults, 57 * 0.99, 57 * 1.01);
        Assert.InRange(san.Rate(null, RestoreTuneRequest.LargeTransferSize).Rate / defaults, 171.0 / 81 * 0.99, 171.0 / 81 * 1.01);
        Assert.InRange(san.Rate(100, RestoreTuneRequest.LargeTransferSize).Rate / defaults, 171.0 / 62 * 0.99, 171.0 / 62 * 1.01);
        Assert.Equal(san.Rate(100, RestoreTuneRequest.LargeTransferSize).Rate, san.Rate(256, RestoreTuneRequest.LargeTransferSize).Rate);
        Assert.Equal("buffers", san.Rate(null, RestoreTuneRequest.LargeTransferSize).Limit);
    }

    [Theory]
    [InlineData("s1", 1024)]
    [InlineData("s2", 1024)]
    [InlineData("s3", 1024)]
    [InlineData("s4", 1024)]
    [InlineData("s5", 1024)]
    [InlineData("s6", 256)]
    public async Task Reaches_within_five_percent_of_the_best_rate_of_the_published_san_restore_in_a_bounded_number_of_trials(string runId, long budgetMb)
    {
        var san = RestoreModel.San;
        var (host, request) = Setup(server => new SimulatedRestoreHost(server) { Model = san }, budgetMb, runId);
        var best = san.BestAchievable(request.MemoryBudgetBytes, host.MemoryLimitBytes);

        var result = await new Tuner(host, request).RunAsync(CancellationToken.None);

        // Judged on the model's noise-free rate for the options the tuner recommends, not on a lucky measurement.
        var restore = result.Restore!;
        var chosen = Assert.IsType<RestoreTrial>(restore.Best);
        var reached = san.Rate(chosen.BufferCount, chosen.MaxTransferSizeBytes).Rate;
        var trials = string.Join("\n", restore.Trials.Select(t => $"{t.Number} {t.Options} {t.RateMBps:0} x{t.Runs.Count} {t.Limit?.Side}"));
        Assert.True(reached >= 0.95 * best, $"{runId}: {reached:0} MB/s of {best:0} with {chosen.Options}; stopped: {restore.StopReason}\n{trials}");
        Assert.InRange(restore.Trials.Count, 3, RestoreTuneRequest.MaxTrials);
        Assert.InRange(restore.Trials.Sum(t => t.Runs.Count), 4, 12);
        Assert.False(restore.Refused, restore.StopReason);

        // The published shape: the gain came from 4 MB transfers and more buffers, 171 s over 62 s, measured with noise.
        Assert.Equal(RestoreTuneRequest.LargeTransferSize, chosen.MaxTransferSizeBytes);
        Assert.True(chosen.BufferCount > RestoreModel.DefaultBufferCount, chosen.Options);
        Assert.InRange(restore.Gain!.Value + 1, 171.0 / 62 * 0.9, 171.0 / 62 * 1.1);
    }

    [Theory]
    [InlineData("t1")]
    [InlineData("t2")]
    [InlineData("t3")]
    public async Task A_restore_gain_smaller_than_the_noise_is_repeated_in_a_drawn_order_until_it_is_told_apart(string runId)
    {
        // 4 MB transfers lift the default's 150 MB/s to a ceiling of 152: a 1% gain under the model's few percent of noise.
        var (host, request) = Setup(server => new SimulatedRestoreHost(server) { Model = new RestoreModel { CeilingMBps = 152 } }, runId: runId);

        var result = await new Tuner(host, request).RunAsync(CancellationToken.None);

        var restore = Assert.IsType<RestoreTuningResult>(result.Restore);
        Assert.InRange(restore.Trials[0].Runs.Count, 2, Tuner.MaxRunsOfBest);
        Assert.True(restore.Trials[1].Runs.Count > 1, string.Join(", ", restore.Trials.Select(t => $"{t.Number}: {t.Runs.Count} runs")));
        Assert.True(restore.Trials[0].Runs.Count + restore.Trials[1].Runs.Count > 3);
        Assert.All(restore.Trials, t => Assert.InRange(t.Runs.Count, 1, Tuner.MaxRunsOfBest));

        // Each run restored into a scratch database of its own, every one dropped.
        var names = host.Restores.Select(r => r.Database).ToList();
        Assert.Equal(names.Count, names.Distinct(StringComparer.Ordinal).Count());
        Assert.Equal(names, host.Dropped);
        Assert.Contains(names, n => n.EndsWith("_r02_2", StringComparison.Ordinal));
    }

    [Fact]
    public async Task The_order_of_repeated_restore_runs_is_drawn_not_fixed()
    {
        var orders = new HashSet<string>(StringComparer.Ordinal);
        foreach (var runId in new[] { "a1", "b2", "c3", "d4", "e5", "f6" })
        {
            var (host, request) = Setup(server => new SimulatedRestoreHost(server) { Model = new RestoreModel { CeilingMBps = 152 } }, runId: runId);
            await new Tuner(host, request).RunAsync(CancellationToken.None);
            orders.Add(string.Join(" ", host.Restores.Select(r => r.Database[(r.Database.IndexOf("_r", StringComparison.Ordinal) + 2)..][..2])));
        }

        Assert.True(orders.Count > 1, string.Join(" | ", orders));
    }

    [Theory]
    [InlineData("backup-read", RestoreSide.BackupRead)]
    [InlineData("data-file-write", RestoreSide.DataFileWrite)]
    public async Task Each_restore_trial_says_which_side_limited_it_from_its_waits(string side, RestoreSide expected)
    {
        var (host, request) = Setup(server => new SimulatedRestoreHost(server) { Model = new RestoreModel { CeilingMBps = 400, CeilingSide = side } });

        var result = await new Tuner(host, request).RunAsync(CancellationToken.None);

        var trials = result.Restore!.Trials;
        Assert.Equal(RestoreSide.Buffers, trials[0].Limit!.Side);
        Assert.Equal(expected, trials[^1].Limit!.Side);
        Assert.Contains(expected == RestoreSide.BackupRead ? "BACKUPIO" : "BACKUPBUFFER", trials[^1].Limit!.Evidence, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_restore_trial_whose_buffer_count_the_server_did_not_apply_is_marked_and_never_the_best()
    {
        var (host, request) = Setup(server => new SimulatedRestoreHost(server) { IgnoredOption = "BUFFERCOUNT" });

        var result = await new Tuner(host, request).RunAsync(CancellationToken.None);

        var restore = result.Restore!;
        var counted = Assert.Single(restore.Trials, t => t.BufferCount is not null);
        Assert.True(counted.OptionsDiffer);
        Assert.Contains("BUFFERCOUNT asked 32, the server used 6", counted.Differences);
        Assert.NotSame(counted, restore.Best);
        Assert.All(restore.Trials.Where(t => t.BufferCount is null), t => Assert.False(t.OptionsDiffer));
    }

    [Fact]
    public async Task Zeroing_that_takes_most_of_the_restore_is_the_limit()
    {
        var (host, request) = Setup(server => new SimulatedRestoreHost(server) { ZeroingSeconds = 90 });

        var result = await new Tuner(host, request).RunAsync(CancellationToken.None);

        Assert.All(result.Restore!.Trials, t => Assert.Equal(RestoreSide.FileZeroing, t.Limit!.Side));
    }

    [Fact]
    public async Task Redo_that_takes_most_of_the_restore_is_the_limit()
    {
        var (host, request) = Setup(server => new SimulatedRestoreHost(server) { ZeroingSeconds = 0.5, RedoSeconds = 120 });

        var result = await new Tuner(host, request).RunAsync(CancellationToken.None);

        var limit = result.Restore!.Trials[0].Limit!;
        Assert.Equal(RestoreSide.Redo, limit.Side);
        Assert.Contains("Redo and recovery took", limit.Evidence, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Without_waits_the_restore_limit_cannot_be_told_and_says_why()
    {
        var (host, request) = Setup(server => new SimulatedRestoreHost(server) { CapturesWaits = false });

        var result = await new Tuner(host, request).RunAsync(CancellationToken.None);

        var limit = result.Restore!.Trials[0].Limit!;
        Assert.Equal(RestoreSide.CannotTell, limit.Side);
        Assert.Contains("No waits were captured", limit.Evidence, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Cancelling_during_a_restore_trial_stops_it_then_drops_its_scratch_database_and_runs_no_other()
    {
        using var cancel = new CancellationTokenSource();
        var (host, request) = Setup(server => new SimulatedRestoreHost(server));
        host.OnRestoreStarted = number =>
        {
            if (number == 3)
            {
                cancel.Cancel();
            }
        };

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => new Tuner(host, request).RunAsync(cancel.Token));

        Assert.Equal(3, host.Restores.Count);
        var third = host.Restores[2].Database;
        Assert.Equal(["restore " + third, "stop", "drop " + third], host.Calls.TakeLast(3));
        Assert.Equal(host.Restores.Select(r => r.Database), host.Dropped);
    }

    [Theory]
    [InlineData(1.0)]
    [InlineData(2.5)]
    public async Task Restore_trials_stay_within_the_memory_budget_as_the_server_reports_it(double ratio)
    {
        var (host, request) = Setup(server => new SimulatedRestoreHost(server) { BufferRatio = ratio }, budgetMb: 300);

        var result = await new Tuner(host, request).RunAsync(CancellationToken.None);

        Assert.True(host.MaxBufferBytes <= 300 * MB, $"{host.MaxBufferBytes / MB} MB for a budget of 300 MB");
        Assert.False(result.Restore!.Refused, result.Restore.StopReason);
        Assert.All(result.Restore.Trials, t => Assert.True(t.BufferMemoryBytes <= 300 * MB));
    }
}
