using BackupXe.Core.Events;
using Xunit;

namespace BackupXe.Tests.Events;

public sealed class TraceEventListTests
{
    private static OtherEvent Event(int i) => new(new DateTime(2024, 6, 1).AddSeconds(i), 50 + i, $"event {i}");

    [Fact]
    public void Events_come_back_in_the_order_added_past_the_first_capacity()
    {
        // Given / When
        var list = new TraceEventList(2);
        for (var i = 0; i < 9; i++)
        {
            list.Add(Event(i));
        }

        // Then
        Assert.Equal(9, list.Count);
        Assert.Equal(Enumerable.Range(0, 9).Select(Event), Enumerable.Range(0, list.Count).Select(i => list[i]));
        Assert.Throws<ArgumentOutOfRangeException>(() => list[9]);
    }

    [Fact]
    public void A_cleared_list_is_empty_and_takes_new_events_from_the_start()
    {
        // Given
        var list = new TraceEventList(4);
        list.Add(Event(0));
        list.Add(Event(1));

        // When
        list.Clear();
        list.Add(Event(7));

        // Then
        Assert.Equal(1, list.Count);
        Assert.Equal(Event(7), list[0]);
        Assert.Throws<ArgumentOutOfRangeException>(() => list[1]);
    }
}
