using BackupXe.Core.Analysis;
using BackupXe.Core.Events;
using Xunit;

namespace BackupXe.Tests.Analysis;

/// <summary>The analysis loop's reader of one synchronous input, event by event or a run of events at a time.</summary>
public sealed class SynchronousEventReaderTests
{
    private static readonly DateTime Start = new(2024, 6, 1, 0, 0, 0, DateTimeKind.Unspecified);

    [Fact]
    public void Runs_are_read_as_their_events_in_order_and_empty_runs_give_nothing()
    {
        // Given runs of 3, 0, 1 and 0 events
        var events = Enumerable.Range(0, 4).Select(Event).ToList();
        var reader = new SynchronousEventReader(Runs([events[0], events[1], events[2]], [], [events[3]], []).GetEnumerator(), new SourceStatus());

        // When
        var read = new List<TraceEvent>();
        while (reader.MoveNext())
        {
            read.Add(reader.Current);
        }

        // Then: the same objects, in order, and the end stays the end
        Assert.Equal(events, read);
        Assert.False(reader.MoveNext());
    }

    [Fact]
    public void A_source_that_throws_between_runs_is_reported_after_the_events_before_it()
    {
        // Given a run of two events, then a failure
        var status = new SourceStatus();
        var reader = new SynchronousEventReader(Failing([Event(0), Event(1)]).GetEnumerator(), status);

        // When
        var read = 0;
        while (reader.MoveNext())
        {
            read++;
        }

        // Then: both events, then the reading stopped, said once
        Assert.Equal(2, read);
        var problem = Assert.Single(status.Problems);
        Assert.Contains("disk gone", problem.Message, StringComparison.Ordinal);
    }

    private static TraceEvent Event(int n) => new OtherEvent(Start.AddSeconds(n), n, "event");

    private static IEnumerable<TraceEventList> Runs(params TraceEvent[][] runs)
    {
        foreach (var run in runs)
        {
            var list = new TraceEventList(run.Length);
            foreach (var traceEvent in run)
            {
                list.Add(traceEvent);
            }

            yield return list;
        }
    }

    private static IEnumerable<TraceEventList> Failing(TraceEvent[] first)
    {
        foreach (var run in Runs(first))
        {
            yield return run;
        }

        throw new IOException("disk gone");
    }
}
