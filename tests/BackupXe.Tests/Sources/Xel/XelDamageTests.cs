using System.Buffers.Binary;
using System.Text.RegularExpressions;
using BackupXe.Sources.Xel;
using BackupXe.Sources.XeEvents;
using BackupXe.Tests.Sources.Support;
using Xunit;
using BackupXe.Testing.Xel;

namespace BackupXe.Tests.Sources.Xel;

/// <summary>Allocation is measured per thread; these tests run alone so that nothing else shares their timing.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class XelDamageCollection
{
    public const string Name = "xel-damage";
}

/// <summary>
/// Damaged, truncated and mutated .xel input: every problem is located by offset, the rest is still read, nothing
/// throws, and memory stays bounded by the buffer size whatever the lengths in the file claim.
/// </summary>
[Collection(XelDamageCollection.Name)]
public sealed partial class XelDamageTests
{
    // Reading the 215 KB fixture allocates about 2 MB; a read that allocated a damaged length's worth would exceed this.
    private const long AllocationBound = 24L * 1024 * 1024;

    private static readonly byte[] FixtureBytes = File.ReadAllBytes(Fixture.TestXel);

    [Fact]
    public async Task A_wrong_magic_is_one_problem_and_nothing_read()
    {
        // Given
        var bytes = (byte[])FixtureBytes.Clone();
        bytes[0] ^= 0xFF;

        // When
        var run = await XelRun.ReadAsync(bytes);

        // Then
        Assert.True(run.Status.Unusable);
        Assert.Empty(run.Events);
        var problem = Assert.Single(run.Status.Problems);
        Assert.Equal("offset 0", problem.Location);
        Assert.Contains("not an Extended Events .xel file", problem.Message);
    }

    [Theory]
    [InlineData(0x004, "unsupported XEL format version 11 (this reader knows version 10)")]
    [InlineData(0x20C, "unsupported XEL format version 11 in a log buffer header")]
    public async Task An_unknown_version_word_rejects_the_file_with_one_clear_line(int at, string message)
    {
        // Given
        var bytes = (byte[])FixtureBytes.Clone();
        BinaryPrimitives.WriteUInt16LittleEndian(bytes.AsSpan(at), 11);

        // When
        var run = await XelRun.ReadAsync(bytes);

        // Then
        Assert.True(run.Status.Unusable);
        Assert.Empty(run.Events);
        var problem = Assert.Single(run.Status.Problems);
        Assert.Equal($"offset {at}", problem.Location);
        Assert.Contains(message, problem.Message);
    }

    [Fact]
    public async Task Truncation_at_every_record_boundary_of_the_fixture_reads_every_record_before_the_cut()
    {
        // Given the record boundaries of the one event buffer, from the writer proven on it
        var catalogue = XelCatalogueReader.Read(FixtureBytes);
        var events = (await XelRun.ReadAsync(FixtureBytes)).Events;
        var boundaries = new List<int> { 0x5000 + 0x4D };
        foreach (var e in events)
        {
            boundaries.Add(boundaries[^1] + XelTestWriter.EventRecord(e, catalogue).Length);
        }

        for (var complete = 0; complete < boundaries.Count; complete++)
        {
            // When
            var run = await ReadBoundedAsync(FixtureBytes[..boundaries[complete]]);

            // Then: the records before the cut are decoded (at the last boundary all 149, only the buffer's unused
            // tail is missing); the file is partial, not unusable
            Assert.Equal(complete, run.Events.Count);
            var problem = Assert.Single(run.Status.Problems);
            Assert.Equal("offset 20480", problem.Location);
            Assert.Contains("file ends", problem.Message);
        }
    }

    [Theory]
    [InlineData(0x200)]
    [InlineData(0x205)]
    [InlineData(0x260)]
    [InlineData(0x5000)]
    [InlineData(0x5010)]
    public async Task Truncation_before_the_event_buffer_is_reported_where_the_file_ends(int cut)
    {
        // Given / When
        var run = await ReadBoundedAsync(FixtureBytes[..cut]);

        // Then
        Assert.Empty(run.Events);
        if (cut == 0x5000)
        {
            // Cut exactly between buffers: a complete, shorter file (metadata only).
            Assert.Empty(run.Status.Problems);
            return;
        }

        var problem = Assert.Single(run.Status.Problems);
        Assert.Matches(LocatedOffset(), problem.Location);
        Assert.Matches("file ends|no log buffer after its header", problem.Message);
    }

    [Fact]
    public async Task Truncation_at_every_buffer_and_record_boundary_of_a_built_file_keeps_every_complete_record()
    {
        // Given a built backup over many 4 KB buffers
        var events = BuiltBackupScenario.BufferStarved().Take(300).ToList();
        var bytes = XelTestWriter.File(BuiltBackupCatalogue.Create(), events, out var layout, bufferSize: 4096);
        var before = 0;
        foreach (var buffer in layout.EventBuffers)
        {
            // When cut where the buffer starts: a complete shorter file
            var atStart = await ReadBoundedAsync(bytes[..buffer.Offset]);
            Assert.Empty(atStart.Status.Problems);
            Assert.Equal(before, atStart.Events.Count);

            foreach (var (record, complete) in buffer.RecordOffsets.Select((r, i) => (r, i)).Append((buffer.Offset + 10, 0)))
            {
                // When cut at each record (and inside the buffer header)
                var run = await ReadBoundedAsync(bytes[..record]);

                // Then every earlier buffer and this one's complete records are read, the cut reported where the buffer starts
                Assert.Equal(before + complete, run.Events.Count);
                var problem = Assert.Single(run.Status.Problems);
                Assert.Equal($"offset {buffer.Offset}", problem.Location);
                Assert.Contains("file ends", problem.Message);
                Assert.False(run.Status.Unusable);
            }

            before += buffer.RecordOffsets.Count;
        }

        Assert.Equal(events.Count, before);
    }

    [Fact]
    public async Task A_buffer_whose_records_are_all_there_is_read_even_when_its_unused_tail_is_cut()
    {
        // Given the last buffer cut one byte before its declared end
        var events = BuiltBackupScenario.BufferStarved().Take(200).ToList();
        var bytes = XelTestWriter.File(BuiltBackupCatalogue.Create(), events, out var layout, bufferSize: 4096);
        var last = layout.EventBuffers[^1];

        // When
        var run = await ReadBoundedAsync(bytes[..(last.Offset + last.Size - 1)]);

        // Then
        Assert.Equal(events.Count, run.Events.Count);
        var problem = Assert.Single(run.Status.Problems);
        Assert.Equal($"offset {last.Offset}", problem.Location);
        Assert.Contains("this one's records, which are all there", problem.Message);
    }

    [Fact]
    public async Task A_payload_length_past_the_buffer_skips_that_buffer_and_reads_the_next()
    {
        // Given the first record of the second buffer claiming a huge payload
        var (events, bytes, layout) = Built();
        var damaged = layout.EventBuffers[1];
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(damaged.RecordOffsets[0] + 0x14), 0x7FFFFFF0);

        // When
        var run = await ReadBoundedAsync(bytes);

        // Then
        Assert.Equal(events.Count - damaged.RecordOffsets.Count, run.Events.Count);
        var problem = Assert.Single(run.Status.Problems);
        Assert.Equal($"offset {damaged.RecordOffsets[0] + 0x14}", problem.Location);
        Assert.Contains("runs past the buffer", problem.Message);
    }

    [Fact]
    public async Task An_action_length_past_the_buffer_skips_the_rest_of_that_buffer_only()
    {
        // Given the second record of the third buffer with an action value running off the buffer
        var (events, bytes, layout) = Built();
        var damaged = layout.EventBuffers[2];
        var record = damaged.RecordOffsets[1];
        var payload = BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(record + 0x14));
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(record + 0x18 + payload + 4), 0x00FFFFFF);

        // When
        var run = await ReadBoundedAsync(bytes);

        // Then: the first record of the buffer is kept, the rest of it is skipped
        Assert.Equal(events.Count - damaged.RecordOffsets.Count + 1, run.Events.Count);
        var problem = Assert.Single(run.Status.Problems);
        Assert.Contains("action value of 16777215 bytes runs past the buffer", problem.Message);
        Assert.Contains($"from offset {record})", problem.Message);
    }

    [Fact]
    public async Task A_field_length_past_its_payload_skips_only_that_event()
    {
        // Given the first event (a progress trace) whose trace_message descriptor claims more than its payload
        var (events, bytes, layout) = Built();
        var record = layout.EventBuffers[0].RecordOffsets[0];
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(record + 0x18 + 13 + 4), 0xFFFFFF00);

        // When
        var run = await ReadBoundedAsync(bytes);

        // Then
        Assert.Equal(events.Count - 1, run.Events.Count);
        var problem = Assert.Single(run.Status.Problems);
        Assert.Equal($"offset {record + 0x18 + 13}", problem.Location);
        Assert.Contains("backup_restore_progress_trace: trace_message", problem.Message);
        Assert.Contains("event skipped", problem.Message);
    }

    [Theory]
    [InlineData(0x0FFFFFFFu)]
    [InlineData(0xFFFFFFFFu)]
    public async Task A_buffer_size_past_the_end_of_the_file_never_allocates_what_it_claims(uint size)
    {
        // Given the last buffer claiming 256 MB (within the limit: read to the end) or 4 GB (damage)
        var (events, bytes, layout) = Built();
        var last = layout.EventBuffers[^1];
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(last.Offset + 0x10), size);

        // When
        var run = await ReadBoundedAsync(bytes);

        // Then
        var problem = Assert.Single(run.Status.Problems);
        Assert.Equal($"offset {last.Offset}", problem.Location);
        Assert.Equal(size == 0x0FFFFFFFu ? events.Count : events.Count - last.RecordOffsets.Count, run.Events.Count);
    }

    [Fact]
    public async Task A_damaged_buffer_header_is_skipped_and_later_buffers_are_still_read()
    {
        // Given the signature of the second event buffer wiped
        var (events, bytes, layout) = Built();
        var damaged = layout.EventBuffers[1];
        bytes.AsSpan(damaged.Offset + 8, 4).Clear();

        // When
        var run = await ReadBoundedAsync(bytes);

        // Then
        Assert.Equal(events.Count - damaged.RecordOffsets.Count, run.Events.Count);
        var problem = Assert.Single(run.Status.Problems);
        Assert.Equal($"offset {damaged.Offset}", problem.Location);
        Assert.Contains("looking for the next buffer", problem.Message);
    }

    [Fact]
    public async Task A_metadata_chunk_length_past_its_buffer_rejects_the_file()
    {
        // Given
        var (_, bytes, layout) = Built();
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(layout.MetadataOffset + 0x4C + 2), 0x00FFFFFF);

        // When
        var run = await ReadBoundedAsync(bytes);

        // Then
        Assert.True(run.Status.Unusable);
        Assert.Empty(run.Events);
        var problem = Assert.Single(run.Status.Problems);
        Assert.Equal($"offset {layout.MetadataOffset + 0x4C + 2}", problem.Location);
        Assert.Contains("metadata not understood", problem.Message);
    }

    [Fact]
    public async Task A_value_of_a_type_the_metadata_does_not_describe_is_kept_as_raw_bytes()
    {
        // Given a file whose metadata lacks the ptr type that wait_resource uses
        var catalogue = BuiltBackupCatalogue.Create();
        var withoutPtr = new XelCatalogue { SessionGuid = catalogue.SessionGuid, Clock = catalogue.Clock };
        foreach (var package in catalogue.Packages)
        {
            withoutPtr.Add(package with { Types = package.Types.Where(t => t.Name != "ptr").ToList() });
        }

        var events = BuiltBackupScenario.BufferStarved().Take(100).ToList();
        var bytes = XelTestWriter.File(catalogue, events, out _, metadata: withoutPtr);

        // When
        var run = await ReadBoundedAsync(bytes);

        // Then
        Assert.Empty(run.Status.Problems);
        var resource = run.Events.First(e => e.Name == "wait_info").Field("wait_resource");
        Assert.Equal("0x60003000", resource.Type);
        Assert.Equal(new byte[] { 0x78, 0x56, 0x34, 0x12, 0xF6, 0x7F, 0, 0 }, Assert.IsType<byte[]>(resource.Value));
        var written = events.First(e => e.Name == "wait_info").Field("duration").Value;
        Assert.Equal(written, run.Events.First(e => e.Name == "wait_info").Field("duration").Value);
    }

    [Fact]
    public async Task Random_byte_flips_in_the_fixture_never_throw_and_every_problem_is_located()
    {
        await FlipAsync(FixtureBytes, seed: 8, mutations: 300);
    }

    [Fact]
    public async Task Random_byte_flips_in_a_built_file_never_throw_and_every_problem_is_located()
    {
        var (_, bytes, _) = Built();
        await FlipAsync(bytes, seed: 88, mutations: 150);
    }

    private static async Task FlipAsync(byte[] original, int seed, int mutations)
    {
        var random = new Random(seed);
        for (var i = 0; i < mutations; i++)
        {
            // Given 1 to 8 random bytes replaced, mostly in the headers and metadata where framing lives
            var bytes = (byte[])original.Clone();
            var flips = random.Next(1, 9);
            for (var f = 0; f < flips; f++)
            {
                var at = random.Next(0, 3) == 0 ? random.Next(0, Math.Min(bytes.Length, 0x5200)) : random.Next(0, bytes.Length);
                bytes[at] = (byte)random.Next(0, 256);
            }

            // When / Then (ReadBoundedAsync asserts no exception escapes and memory stays bounded)
            var run = await ReadBoundedAsync(bytes);
            Assert.InRange(run.Status.Problems.Count, 0, 21);
            Assert.All(run.Status.Problems.Where(p => p.Location != "file"), p =>
            {
                var match = LocatedOffset().Match(p.Location);
                Assert.True(match.Success, $"mutation {i}: unlocated problem '{p.Location}: {p.Message}'");
                Assert.InRange(long.Parse(match.Groups[1].Value), 0, bytes.Length);
            });
        }
    }

    private static (IReadOnlyList<XeEvent> Events, byte[] Bytes, XelLayoutMap Layout) Built()
    {
        var events = BuiltBackupScenario.BufferStarved().Take(400).ToList();
        var bytes = XelTestWriter.File(BuiltBackupCatalogue.Create(), events, out var layout, bufferSize: 4096);
        return (events, bytes, layout);
    }

    /// <summary>Reads with the allocations of this thread counted: the read runs synchronously over a MemoryStream.</summary>
    private static async Task<XelRun> ReadBoundedAsync(byte[] bytes)
    {
        var before = GC.GetAllocatedBytesForCurrentThread();
        var run = await XelRun.ReadAsync(bytes);
        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        Assert.True(allocated < AllocationBound, $"reading {bytes.Length} bytes allocated {allocated} bytes");
        return run;
    }

    [GeneratedRegex(@"^offset (\d+)$")]
    private static partial Regex LocatedOffset();
}
