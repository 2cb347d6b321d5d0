using BackupXe.Core.Correlation;
using BackupXe.Core.Events;
using BackupXe.Core.Reporting;
using Xunit;

namespace BackupXe.Tests.Correlation;

public sealed class WaitAccumulatorTests
{
    private static readonly DateTime At = new(2024, 5, 1, 1, 30, 0, DateTimeKind.Utc);

    [Fact]
    public void Interleaved_wait_types_are_totalled_each_under_its_own_type_whatever_the_order_and_the_strings()
    {
        // Given: three types taking turns as a .xel gives them (one string per type), then the same names as other
        // strings and in another case, as an XE XML or ERRORLOG reader may give them
        string[] sequence = ["BACKUPBUFFER", "BACKUPIO", "BACKUPBUFFER", "BACKUPBUFFER", "ASYNC_IO_COMPLETION", "BACKUPIO", "BACKUPBUFFER", "ASYNC_IO_COMPLETION"];
        var accumulator = new WaitAccumulator();
        var durations = 0L;
        foreach (var type in sequence.Concat(sequence.Select(t => t.ToLowerInvariant())))
        {
            durations++;
            accumulator.Add(new WaitEvent(At, 61, type, durations, durations % 3), bySession: durations % 2 == 0);
        }

        // When
        var reports = accumulator.ToReports();

        // Then: what a dictionary alone would give, summed per type without regard to case
        var expected = sequence.Concat(sequence)
            .Select((type, i) => (Type: type, Duration: i + 1L))
            .GroupBy(w => w.Type, StringComparer.OrdinalIgnoreCase)
            .Select(g => new WaitReport(g.Key, g.Count(), g.Sum(w => w.Duration), g.Max(w => w.Duration), g.Sum(w => w.Duration % 3)))
            .OrderByDescending(w => w.TotalMs)
            .ToList();
        Assert.Equal(expected, reports);
        Assert.Equal(8, accumulator.BySession);
        Assert.Equal(8, accumulator.ByTimeOverlap);
    }
}
