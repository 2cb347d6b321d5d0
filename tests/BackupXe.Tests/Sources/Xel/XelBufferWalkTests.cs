using System.Buffers;
using BackupXe.Sources.Xel;
using BackupXe.Testing.Xel;
using Xunit;

namespace BackupXe.Tests.Sources.Xel;

/// <summary>The walk over a file's log buffers, and the buffers it hands over to be decoded elsewhere.</summary>
public sealed class XelBufferWalkTests
{
    [Fact]
    public void A_detached_buffer_keeps_its_bytes_while_the_walk_reads_on()
    {
        // Given a built file of several 4 KB event buffers
        var events = BuiltBackupScenario.BufferStarved().Take(200).ToList();
        var file = XelTestWriter.File(BuiltBackupCatalogue.Create(), events, out var layout, bufferSize: 4096);
        Assert.True(layout.EventBuffers.Count > 2);

        // When every event buffer is detached as the walk hands it out, and the walk goes on to the end
        var walk = new XelBufferWalk(new MemoryStream(file, writable: false), (offset, message) => throw new InvalidDataException($"offset {offset}: {message}"));
        var detached = new List<(XelLogBuffer Buffer, byte[] Bytes)>();
        foreach (var buffer in walk.Buffers())
        {
            if (buffer.Type == XelLayout.EventBuffer)
            {
                detached.Add((buffer, walk.Detach(buffer)));
            }
        }

        // Then each still holds its own buffer's bytes, as the file has them, and none is the array of another
        Assert.Equal(layout.EventBuffers.Count, detached.Count);
        foreach (var (buffer, bytes) in detached)
        {
            var start = (int)buffer.Offset;
            Assert.True(file.AsSpan(start + buffer.Start, buffer.End - buffer.Start).SequenceEqual(bytes.AsSpan(buffer.Start, buffer.End - buffer.Start)));
        }

        Assert.Equal(detached.Count, detached.Select(d => d.Bytes).Distinct().Count());
        foreach (var (_, bytes) in detached)
        {
            ArrayPool<byte>.Shared.Return(bytes);
        }
    }

    [Fact]
    public void Bytes_that_are_not_the_walks_own_cannot_be_detached()
    {
        var file = XelTestWriter.File(BuiltBackupCatalogue.Create(), BuiltBackupScenario.BufferStarved().Take(200).ToList(), out _, bufferSize: 4096);
        var walk = new XelBufferWalk(new MemoryStream(file, writable: false), (_, _) => { });
        using var buffers = walk.Buffers().GetEnumerator();
        Assert.True(buffers.MoveNext());
        var buffer = buffers.Current;
        Assert.Throws<InvalidOperationException>(() => walk.Detach(buffer with { Bytes = [] }));
    }
}
