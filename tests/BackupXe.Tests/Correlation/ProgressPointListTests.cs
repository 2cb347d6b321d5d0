using BackupXe.Core.Correlation;
using Xunit;

namespace BackupXe.Tests.Correlation;

/// <summary>A report's progress points held as values, read as records.</summary>
public sealed class ProgressPointListTests
{
    [Fact]
    public void Reads_as_the_records_of_its_values_by_index_and_in_order()
    {
        // Given three points
        var start = new DateTime(2024, 6, 1, 0, 0, 0, DateTimeKind.Utc);
        ProgressPoint[] values = [new(start, 0), new(start.AddSeconds(1), 1_048_576), new(start.AddSeconds(2), 2_097_152)];

        // When
        var list = new ProgressPointList(values);

        // Then
        Assert.Equal(3, list.Count);
        Assert.Equal(values.Select(v => (v.At, v.Bytes)), list.Select(p => (p.At, p.Bytes)));
        Assert.Equal((values[1].At, values[1].Bytes), (list[1].At, list[1].Bytes));
        Assert.Throws<IndexOutOfRangeException>(() => list[3]);
    }
}
