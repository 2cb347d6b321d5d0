using BackupXe.Cli.Rendering;
using Xunit;

namespace BackupXe.Tests.Cli;

/// <summary>
/// Prepared bytes copied by whole 16-byte blocks give the output exactly the bytes a plain copy gives: nothing of the
/// blocks' padding counted, whether the block has room for the padding, only for the bytes, or must grow or send.
/// </summary>
public sealed class OutputBufferTests
{
    public static TheoryData<int, int> Sizes() => new()
    {
        { 0, 64 }, { 1, 64 }, { 15, 64 }, { 16, 64 }, { 17, 64 }, { 33, 64 },
        { 17, 20 }, { 31, 17 }, { 16, 3 }, { 40, 1 },
    };

    [Theory]
    [MemberData(nameof(Sizes))]
    public void Prepared_bytes_are_written_as_a_plain_copy_writes_them(int length, int capacity)
    {
        // Given bytes prepared in blocks and a gathering buffer of a small capacity, holding a byte already
        var bytes = Enumerable.Range(1, length).Select(i => (byte)(i * 7)).ToArray();
        var prepared = new PreparedBytes(bytes);
        var output = new OutputBuffer(capacity);
        output.Write((byte)'[');

        // When they are written three times, then one more byte
        output.Write(prepared);
        output.Write(prepared);
        output.Write(prepared);
        output.Write((byte)']');

        // Then the output is the bytes three times between the two, the padding never counted
        byte[] expected = [(byte)'[', .. bytes, .. bytes, .. bytes, (byte)']'];
        Assert.Equal(expected, output.Gathered.ToArray());
        Assert.Equal(length, prepared.Length);
        Assert.Equal(0, prepared.Blocks.Length % PreparedBytes.BlockSize);
    }

    [Fact]
    public async Task Prepared_bytes_sent_to_a_stream_arrive_whole_across_blocks()
    {
        // Given a stream-backed buffer and a prepared text written until more than a block is gathered
        var prepared = new PreparedBytes("\"BACKUPBUFFER\""u8);
        using var stream = new MemoryStream();
        var output = new OutputBuffer(stream);
        var times = (OutputBuffer.BlockSize / prepared.Length) + 1000;

        // When it is written that many times, sent once full, and flushed
        for (var i = 0; i < times; i++)
        {
            output.Write(prepared);
            output.WriteIfFull();
        }

        await output.FlushAsync(TestContext.Current.CancellationToken);

        // Then the stream holds exactly the copies written, in more than one block
        var sent = stream.ToArray();
        Assert.Equal(times * prepared.Length, sent.Length);
        for (var i = 0; i < times; i++)
        {
            Assert.True(sent.AsSpan(i * prepared.Length, prepared.Length).SequenceEqual(prepared.Bytes), $"copy {i}");
        }

        Assert.True(output.Sends >= 2, $"{output.Sends} sends");
    }
}
