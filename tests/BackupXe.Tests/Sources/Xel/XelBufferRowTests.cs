using System.Buffers.Binary;
using BackupXe.Core.Events;
using BackupXe.Sources.Xel;
using BackupXe.Tests.Sources.Support;
using Xunit;
using BackupXe.Testing.Xel;

namespace BackupXe.Tests.Sources.Xel;

/// <summary>
/// <see cref="XelDecoder.ReadBuffer"/>: buffers given one at a time (as sys.fn_MSxe_read_event_stream returns them),
/// each decoded by its own header. The genuine fixture cut into its header block and its log buffers.
/// </summary>
public sealed class XelBufferRowTests
{
    [Fact]
    public void The_genuine_fixture_given_buffer_by_buffer_is_a_header_then_metadata_then_events_with_no_problem()
    {
        // Given the fixture's 512-byte header block and each log buffer cut at its declared size
        var file = File.ReadAllBytes(Fixture.TestXel);
        var rows = new List<byte[]> { file[..512] };
        for (var at = 512; at < file.Length;)
        {
            var size = (int)BinaryPrimitives.ReadUInt32LittleEndian(file.AsSpan(at + 0x10));
            rows.Add(file[at..(at + size)]);
            at += size;
        }

        var decoder = new XelDecoder();
        var problems = new List<string>();
        var events = new List<TraceEvent>();

        // When
        var kinds = rows.Select(row => decoder.ReadBuffer(row, 0, (offset, message) => problems.Add($"{offset}: {message}"), events)).ToList();

        // Then the same events as the file reader gives, in the same order
        Assert.Equal([XelBufferKind.Header, XelBufferKind.Metadata, XelBufferKind.Events], kinds);
        Assert.Empty(problems);
        var fromFile = new XelFileSource(Fixture.TestXel).ReadEventsAsync(new SourceStatus(), CancellationToken.None).ToBlockingEnumerable().ToList();
        Assert.Equal(149, fromFile.Count);
        Assert.Equal(fromFile.Select(e => e.ToString()), events.Select(e => e.ToString()));
        Assert.Equal(7, decoder.Catalogue.Events.Count);
    }

    [Fact]
    public void A_header_of_an_unknown_version_is_reported_with_its_offset_and_skipped()
    {
        // Given
        var header = XelTestWriter.FileHeader();
        header[4] = 11;
        var problems = new List<string>();

        // When
        var kind = new XelDecoder().ReadBuffer(header, 1000, (offset, message) => problems.Add($"{offset}: {message}"), []);

        // Then
        Assert.Equal(XelBufferKind.Skipped, kind);
        Assert.Equal("1004: unsupported XEL format version 11 in a stream header (this reader knows version 10)", Assert.Single(problems));
    }
}
