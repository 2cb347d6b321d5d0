using System.Text;
using System.Text.Json;
using BackupXe.Core.Correlation;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using FsCheck;
using FsCheck.Fluent;
using BackupXe.Tests.Rendering.Support;
using Xunit;

namespace BackupXe.Tests.Rendering;

/// <summary>
/// The progress points written as one block (<see cref="ProgressPointsJson"/>) and the dates in it
/// (<see cref="IsoTime"/>) against <see cref="Utf8JsonWriter"/> writing the same tokens one by one.
/// </summary>
public sealed class ProgressPointsJsonTests
{
    private static readonly Gen<long> AnyTick = GeneratedReports.Int64.Select(bits => (long)((ulong)bits % (ulong)(DateTime.MaxValue.Ticks + 1)));

    private static Config Seeded(int cases) => Config.QuickThrowOnFailure.WithMaxTest(cases).WithReplay(20261122UL, 0x9E3779B97F4A7C15UL);

    [Fact]
    public void Any_utc_or_unspecified_time_is_written_as_the_json_writer_writes_it()
    {
        // Given any tick of the calendar, and ticks that end on whole seconds and on every fraction length
        var ticks = Gen.OneOf(
            AnyTick,
            AnyTick.Select(t => t / TimeSpan.TicksPerSecond * TimeSpan.TicksPerSecond),
            AnyTick.Select(t => t / 100_000 * 100_000));
        var times =
            from tick in ticks
            from kind in Gen.Elements(DateTimeKind.Utc, DateTimeKind.Unspecified)
            select new DateTime(tick, kind);

        // Then
        Prop.ForAll(times.ToArbitrary(), time => Assert.Equal(WriterDate(time), IsoDate(time))).Check(Seeded(5000));
    }

    [Fact]
    public void A_time_written_after_another_is_written_as_the_json_writer_writes_it_whatever_they_share()
    {
        // Given a time and one after it in the same second, the same day, or anywhere, of either kind
        var pairs =
            from first in AnyTick
            from step in Gen.OneOf(
                Gen.Choose(0, 9_999_999).Select(t => (long)t),
                Gen.Choose(0, 86_399).Select(s => s * TimeSpan.TicksPerSecond),
                AnyTick.Select(t => t - first))
            from kinds in Gen.Elements((DateTimeKind.Utc, DateTimeKind.Utc), (DateTimeKind.Unspecified, DateTimeKind.Utc), (DateTimeKind.Unspecified, DateTimeKind.Unspecified))
            where first + step >= 0 && first + step <= DateTime.MaxValue.Ticks
            select (Previous: new DateTime(first, kinds.Item1), Value: new DateTime(first + step, kinds.Item2));

        // Then
        Prop.ForAll(pairs.ToArbitrary(), pair =>
        {
            var previousText = Encoding.ASCII.GetBytes(WriterDate(pair.Previous));
            var output = new byte[IsoTime.MaxLength];
            var length = IsoTime.Format(pair.Value, output, pair.Previous, previousText);
            Assert.Equal(WriterDate(pair.Value), Encoding.ASCII.GetString(output, 0, length));
        }).Check(Seeded(5000));
    }

    [Theory]
    [InlineData(0L, DateTimeKind.Unspecified)]
    [InlineData(1L, DateTimeKind.Utc)]
    [InlineData(638528256004200000L, DateTimeKind.Unspecified)]
    [InlineData(638528256000000000L, DateTimeKind.Utc)]
    [InlineData(3155378975999999999L, DateTimeKind.Utc)]
    public void The_edges_of_the_calendar_and_of_the_fraction_are_written_as_the_json_writer_writes_them(long ticks, DateTimeKind kind)
    {
        var time = new DateTime(ticks, kind);
        Assert.Equal(WriterDate(time), IsoDate(time));
    }

    [Fact]
    public void A_local_time_is_refused_because_its_offset_is_the_machines()
        => Assert.Throws<ArgumentException>(() => IsoTime.Format(new DateTime(2024, 6, 1, 0, 0, 0, DateTimeKind.Local), new byte[IsoTime.MaxLength], default, []));

    [Fact]
    public void Points_at_any_depth_indented_or_not_as_records_or_as_values_are_the_bytes_of_the_token_by_token_path()
    {
        // Given lists of points, empty ones included, placed at several depths of a document
        var point =
            from ticks in AnyTick
            from kind in Gen.Elements(DateTimeKind.Utc, DateTimeKind.Unspecified)
            from bytes in GeneratedReports.Int64
            select new ProgressPointReport(new DateTime(ticks, kind), bytes);
        var cases =
            from points in point.ListOf().Select(p => p.ToList())
            from depth in Gen.Choose(0, 6)
            from indented in Gen.Elements(true, false)
            select (points, depth, indented);

        // Then
        Prop.ForAll(cases.ToArbitrary(), c =>
        {
            var (points, depth, indented) = (c.points, c.depth, c.indented);
            var expected = Document(points, depth, indented, block: false);
            Assert.Equal(expected, Document(points, depth, indented, block: true));

            // The analysis's own reports hold the points as values
            var values = new ProgressPointList([.. points.Select(p => new ProgressPoint(p.At, p.Bytes))]);
            Assert.Equal(expected, Document(values, depth, indented, block: true));
        }).Check(Seeded(500));
    }

    [Fact]
    public void A_list_with_a_local_time_or_a_missing_point_is_left_to_the_token_by_token_path()
    {
        var utc = new ProgressPointReport(new DateTime(2024, 6, 1, 0, 0, 0, DateTimeKind.Utc), 1);
        foreach (var points in new[] { [utc, new ProgressPointReport(DateTime.Now, 2)], new ProgressPointReport?[] { utc, null } })
        {
            using var stream = new MemoryStream();
            using var writer = new Utf8JsonWriter(stream);
            writer.WriteStartObject();
            writer.WritePropertyName("points");
            Assert.False(ProgressPointsJson.TryWrite(writer, points));
            writer.WriteNullValue();
            writer.WriteEndObject();
        }

        using (var stream = new MemoryStream())
        using (var writer = new Utf8JsonWriter(stream))
        {
            writer.WriteStartObject();
            writer.WritePropertyName("points");
            Assert.False(ProgressPointsJson.TryWrite(writer, new ProgressPointList([new(DateTime.Now, 2)])));
            writer.WriteNullValue();
            writer.WriteEndObject();
        }

        using var none = new Utf8JsonWriter(new MemoryStream());
        Assert.False(ProgressPointsJson.TryWrite(none, null));
    }

    private static string IsoDate(DateTime time)
    {
        var bytes = new byte[IsoTime.MaxLength];
        return Encoding.ASCII.GetString(bytes, 0, IsoTime.Format(time, bytes, default, []));
    }

    private static string WriterDate(DateTime time)
    {
        using var stream = new MemoryStream();
        using (var writer = new Utf8JsonWriter(stream))
        {
            writer.WriteStringValue(time);
        }

        return Encoding.ASCII.GetString(stream.ToArray()).Trim('"');
    }

    // {"level1": {"level2": ... {"points": [...], "after": 1} ... }} with the points written one way or the other.
    private static string Document(IReadOnlyList<ProgressPointReport> points, int depth, bool indented, bool block)
    {
        using var stream = new MemoryStream();
        using (var writer = new Utf8JsonWriter(stream, ReportJsonFields.WriterOptions(indented)))
        {
            writer.WriteStartObject();
            for (var level = 1; level <= depth; level++)
            {
                writer.WriteStartObject($"level{level}");
            }

            writer.WriteString("before", "x");
            writer.WritePropertyName("points");
            if (!block || !ProgressPointsJson.TryWrite(writer, points))
            {
                Assert.False(block);
                writer.WriteStartArray();
                foreach (var point in points)
                {
                    writer.WriteStartObject();
                    writer.WriteString("at", point.At);
                    writer.WriteNumber("bytes", point.Bytes);
                    writer.WriteEndObject();
                }

                writer.WriteEndArray();
            }

            writer.WriteNumber("after", 1);
            for (var level = 0; level <= depth; level++)
            {
                writer.WriteEndObject();
            }
        }

        return Encoding.UTF8.GetString(stream.ToArray());
    }
}
