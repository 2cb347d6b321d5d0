using BackupXe.Core.Events;
using BackupXe.Core.Analysis;
using BackupXe.Tests.Sources.Support;
using Xunit;

namespace BackupXe.Tests.Analysis;

public sealed class TimeOrderedMergeTests
{
    private static readonly DateTime Start = new(2014, 9, 10, 18, 10, 48);

    private static ProgressTraceEvent At(int seconds, string message, DateTimeKind kind = DateTimeKind.Unspecified) =>
        new(DateTime.SpecifyKind(Start.AddSeconds(seconds), kind), 51, null, null, message);

    private static async Task<List<(string Message, int Source)>> MergeAsync(TimeOrderedMerge merge)
    {
        var merged = new List<(string, int)>();
        await foreach (var (traceEvent, index) in merge.ReadEventsAsync(CancellationToken.None))
        {
            merged.Add((((ProgressTraceEvent)traceEvent).Message, index));
        }

        return merged;
    }

    public sealed class ReadEventsAsync
    {
        [Fact]
        public async Task Interleaves_sources_in_timestamp_order()
        {
            // Given an errorlog (local, Unspecified) and an XE export (Utc) whose clocks read alike
            var errorlog = new ListSource("ERRORLOG", [At(0, "a"), At(2, "c"), At(5, "f")]);
            var xe = new ListSource("xe.xml", [At(1, "b", DateTimeKind.Utc), At(3, "d", DateTimeKind.Utc), At(4, "e", DateTimeKind.Utc)]);
            var merge = new TimeOrderedMerge([errorlog, xe]);

            // When
            var merged = await MergeAsync(merge);

            // Then
            Assert.Equal([("a", 0), ("b", 1), ("c", 0), ("d", 1), ("e", 1), ("f", 0)], merged);
        }

        [Fact]
        public async Task Equal_timestamps_keep_source_order_and_each_source_its_own_order()
        {
            // Given three events at the same instant in each of two sources
            var first = new ListSource("1", [At(1, "1a"), At(1, "1b")]);
            var second = new ListSource("2", [At(0, "2a"), At(1, "2b"), At(1, "2c")]);
            var merge = new TimeOrderedMerge([first, second]);

            // When
            var merged = await MergeAsync(merge);

            // Then
            Assert.Equal(["2a", "1a", "1b", "2b", "2c"], merged.Select(m => m.Message));
        }

        [Fact]
        public async Task Gives_each_source_its_own_status()
        {
            // Given a good source and a missing file
            using var nowhere = TempInput.Nowhere();
            var good = new ListSource("good", [At(0, "a"), At(1, "b")]);
            var merge = new TimeOrderedMerge([good, BackupXe.Sources.InputSources.Open(nowhere.Path)]);

            // When
            var merged = await MergeAsync(merge);

            // Then
            Assert.Equal(2, merged.Count);
            Assert.Equal(2, merge.Statuses[0].Events);
            Assert.Empty(merge.Statuses[0].Problems);
            Assert.True(merge.Statuses[1].Unusable);
            Assert.Equal("file not found", Assert.Single(merge.Statuses[1].Problems).Message);
        }

        [Fact]
        public async Task A_source_that_throws_is_reported_and_the_others_go_on()
        {
            // Given
            var broken = new ListSource("broken", [At(0, "a")], new InvalidOperationException("boom"));
            var good = new ListSource("good", [At(1, "b"), At(2, "c")]);
            var merge = new TimeOrderedMerge([broken, good]);

            // When
            var merged = await MergeAsync(merge);

            // Then
            Assert.Equal(["a", "b", "c"], merged.Select(m => m.Message));
            Assert.Equal("reading stopped: boom", Assert.Single(merge.Statuses[0].Problems).Message);
        }

        [Fact]
        public async Task Stopping_early_closes_every_source()
        {
            // Given
            var first = new ListSource("1", [At(0, "a"), At(2, "c")]);
            var second = new ListSource("2", [At(1, "b"), At(3, "d")]);
            var merge = new TimeOrderedMerge([first, second]);

            // When the consumer stops after one event
            await foreach (var _ in merge.ReadEventsAsync(CancellationToken.None))
            {
                break;
            }

            // Then
            Assert.True(first.Disposed);
            Assert.True(second.Disposed);
        }

        [Fact]
        public async Task Merges_the_real_errorlog_with_xe_xml_by_ticks()
        {
            // Given the 2014 fixture and an XE event stamped between its first two distinct times
            using var xml = TempInput.WithText(
                XeXmlEvents.Progress("2014-09-10T18:10:49.000Z", "xe"), Encodings.Utf8WithoutBom, "events.xml");
            var merge = new TimeOrderedMerge(
                [BackupXe.Sources.InputSources.Open(Fixture.Tf3014Sql2014), BackupXe.Sources.InputSources.Open(xml.Path)]);

            // When
            var merged = await MergeAsync(merge);

            // Then the XE event follows the four 18:10:48.95 lines and precedes 18:10:49.04
            Assert.Equal(69, merged.Count);
            Assert.Equal(("xe", 1), merged[4]);
        }
    }
}
