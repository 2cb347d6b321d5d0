using System.Text.Json;
using BackupXe.Cli.Rendering;
using BackupXe.Core.Tuning;
using Xunit;

namespace BackupXe.Tests.Tuning;

/// <summary>
/// A large database whose capture holds only percent lines (no throughput event), one per 1% of the database: a
/// short window may hold none. Such a run is "not measured", never 0 MB/s: the window grows for the next run, or the
/// rate comes from percent_complete or a finished trial's msdb row; no infinity or NaN reaches the report.
/// </summary>
public class TuneSparseProgressTests
{
    private const long GB = 1024 * ServerModel.MB;

    private static (ServerModel Model, IReadOnlyList<string> Directories) Sparse()
    {
        var (model, directories) = Shapes.Get("s08-buffer-starved");
        return (model with { DatabaseBytes = 100 * GB, ProgressStepShare = 0.01 }, directories);
    }

    private static TuneRequest Request(IReadOnlyList<string> directories, int windowSeconds) =>
        TunerTests.Request(directories) with { Window = TimeSpan.FromSeconds(windowSeconds) };

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public async Task An_eight_second_window_on_100_GB_grows_until_it_measures_and_the_tune_recommends_within_ten_percent_of_the_best(int seed)
    {
        var (model, directories) = Sparse();
        var server = new SimulatedServer(model, directories, seed) { DeletesFiles = false };
        var request = Request(directories, 8);

        var result = await new Tuner(server, request).RunAsync(CancellationToken.None);

        var runs = result.Trials.SelectMany(t => t.Runs).ToList();
        Assert.Contains(runs, r => r.Source == RateSource.NotMeasured);
        Assert.All(runs.Where(r => !r.Measured), r => Assert.Equal(0, r.RateMBps));
        Assert.True(result.WindowSeconds > 8, $"{result.WindowSeconds}");
        Assert.True(server.WallSeconds <= request.TimeBudget.TotalSeconds);
        var best = model.BestAchievable(directories, request.MemoryBudgetBytes, Tuner.MaxFiles, blockSizeConfirmable: false);
        if (result.Best is { } recommended)
        {
            var reached = model.Rate(recommended.Requested, directories, toNul: false).Rate;
            Assert.True(reached >= 0.9 * best, $"{reached:0} of {best:0} MB/s with {recommended.Requested.Describe()}; {result.StopReason}");
        }
        else
        {
            Assert.StartsWith("Cannot tell", result.StopReason, StringComparison.Ordinal);
        }

        AssertJsonCarriesTheKeptFiles(result);
    }

    [Fact]
    public async Task With_percent_complete_sampled_the_eight_second_window_is_measured_without_growing()
    {
        var (model, directories) = Sparse();
        var server = new SimulatedServer(model, directories) { DeletesFiles = false, SamplesPercentComplete = true };
        var request = Request(directories, 8);

        var result = await new Tuner(server, request).RunAsync(CancellationToken.None);

        var runs = result.Trials.SelectMany(t => t.Runs).ToList();
        Assert.Contains(runs, r => r.Source == RateSource.PercentComplete);
        Assert.DoesNotContain(runs, r => r.Source == RateSource.NotMeasured);
        Assert.Equal(8, result.WindowSeconds);
        var best = model.BestAchievable(directories, request.MemoryBudgetBytes, Tuner.MaxFiles, blockSizeConfirmable: false);
        var reached = model.Rate(result.Best!.Requested, directories, toNul: false).Rate;
        Assert.True(reached >= 0.9 * best, $"{reached:0} of {best:0} MB/s with {result.Best.Requested.Describe()}; {result.StopReason}");
        AssertJsonCarriesTheKeptFiles(result);
    }

    [Fact]
    public async Task Progress_too_sparse_for_the_longest_window_the_budget_allows_stops_the_tune_saying_it_cannot_tell()
    {
        var (model, directories) = Sparse();
        var server = new SimulatedServer(model with { ProgressStepShare = 0.5 }, directories) { DeletesFiles = false };
        var request = TunerTests.Request(directories, minutes: 5) with { Window = TimeSpan.FromSeconds(8) };

        var result = await new Tuner(server, request).RunAsync(CancellationToken.None);

        Assert.Null(result.Best);
        Assert.Null(result.Gain);
        Assert.StartsWith("Cannot tell", result.StopReason, StringComparison.Ordinal);
        Assert.Contains("75.0 s", result.StopReason, StringComparison.Ordinal);
        Assert.Single(result.Trials);
        Assert.All(result.Trials, t => Assert.False(t.Measured));
        var text = TuneReportWriter.Result(result, "console");
        Assert.Contains("not measured", text, StringComparison.Ordinal);
        Assert.DoesNotContain("Recommended BACKUP statement", text, StringComparison.Ordinal);
        AssertJsonCarriesTheKeptFiles(result);
    }

    [Fact]
    public async Task A_target_too_slow_to_measure_stops_after_the_baseline_and_the_json_lists_its_kept_files()
    {
        // The reads to NUL move gigabytes a second and are measured; the baseline to a 5 MB/s target (15 MB/s of the
        // database, compressed) never crosses two 1 GB lines, even in the longest window.
        var (model, directories) = Sparse();
        var slow = model with
        {
            ReadMBps = 2000,
            DirectoryWriteMBps = new Dictionary<string, double> { [directories[0]] = 5 },
            CompressMBps = new Dictionary<string, double> { ["MS_XPRESS"] = 900 },
        };
        var server = new SimulatedServer(slow, directories) { DeletesFiles = false };
        var request = TunerTests.Request(directories, minutes: 5) with { Window = TimeSpan.FromSeconds(8) };

        var result = await new Tuner(server, request).RunAsync(CancellationToken.None);

        var why = result.StopReason + "\n" + string.Join("\n", result.Trials.Select(t => $"{t.Number} {t.Purpose} {string.Join(",", t.Runs.Select(r => r.WindowSeconds + "/" + r.Source))}"));
        Assert.True(result.ReadCeiling is not null, why);
        Assert.True(result.Baseline is { Measured: false }, why);
        Assert.Null(result.Best);
        Assert.StartsWith("Cannot tell", result.StopReason, StringComparison.Ordinal);
        Assert.NotEmpty(result.KeptFiles);
        Assert.All(result.KeptFiles, f => Assert.True(server.FileBytes[f.Path] <= f.BytesAtMost));
        AssertJsonCarriesTheKeptFiles(result);
    }

    [Fact]
    public async Task A_finished_trial_whose_progress_is_too_sparse_takes_its_rate_from_msdb()
    {
        // 2 GB at a few hundred MB/s finishes within a 60 s window; its two progress lines (at 50%) tell nothing.
        var (model, directories) = Shapes.Get("read-bound");
        var server = new SimulatedServer(model with { DatabaseBytes = 2 * GB, ProgressStepShare = 0.5 }, directories);

        var result = await new Tuner(server, TunerTests.Request(directories)).RunAsync(CancellationToken.None);

        Assert.Contains(result.Trials.SelectMany(t => t.Runs), r => r.Finished && r.Source == RateSource.MsdbHistory && r.RateMBps > 0);
        AssertJsonCarriesTheKeptFiles(result);
    }

    private static void AssertJsonCarriesTheKeptFiles(TuningResult result)
    {
        using var json = JsonDocument.Parse(TuneReportWriter.Result(result, "json"));
        var kept = json.RootElement.GetProperty("keptFiles");
        Assert.Equal(result.KeptFiles.Count, kept.GetArrayLength());
        Assert.All(result.KeptFiles, f => Assert.Contains(kept.EnumerateArray(), e => e.GetProperty("path").GetString() == f.Path));
        foreach (var trial in json.RootElement.GetProperty("trials").EnumerateArray())
        {
            var rate = trial.GetProperty("mbPerSecond");
            Assert.True(rate.ValueKind == JsonValueKind.Null || double.IsFinite(rate.GetDouble()));
            Assert.Equal(rate.ValueKind != JsonValueKind.Null, trial.GetProperty("measured").GetBoolean());
        }
    }
}
