using BackupXe.Cli.Rendering;
using Xunit;

namespace BackupXe.Tests.Cli.Rendering;

/// <summary>
/// Prepared bytes copied by whole 16-byte blocks give the output exactly the bytes a plain copy gives: nothing of the
/// blocks' padding counted, whether the block has room for the padding, only for the bytes, or must grow or send;
/// and a run of another buffer's bytes copied the same way gives the bytes of a plain copy.
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
    public void A_run_of_another_buffer_is_written_as_a_plain_copy_writes_it_at_every_start_and_length()
    {
        // Given a gathering buffer of 100 bytes, full but for 3, so that runs near its end have no room past them
        var source = new OutputBuffer(100);
        source.Write([.. Enumerable.Range(0, 97).Select(i => (byte)(i + 1))]);
        for (var start = 0; start <= 97; start++)
        {
            for (var length = 0; start + length <= 97 && length <= 40; length++)
            {
                // When the run is written into buffers with room, with room for the run only, and with none
                foreach (var capacity in (int[])[256, length + 1, 1])
                {
                    var output = new OutputBuffer(capacity);
                    output.Write((byte)'[');
                    output.Write(source, start, length);
                    output.Write((byte)']');

                    // Then the bytes are the run's, between the two
                    byte[] expected = [(byte)'[', .. source.Gathered.Slice(start, length), (byte)']'];
                    Assert.True(expected.AsSpan().SequenceEqual(output.Gathered), $"start {start}, length {length}, capacity {capacity}");
                }
            }
        }
    }

    [Fact]
    public void Separated_runs_are_written_as_one_by_one_writes_write_them_with_room_and_without()
    {
        // Given cells gathered in a buffer, some replaced (their old bytes left unused), some empty, some over two blocks
        var random = new Random(20261130);
        for (var trial = 0; trial < 300; trial++)
        {
            var cells = new OutputBuffer(random.Next(2) == 0 ? 4096 : 600);
            var columns = random.Next(0, 14);
            var (starts, ends) = (new int[columns], new int[columns]);
            for (var write = 0; write < columns * 2; write++)
            {
                var column = random.Next(columns);
                starts[column] = cells.Length;
                cells.Write([.. Enumerable.Range(0, random.Next(0, 40)).Select(_ => (byte)random.Next('a', 'z' + 1))]);
                ends[column] = cells.Length;
            }

            if (columns > 0)
            {
                ends[random.Next(columns)] = 0;
            }

            byte[] expected = [.. Enumerable.Range(0, columns).SelectMany(i => (byte[])[(byte)',', .. ends[i] > starts[i] ? cells.Gathered[starts[i]..ends[i]].ToArray() : []])];

            // When written into room for all of it, and into a buffer that must grow
            foreach (var capacity in (int[])[1 << 16, 1])
            {
                var output = new OutputBuffer(capacity);
                output.WriteRuns((byte)',', cells, starts, ends);

                // Then
                Assert.True(expected.AsSpan().SequenceEqual(output.Gathered), $"trial {trial}, capacity {capacity}");
            }
        }
    }

    [Fact]
    public void A_run_past_what_another_buffer_gathered_is_refused()
    {
        // Given a buffer that gathered 10 bytes of a larger block
        var source = new OutputBuffer(64);
        source.Write(new byte[10]);
        var output = new OutputBuffer(64);

        // When a run beyond them is asked for, Then it is refused rather than copied from the block's unused bytes
        Assert.Throws<ArgumentOutOfRangeException>(() => output.Write(source, 5, 6));
        Assert.Throws<ArgumentOutOfRangeException>(() => output.Write(source, 11, 0));
        Assert.Throws<ArgumentOutOfRangeException>(() => output.WriteRuns((byte)',', source, [5], [11]));
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
