using System.Buffers.Binary;
using System.Text.Json;
using BackupXe.Tests.Sources.Support;
using Xunit;
using BackupXe.Testing.Xel;

namespace BackupXe.Tests.Sources.Xel;

/// <summary>
/// The test-only writer is trusted for built files only because it reproduces the genuine fixture: its decoded
/// records re-encode to the exact used bytes of the event buffer, and its metadata re-encodes to the same catalogue.
/// </summary>
public sealed class XelWriterProofTests
{
    private const int EventBufferOffset = 0x5000;

    [Fact]
    public async Task Re_encoding_the_fixtures_decoded_records_reproduces_its_event_buffer_byte_for_byte()
    {
        // Given the genuine file, its catalogue and its decoded events
        var file = await File.ReadAllBytesAsync(Fixture.TestXel);
        var catalogue = XelCatalogueReader.Read(file);
        var events = (await XelRun.ReadAsync(Fixture.TestXel)).Events;

        // When every decoded event is encoded again, in order
        var encoded = events.SelectMany(e => XelTestWriter.EventRecord(e, catalogue)).ToArray();

        // Then the bytes are the buffer's used region exactly (data offset at +0x16, used length at +0x18)
        var dataOffset = BinaryPrimitives.ReadUInt16LittleEndian(file.AsSpan(EventBufferOffset + 0x16));
        var used = (int)BinaryPrimitives.ReadUInt32LittleEndian(file.AsSpan(EventBufferOffset + 0x18));
        Assert.Equal(0x2F5E3, used);
        Assert.Equal(used, encoded.Length);
        Assert.True(file.AsSpan(EventBufferOffset + dataOffset, used).SequenceEqual(encoded));
    }

    [Fact]
    public void Re_encoding_the_fixtures_metadata_decodes_back_to_the_same_catalogue()
    {
        // Given
        var original = XelCatalogueReader.Read(File.ReadAllBytes(Fixture.TestXel));

        // When
        var rebuilt = XelCatalogueReader.Read(XelTestWriter.File(original, []));

        // Then
        Assert.Equal(Canonical(original), Canonical(rebuilt));
        Assert.Equal(7, rebuilt.Events.Count);
    }

    [Fact]
    public async Task A_file_written_from_the_fixtures_events_reads_back_to_the_same_events()
    {
        // Given
        var fixture = await XelRun.ReadAsync(Fixture.TestXel);
        var catalogue = XelCatalogueReader.Read(File.ReadAllBytes(Fixture.TestXel));

        // When: written again over several small buffers
        var rebuilt = await XelRun.ReadAsync(XelTestWriter.File(catalogue, fixture.Events, bufferSize: 8 * 1024));

        // Then
        Assert.Empty(rebuilt.Status.Problems);
        Assert.Equal(Canonical(fixture.Events), Canonical(rebuilt.Events));
    }

    internal static string Canonical(object value) => JsonSerializer.Serialize(value, new JsonSerializerOptions { WriteIndented = false });
}
