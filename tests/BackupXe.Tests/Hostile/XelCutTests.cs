using System.Buffers.Binary;
using BackupXe.Tests.Sources.Support;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// The genuine .xel fixture cut inside an event buffer (a copy of a file still being written) and with a buffer's
/// type word damaged: the complete records before the cut are read, and each damage is a located problem.
/// </summary>
public class XelCutTests
{
    [Fact]
    public async Task Given_a_xel_cut_inside_its_last_event_buffer_when_read_then_every_record_before_the_cut_is_kept()
    {
        // Given
        var bytes = await File.ReadAllBytesAsync(Fixture.TestXel);
        var whole = await HostileRun.AnalyzeAsync(bytes, "whole.xel");
        var last = Buffers(bytes).Last(b => b.Type == 0);
        var before = await HostileRun.AnalyzeAsync(bytes[..(int)last.Offset], "before.xel");

        var previous = before.Statuses[0].Events;
        for (var cut = last.Offset + 96; cut < last.Offset + last.Used; cut += Math.Max(1, last.Used / 40))
        {
            // When
            var run = await HostileRun.AnalyzeAsync(bytes[..(int)cut], "cut.xel");

            // Then: never fewer records than a shorter cut, and the cut is reported
            run.AssertInvariants($"cut at {cut}");
            Assert.Equal(2, run.ExitCode);
            Assert.True(run.Statuses[0].Events >= previous, $"cut at {cut}: {run.Statuses[0].Events} events, {previous} at a shorter cut");
            previous = run.Statuses[0].Events;
        }

        // Just short of the buffer's end, every record but the last is there.
        var nearEnd = await HostileRun.AnalyzeAsync(bytes[..(int)(last.Offset + last.Used - 1)], "cut.xel");
        Assert.True(nearEnd.Statuses[0].Events >= whole.Statuses[0].Events - 1, $"{nearEnd.Statuses[0].Events} of {whole.Statuses[0].Events} events");
        Assert.True(nearEnd.Statuses[0].Events > before.Statuses[0].Events);
    }

    [Fact]
    public async Task Given_a_xel_whose_event_buffer_type_word_reads_2_when_read_then_the_lost_buffer_is_reported()
    {
        // Given
        var bytes = await File.ReadAllBytesAsync(Fixture.TestXel);
        var buffer = Buffers(bytes).First(b => b.Type == 0);
        BinaryPrimitives.WriteUInt16LittleEndian(bytes.AsSpan((int)buffer.Offset + 0x0E), 2);

        // When
        var run = await HostileRun.AnalyzeAsync(bytes, "damaged.xel");

        // Then
        run.AssertInvariants("type word 2");
        Assert.Equal(2, run.ExitCode);
        Assert.Contains(run.Problems, p => p.Location == $"offset {buffer.Offset + 0x0E}" && p.Message.Contains("type 2", StringComparison.Ordinal));
    }

    // The log buffers after the 512-byte file header: type, offset and the end of their used bytes.
    private static IEnumerable<(long Offset, ushort Type, int Used)> Buffers(byte[] bytes)
    {
        for (long offset = 512; offset + 64 <= bytes.Length;)
        {
            var span = bytes.AsSpan((int)offset);
            var size = BinaryPrimitives.ReadUInt32LittleEndian(span[0x10..]);
            var dataOffset = BinaryPrimitives.ReadUInt16LittleEndian(span[0x16..]);
            var used = BinaryPrimitives.ReadUInt32LittleEndian(span[0x18..]);
            yield return (offset, BinaryPrimitives.ReadUInt16LittleEndian(span[0x0E..]), dataOffset + (int)used);
            offset += size;
        }
    }
}
