using System.Globalization;
using BackupXe.Core.Baselines;
using BackupXe.Core.History;
using BackupXe.Core.Parsing;
using BackupXe.Tests.History;
using BackupXe.Tests.Support;
using BackupXe.Core.Reporting;
using Xunit;
using static BackupXe.Tests.History.HistoryOperations;

namespace BackupXe.Tests.Baselines;

public sealed class SeriesStatisticsTests
{
    private static readonly DateTime Day1 = new(2024, 5, 1, 1, 0, 0);

    private static SeriesFigures Single(IEnumerable<HistoryOperation> records)
        => Assert.Single(SeriesStatistics.Compute(records.Select(r => new InstanceOperation("PROD01", r))));

    [Fact]
    public void Gives_median_percentiles_and_the_start_of_a_slowdown()
    {
        // Given: 10 nights at 100 s for 20 GB (204.8 MB/s), then 3 nights at 250 s (81.9 MB/s)
        var runs = Enumerable.Range(0, 13)
            .Select(day => Msdb("Sales", Day1.AddDays(day), day < 10 ? 100 : 250, 20 * GiB))
            .ToList();

        // When
        var series = Single(runs);

        // Then
        Assert.Equal(13, series.Count);
        Assert.Equal(13, series.Ranked);
        Assert.Equal(204.8, series.MedianMBps!.Value, 1);
        Assert.Equal(81.92, series.MinMBps!.Value, 2);
        var regression = Assert.IsType<SeriesSlowdown>(series.Regression);
        Assert.Equal(Day1.AddDays(10), regression.Since);
        Assert.Equal(3, regression.Runs);
        Assert.Equal(10, regression.BaselineRuns);
        Assert.Equal(204.8, regression.BaselineMedianMBps, 1);
    }

    [Fact]
    public void The_series_slowdown_is_the_regression_rules_verdict_on_its_latest_run()
    {
        // Given: 10 nights at 100 s for 20 GB, then one at 160 s (0.625x the median: slower for the rule's 0.7 ratio,
        // which a rule of its own at half the median would not call)
        var runs = Enumerable.Range(0, 11).Select(day => Msdb("Sales", Day1.AddDays(day), day < 10 ? 100 : 160, 20 * GiB)).ToList();
        var current = ComparableRun.Of(runs[^1]);
        var rule = BaselineComparer.Compare(current, "PROD01", runs.Select(ComparableRun.Of).ToList(), new BaselineComparisonSettings());

        // When
        var regression = Assert.IsType<SeriesSlowdown>(Single(runs).Regression);

        // Then: what the rule says, figure for figure
        Assert.Equal(BaselineVerdict.Slower, rule.Verdict);
        Assert.Equal(rule.Since, regression.Since);
        Assert.Equal(rule.SlowRuns, regression.Runs);
        Assert.Equal(rule.Factor!.Value, regression.Factor, 6);
        Assert.Equal(1.6, regression.Factor, 6);
        Assert.Equal(rule.UsualRuns, regression.BaselineRuns);
        Assert.Equal(rule.MedianMBps!.Value, regression.BaselineMedianMBps, 6);
    }

    [Fact]
    public void Does_not_call_a_slowdown_without_five_runs_before_it_or_when_only_some_runs_are_slow()
    {
        var fewBefore = Enumerable.Range(0, 6).Select(day => Msdb("Sales", Day1.AddDays(day), day < 4 ? 100 : 250, 20 * GiB));
        var mixed = Enumerable.Range(0, 12).Select(day => Msdb("Sales", Day1.AddDays(day), day is 8 or 10 ? 250 : 100, 20 * GiB));

        Assert.Null(Single(fewBefore).Regression);
        Assert.Null(Single(mixed).Regression);
    }

    [Fact]
    public void Leaves_short_and_tiny_backups_out_of_the_ranking_and_says_why()
    {
        // Given: S07's real backup (519,838,720 bytes in 6 whole seconds) among 10-second 2 GB ones
        var runs = new List<HistoryOperation> { Msdb("WideWorldImporters", new DateTime(2022, 8, 4, 17, 10, 51), 6, 519_838_720) };
        runs.AddRange(Enumerable.Range(1, 3).Select(day => Msdb("WideWorldImporters", new DateTime(2022, 8, 4, 17, 10, 51).AddDays(day), 20, 2 * GiB)));
        runs.Add(Msdb("WideWorldImporters", new DateTime(2022, 8, 9, 1, 0, 0), 5, 2 * GiB));

        var series = Single(runs);

        Assert.Equal(3, series.Ranked);
        Assert.Contains(series.Notes, n => n.Contains("durations to 1 s, from their start and end timestamps", StringComparison.Ordinal));
        Assert.Contains(series.Notes, n => n.StartsWith("2 runs took under 10 times", StringComparison.Ordinal));
        Assert.Equal("too-short", SeriesStatistics.Unranked(runs[0]));
        Assert.Equal("overhead", SeriesStatistics.Unranked(Msdb("x", Day1, 60, 100 << 20)));
    }

    [Fact]
    public void Counts_snapshot_backups_apart_and_leaves_them_out_of_every_speed()
    {
        // Given: ten nights at 100 s for 20 GB (204.8 MB/s), and a VSS snapshot full whose 20 GB took 20 s of freeze:
        // 1024 MB/s that no copy moved
        var runs = Enumerable.Range(0, 10).Select(day => Msdb("Sales", Day1.AddDays(day), 100, 20 * GiB)).ToList();
        runs.Add(Msdb("Sales", Day1.AddDays(10), 20, 20 * GiB) with { Snapshot = true });

        // When
        var series = Single(runs);

        // Then
        Assert.Equal((11, 10, 1), (series.Count, series.Ranked, series.Snapshots));
        Assert.Equal(204.8, series.MaxMBps!.Value, 1);
        Assert.Equal(204.8, series.MedianMBps!.Value, 1);
        Assert.Equal("snapshot", SeriesStatistics.Unranked(runs[^1]));
        Assert.Contains("1 snapshot backups, counted apart: the storage copied their data while the database's writes were frozen, "
            + "so their size over their time is no transfer speed and they are not ranked", series.Notes);
    }

    [Fact]
    public void Says_which_settings_went_with_the_fast_runs()
    {
        // Given: the same database backed up uncompressed to one file, then compressed to four stripes
        var slow = Enumerable.Range(0, 4).Select(day => Msdb("Sales", Day1.AddDays(day), 200, 20 * GiB, compressed: false));
        var fast = Enumerable.Range(4, 4).Select(day => Msdb("Sales", Day1.AddDays(day), 80, 20 * GiB) with
        {
            Devices = Enumerable.Range(1, 4).Select(i => new BackupDevice(DeviceKind.Disk, $@"X:\b\s_{i}.bak")).ToList(),
        });

        var speeds = Single(slow.Concat(fast)).SettingsVsSpeed;

        Assert.Equal(2, speeds.Count);
        Assert.Equal("COMPRESSION, 4 stripes", speeds[0].Settings);
        Assert.Equal(256, speeds[0].MedianMBps, 1);
        Assert.Equal("NO_COMPRESSION, 1 stripe", speeds[1].Settings);
    }

    [Fact]
    public void Keeps_failed_runs_in_the_count_but_not_in_the_speed()
    {
        var runs = Enumerable.Range(0, 5).Select(day => Msdb("Sales", Day1.AddDays(day), 100, 20 * GiB)).ToList();
        runs.Add(CommandLog("Sales", Day1.AddDays(6), 3) with { Status = OperationStatus.Failed, ErrorMessage = "disk full" });

        var series = Single(runs);

        Assert.Equal(6, series.Count);
        Assert.Equal(1, series.Failed);
        Assert.Equal(5, series.Ranked);
    }

    /// <summary>
    /// S08's timed COPY_ONLY compressed full backups of one database, one per grid point (BlockSize, BufferCount,
    /// MaxTransferSize, FileCount, Duration in s), each written as the BACKUP command that runs it and read back
    /// through the command parser; the database's size is in the file name.
    /// </summary>
    private static List<HistoryOperation> S08Runs(string file, double databaseGb)
        => File.ReadLines(RealWorld.Path(file))
            .Select(line => line.Split(','))
            .Select((cells, i) =>
            {
                var files = string.Join(", ", Enumerable.Range(1, int.Parse(cells[3], CultureInfo.InvariantCulture)).Select(f => $"DISK = N'X:\\b\\S08_{i}_{f}.bak'"));
                var command = BackupCommandParser.Parse(
                    $"BACKUP DATABASE [S08] TO {files} WITH COPY_ONLY, COMPRESSION, BLOCKSIZE = {cells[0]}, BUFFERCOUNT = {cells[1]}, MAXTRANSFERSIZE = {cells[2]}")!;
                var start = Day1.AddHours(i);
                return new HistoryOperation
                {
                    Kind = command.Kind, Scope = command.Scope, Database = command.Database, Start = start,
                    End = start.AddSeconds(int.Parse(cells[4], CultureInfo.InvariantCulture)), TimeResolutionSeconds = 1,
                    Status = OperationStatus.Completed, BytesRead = (long)(databaseGb * GiB), Devices = command.Devices,
                    Options = HistoryOptions.From(command), Sources = [HistorySource.OlaOutput],
                };
            })
            .ToList();

    [Fact]
    public void Ranks_each_option_of_the_real_S08_grid_the_way_its_durations_do()
    {
        // Given: S08's ~90 runs of the 50 GB database
        var runs = S08Runs("S08_feasel_perftest_SO2013_50GB.csv", 50);

        // When
        var byBufferCount = Single(runs).OptionSpeeds.Single(o => o.Option == "BUFFERCOUNT").Values;

        // Then: the source's own reading: more buffers, faster (median 103 s at 512 and 1024, 138 s at 7)
        Assert.Contains(byBufferCount[0].Settings, new[] { "512", "1024" });
        Assert.Equal("7", byBufferCount[^1].Settings);
        Assert.Equal(50 * 1024 / 138.0, byBufferCount[^1].MedianMBps, 1);
    }

    [Fact]
    public void S08_SO2013_is_buffer_starved_at_small_buffer_memory()
    {
        // Given / When: the 50 GB database by BUFFERCOUNT x MAXTRANSFERSIZE
        var bands = Single(S08Runs("S08_feasel_perftest_SO2013_50GB.csv", 50)).OptionSpeeds.Single(o => o.Option == "buffer memory").Values;

        // Then: 2 GB to 4 GB fastest (its runs took 92 s and 96 s: 0.53 GB/s); the bands under 8 MB the slowest
        // (medians 135-145 s, 0.35-0.37 GB/s)
        Assert.Equal("2 GB to 4 GB", bands[0].Settings);
        Assert.Equal(((50 * 1024 / 92.0) + (50 * 1024 / 96.0)) / 2, bands[0].MedianMBps, 1);
        Assert.All(bands.TakeLast(5), b => Assert.True(b.MedianMBps < 50 * 1024 / 134.0, b.Settings));
        Assert.All(bands.TakeLast(5), b => Assert.Contains(b.Settings, new[] { "256 KB to 512 KB", "512 KB to 1 MB", "1 MB to 2 MB", "2 MB to 4 MB", "4 MB to 8 MB" }));
    }

    [Theory]
    [InlineData("S08_feasel_perftest_BAC_57.89GB.csv", 57.89, "64 MB to 128 MB")]
    [InlineData("S08_feasel_perftest_BAC_89.24GB.csv", 89.24, "256 MB to 512 MB")]
    public void S08_BAC_databases_level_off_near_half_a_GB_per_second_once_buffer_memory_is_large(string file, double gb, string from)
    {
        // Given / When
        var bands = Single(S08Runs(file, gb)).OptionSpeeds.Single(o => o.Option == "buffer memory").Values;

        // Then: from that band up every median is within 2% of the best, about 0.5 GB/s of database size: more buffer
        // memory buys nothing there, so storage or compression CPU limits these backups
        var best = bands[0].MedianMBps;
        var floor = 1L << (63 - System.Numerics.BitOperations.LeadingZeroCount((ulong)Bytes(from)));
        var large = bands.Where(b => Bytes(b.Settings) >= floor).ToList();
        Assert.True(large.Count >= 4);
        Assert.All(large, b => Assert.True(b.MedianMBps >= best * 0.98, $"{b.Settings}: {b.MedianMBps:0.0} MB/s against {best:0.0}"));
        Assert.InRange(best / 1024, 0.49, 0.52);
        Assert.True(bands[^1].MedianMBps < best * 0.9);
    }

    // "64 MB to 128 MB" -> 64 MB in bytes.
    private static long Bytes(string band)
    {
        var parts = band.Split(' ');
        var value = long.Parse(parts[0], CultureInfo.InvariantCulture);
        return parts[1] switch { "KB" => value << 10, "MB" => value << 20, "GB" => value << 30, _ => value };
    }
}
