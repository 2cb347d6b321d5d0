using BackupXe.Core.Analysis;
using BackupXe.Core.Events;
using BackupXe.Tests.Sources.Support;
using Xunit;

namespace BackupXe.Tests.Analysis;

/// <summary>Files read together, merged in the analysis loop's synchronous reader: the order of the asynchronous merge.</summary>
public sealed class SynchronousMergeReaderTests
{
    private static readonly DateTime Start = new(2024, 6, 1, 0, 0, 0, DateTimeKind.Unspecified);

    private static ProgressTraceEvent At(long ticks, string message) => new(Start.AddTicks(ticks), 51, null, null, message);

    private static SynchronousEventReader Reader(IEnumerable<TraceEvent> events, SourceStatus? status = null) =>
        new(events.GetEnumerator(), status ?? new SourceStatus());

    private static List<(string Message, int Input)> ReadAll(SynchronousMergeReader merge)
    {
        var read = new List<(string, int)>();
        while (merge.MoveNext())
        {
            read.Add((((ProgressTraceEvent)merge.Current).Message, merge.SourceIndex));
        }

        return read;
    }

    private static IEnumerable<TraceEvent> Failing(IEnumerable<TraceEvent> events)
    {
        foreach (var traceEvent in events)
        {
            yield return traceEvent;
        }

        throw new InvalidOperationException("boom");
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    [InlineData(5)]
    public async Task Gives_the_events_and_inputs_of_the_asynchronous_merge_whatever_the_ties_and_runs(int seed)
    {
        // Given 1 to 5 inputs of up to 60 events each, in time order, with many equal timestamps within and across them,
        // some inputs one after the other in time and some overlapping
        var random = new Random(seed);
        var inputs = Enumerable.Range(0, random.Next(1, 6)).Select(input =>
        {
            long ticks = random.Next(0, 2) * 1000;
            return Enumerable.Range(0, random.Next(0, 61))
                .Select(i => (TraceEvent)At(ticks += random.Next(0, 3) == 0 ? 0 : random.Next(1, 40), $"{input}.{i}"))
                .ToList();
        }).ToList();

        // When
        var merged = ReadAll(new SynchronousMergeReader([.. inputs.Select(events => Reader(events))]));
        var expected = new List<(string, int)>();
        await foreach (var (traceEvent, index) in new TimeOrderedMerge([.. inputs.Select((events, i) => new ListSource($"{i}", events))]).ReadEventsAsync(CancellationToken.None))
        {
            expected.Add((((ProgressTraceEvent)traceEvent).Message, index));
        }

        // Then
        Assert.Equal(inputs.Sum(events => events.Count), merged.Count);
        Assert.Equal(expected, merged);
    }

    [Fact]
    public void Files_that_follow_one_another_come_whole_in_turn()
    {
        // Given the members of a rollover set named one by one, the second given first
        var early = Enumerable.Range(0, 3).Select(i => (TraceEvent)At(i, $"early {i}")).ToList();
        var late = Enumerable.Range(0, 3).Select(i => (TraceEvent)At(100 + i, $"late {i}")).ToList();

        // When
        var merged = ReadAll(new SynchronousMergeReader([Reader(late), Reader(early)]));

        // Then
        Assert.Equal(
            [("early 0", 1), ("early 1", 1), ("early 2", 1), ("late 0", 0), ("late 1", 0), ("late 2", 0)],
            merged);
    }

    [Fact]
    public void An_input_that_throws_is_reported_after_its_events_and_the_others_go_on()
    {
        // Given
        var broken = new SourceStatus();
        var merge = new SynchronousMergeReader([Reader(Failing([At(0, "a")]), broken), Reader([At(1, "b"), At(2, "c")])]);

        // When
        var merged = ReadAll(merge);

        // Then
        Assert.Equal(["a", "b", "c"], merged.Select(m => m.Message));
        Assert.Equal("reading stopped: boom", Assert.Single(broken.Problems).Message);
        Assert.False(merge.MoveNext());
    }

    [Fact]
    public void No_inputs_give_no_events()
    {
        Assert.False(new SynchronousMergeReader([]).MoveNext());
    }
}
