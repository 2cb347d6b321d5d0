using BackupXe.Core.Tuning;
using Xunit;

namespace BackupXe.Tests.Tuning;

/// <summary>
/// Noise is not adopted as gain: a change is adopted only when its gain exceeds two standard deviations of the
/// difference, the recommendation is the cheapest set within the noise of the fastest, and an option the tune could
/// not confirm is never recommended.
/// </summary>
public class TuneNoiseTests
{
    private const long MB = ServerModel.MB;

    public static TheoryData<int> Seeds() => [.. Enumerable.Range(1, 10)];

    [Theory]
    [MemberData(nameof(Seeds))]
    public async Task On_a_device_bound_database_buffers_that_gain_nothing_are_never_recommended(int seed)
    {
        var model = Shapes.DeviceBound();
        var directories = Shapes.OneDirectory;
        var request = TunerTests.Request(directories);

        var result = await new Tuner(new SimulatedServer(model, directories, seed), request).RunAsync(CancellationToken.None);

        var recommended = result.Best!.Requested;
        var why = $"seed {seed}: {recommended.Describe()}; {result.StopReason}\n" + string.Join("\n", result.Trials.Select(t => $"{t.Number} {t.Purpose} {t.Requested.Describe()} {t.RateMBps:0} x{t.Runs.Count} {t.Judgement}"));
        Assert.True(recommended.BufferCount is null && recommended.MaxTransferSizeBytes is null, why);
        Assert.True(recommended.Files == 1, why);
        Assert.Contains(result.Trials, t => t.Purpose == TrialPurpose.MoreBufferMemory);
    }

    [Theory]
    [MemberData(nameof(Seeds))]
    public async Task On_the_buffer_starved_table_neither_a_second_file_nor_an_unconfirmed_blocksize_is_recommended(int seed)
    {
        var (model, directories) = Shapes.Get("buffer-count-table");

        var result = await new Tuner(new SimulatedServer(model, directories, seed), TunerTests.Request(directories)).RunAsync(CancellationToken.None);

        var recommended = result.Best!.Requested;
        Assert.True(recommended.Files == 1, recommended.Describe());
        Assert.Null(recommended.BlockSizeBytes);
        Assert.True(result.Best.Confirmed);
        Assert.All(result.Trials.Where(t => t.Purpose == TrialPurpose.BlockSize), t => Assert.Contains(t.Differences, d => d.StartsWith("BLOCKSIZE 65536 not confirmed", StringComparison.Ordinal)));
    }

    [Fact]
    public async Task Every_judgement_states_the_gain_and_the_noise_it_was_held_to()
    {
        var (model, directories) = Shapes.Get("s08-level-off");

        var result = await new Tuner(new SimulatedServer(model, directories, seed: 2), TunerTests.Request(directories)).RunAsync(CancellationToken.None);

        var judged = result.Trials.Where(t => t.Judgement is not null).ToList();
        Assert.NotEmpty(judged);
        Assert.All(judged, t => Assert.Matches(@"^(not )?adopted: ", t.Judgement!));
        Assert.Contains(judged, t => t.Judgement!.Contains("standard deviations of the difference", StringComparison.Ordinal));
    }
}
