using BackupXe.Core.Correlation;
using Xunit;

namespace BackupXe.Tests.Correlation;

public sealed class ProgressSeriesTests
{
    private static readonly DateTime Start = new(2024, 5, 1, 1, 0, 0, DateTimeKind.Utc);

    [Fact]
    public void Keeps_every_reading_while_there_is_room()
    {
        // Given
        var series = new ProgressSeries(capacity: 8);

        // When
        for (var i = 0; i < 7; i++)
        {
            series.Add(Start.AddSeconds(i), i * 100);
        }

        // Then
        Assert.Equal(Enumerable.Range(0, 7).Select(i => (long)i * 100), series.Points.Select(p => p.Bytes));
    }

    [Theory]
    [InlineData(1_000)]
    [InlineData(100_000)]
    public void A_million_readings_cost_no_more_points_than_the_capacity_and_keep_both_ends(int readings)
    {
        // Given
        var series = new ProgressSeries(capacity: 120);

        // When: one reading per second, 1 MB each
        for (var i = 0; i < readings; i++)
        {
            series.Add(Start.AddSeconds(i), (i + 1) * 1_048_576L);
        }

        // Then: bounded, first and last kept, in order, and the rate between kept points is exact (1 MB/s)
        var points = series.Points;
        Assert.InRange(points.Count, 60, 121);
        Assert.Equal(Start, points[0].At);
        Assert.Equal(Start.AddSeconds(readings - 1), points[^1].At);
        Assert.All(points.Zip(points.Skip(1)), pair =>
        {
            Assert.True(pair.Second.At > pair.First.At);
            Assert.Equal(1_048_576d, (pair.Second.Bytes - pair.First.Bytes) / (pair.Second.At - pair.First.At).TotalSeconds, 6);
        });
    }

    [Fact]
    public void Kept_points_stay_evenly_spread_over_the_readings()
    {
        // Given
        var series = new ProgressSeries(capacity: 8);

        // When: 20 readings; after two thinnings every fourth is kept
        for (var i = 0; i < 20; i++)
        {
            series.Add(Start.AddSeconds(i), i);
        }

        // Then
        Assert.Equal([0L, 4, 8, 12, 16, 19], series.Points.Select(p => p.Bytes));
    }
}
