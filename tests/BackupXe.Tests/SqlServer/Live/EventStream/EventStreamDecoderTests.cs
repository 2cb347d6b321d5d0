using BackupXe.Core.Events;
using BackupXe.Sources.Xel;
using BackupXe.SqlServer;
using BackupXe.SqlServer.Live.EventStream;
using BackupXe.Tests.Sources.Xel;
using BackupXe.Tests.Support;
using Xunit;
using BackupXe.Testing.Xel;

namespace BackupXe.Tests.SqlServer.Live.EventStream;

/// <summary>
/// How the rows of <c>sys.fn_MSxe_read_event_stream</c> are taken: each decoded by its own buffer header, a header row
/// starting a new catalogue, the type column only cross-checked. Rows are BUILT with the test-only .xel writer.
/// </summary>
public class EventStreamDecoderTests
{
    private static readonly XelStreamRows Built = XelStreamRows.Of(
        BuiltBackupCatalogue.Create(), [.. BuiltBackupScenario.BufferStarved().Take(600)], bufferSize: 8 * 1024);

    [Fact]
    public void Header_metadata_and_event_rows_give_the_events_the_file_reader_gives()
    {
        // Given
        var decoder = new EventStreamDecoder();
        var problems = new List<string>();

        // When
        var events = Decode(decoder, problems, Rows(Built.EventBuffers.Select(b => b.Bytes)));

        // Then
        Assert.Empty(problems);
        Assert.Equal(FileEvents(Built.File()), events.Select(e => e.ToString()));
        Assert.Equal((1, 1, Built.EventBuffers.Count, 0), (decoder.Headers, decoder.MetadataBuffers, decoder.EventBuffers, decoder.SkippedBuffers));
    }

    [Fact]
    public void A_header_row_starts_a_new_catalogue_so_events_before_the_next_metadata_are_reported_not_misread()
    {
        // Given a second stream header in the middle, with event buffers before its metadata arrives
        var buffers = Built.EventBuffers.Select(b => b.Bytes).ToList();
        var rows = new List<EventStreamRow>(Rows(buffers.Take(2)))
        {
            new(EventStreamRowTypes.Header, Built.Header),
            new(EventStreamRowTypes.Events, buffers[2]),
            new(EventStreamRowTypes.Metadata, Built.Metadata),
        };
        rows.AddRange(buffers.Skip(3).Select(b => new EventStreamRow(EventStreamRowTypes.Events, b)));
        var decoder = new EventStreamDecoder();
        var problems = new List<string>();

        // When
        var events = Decode(decoder, problems, rows);

        // Then only buffer 3's events are missing, and the one problem says where and why
        var expected = FileEvents([.. Built.Header, .. Built.Metadata, .. buffers.Take(2).SelectMany(b => b), .. buffers.Skip(3).SelectMany(b => b)]);
        Assert.Equal(expected, events.Select(e => e.ToString()));
        Assert.Equal("row 6, offset 0: event buffer before any metadata: its events cannot be decoded; skipped", Assert.Single(problems));
        Assert.Equal((2, 1), (decoder.Headers, decoder.SkippedBuffers));
    }

    [Fact]
    public void A_type_column_that_disagrees_with_the_buffer_header_is_reported_once_and_the_header_wins()
    {
        // Given every row typed 0, the metadata buffer included
        var rows = Rows(Built.EventBuffers.Select(b => b.Bytes)).Select(r => r with { Type = EventStreamRowTypes.Events }).ToList();
        var decoder = new EventStreamDecoder();
        var problems = new List<string>();

        // When
        var events = Decode(decoder, problems, rows);

        // Then
        Assert.Equal(FileEvents(Built.File()), events.Select(e => e.ToString()));
        var problem = Assert.Single(problems);
        Assert.StartsWith("row 1: the type column says 0 but the buffer is a header buffer (2)", problem, StringComparison.Ordinal);
    }

    [Fact]
    public void Unknown_damaged_and_empty_rows_are_located_and_skipped_and_later_rows_still_decode()
    {
        // Given a row of an unknown buffer type, a buffer whose records overrun it, and a row without data
        var unknown = (byte[])Built.EventBuffers[0].Bytes.Clone();
        unknown[0x0E] = 7;
        var cut = Built.EventBuffers[1].Bytes[..200];
        var rows = new List<EventStreamRow>
        {
            new(EventStreamRowTypes.Header, Built.Header),
            new(EventStreamRowTypes.Metadata, Built.Metadata),
            new(7, unknown),
            new(EventStreamRowTypes.Events, cut),
            new(EventStreamRowTypes.Events, null),
        };
        rows.AddRange(Built.EventBuffers.Skip(2).Select(b => new EventStreamRow(EventStreamRowTypes.Events, b.Bytes)));
        var decoder = new EventStreamDecoder();
        var problems = new List<string>();

        // When
        var events = Decode(decoder, problems, rows);

        // Then
        Assert.Collection(
            problems,
            p => Assert.Equal("row 3, offset 14: log buffer type 7 is not known; skipped", p),
            p => Assert.StartsWith("row 4, offset 22: log buffer's records (", p, StringComparison.Ordinal),
            p => Assert.Equal("row 5: type 0 came without data; skipped", p));
        var expected = FileEvents([.. Built.Header, .. Built.Metadata, .. Built.EventBuffers.Skip(2).SelectMany(b => b.Bytes)]);
        Assert.Equal(expected, events.Select(e => e.ToString()));
    }

    private static IEnumerable<EventStreamRow> Rows(IEnumerable<byte[]> eventBuffers) =>
        new[] { new EventStreamRow(EventStreamRowTypes.Header, Built.Header), new EventStreamRow(EventStreamRowTypes.Metadata, Built.Metadata) }
            .Concat(eventBuffers.Select(b => new EventStreamRow(EventStreamRowTypes.Events, b)));

    private static List<TraceEvent> Decode(EventStreamDecoder decoder, List<string> problems, IEnumerable<EventStreamRow> rows)
    {
        var events = new List<TraceEvent>();
        foreach (var row in rows)
        {
            events.AddRange(decoder.Decode(row, problems.Add));
        }

        return events;
    }

    /// <summary>The TraceEvents of a whole .xel, read by the file reader: what the stream must give too.</summary>
    internal static List<string> FileEvents(byte[] file)
    {
        var source = new XelFileSource("built.xel", () => new MemoryStream(file));
        var status = new SourceStatus();
        var events = source.ReadEventsAsync(status, CancellationToken.None).ToBlockingEnumerable().Select(e => e.ToString()).ToList();
        Assert.Empty(status.Problems);
        Assert.NotEmpty(events);
        return events;
    }
}
