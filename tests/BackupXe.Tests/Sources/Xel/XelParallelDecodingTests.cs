using BackupXe.Core.Events;
using BackupXe.Sources.Xel;
using BackupXe.Sources.XeEvents;
using FsCheck;
using FsCheck.Fluent;
using Xunit;
using BackupXe.Testing.Xel;
using BackupXe.Tests.Support;

namespace BackupXe.Tests.Sources.Xel;

/// <summary>
/// Buffers decoded on several threads are handed on exactly as one buffer after the other gives them: the same events
/// in the same order, the same problems at the same offsets in the same order, the same counts.
/// </summary>
public sealed class XelParallelDecodingTests
{
    private static readonly Config Checks = Config.QuickThrowOnFailure.WithMaxTest(120).WithReplay(20261125UL, 0x9E3779B97F4A7C15UL);

    private static readonly IReadOnlyList<XeEvent> Backup = BuiltBackupScenario.BufferStarved();

    /// <summary>A rollover set of files cut from one capture, with damage.</summary>
    private sealed record SetUp(int Events, int BufferSize, int Files, (int File, double At, byte Xor)[] Damage, double? CutLast, int InFlight)
    {
        public override string ToString() =>
            $"{Events} events, {BufferSize}-byte buffers, {Files} files, damage [{string.Join(", ", Damage.Select(d => $"file {d.File} at {d.At:F4} ^{d.Xor:X2}"))}], cut {CutLast?.ToString("F4") ?? "none"}, {InFlight} in flight";
    }

    private static readonly Gen<(int File, double At, byte Xor)> Damages =
        from file in Gen.Choose(0, 3)
        from at in Gen.Choose(0, 9999)
        from xor in Gen.Choose(1, 255)
        select (file, at / 10000.0, (byte)xor);

    private static readonly Gen<SetUp> SetUps =
        from events in Gen.Choose(1, 1200)
        from bufferSize in Gen.Elements(2048, 4096, 16384, 65536)
        from files in Gen.Choose(1, 4)
        from damage in Damages.ArrayOf().Select(a => a.Take(4).ToArray())
        from cut in Gen.Frequency((3, Gen.Constant<double?>(null)), (1, Gen.Choose(0, 9999).Select(i => (double?)(i / 10000.0))))
        from inFlight in Gen.Choose(1, 8)
        select new SetUp(events, bufferSize, files, damage, cut, inFlight);

    [Fact]
    public void Decoding_on_several_threads_gives_the_sequential_events_problems_and_counts_for_any_split_and_damage()
    {
        Prop.ForAll(SetUps.ToArbitrary(), setUp =>
        {
            // Given a capture split into a rollover set, its buffers of any size, bytes flipped and the last file cut
            var folder = Directory.CreateTempSubdirectory("backupxe-xel-parallel-");
            try
            {
                var paths = Write(setUp, folder.FullName);

                // When it is read one buffer after the other, and with buffers decoding on the thread pool
                var sequential = new XelFileSource("set", paths) { BuffersInFlight = 0 };
                var parallel = new XelFileSource("set", paths) { BuffersInFlight = setUp.InFlight };

                // Then the analysis and the listing get the same from both, and so does a listing prepared batch by batch
                // on the decoding threads
                Assert.Equal(Analysed(sequential), Analysed(parallel));
                Assert.Equal(Listed(sequential), Listed(parallel));
                Assert.Equal(Listed(sequential), Batched(parallel));
                Assert.Equal(Listed(sequential), Batched(sequential));
            }
            finally
            {
                folder.Delete(recursive: true);
            }
        }).Check(Checks);
    }

    [Fact]
    public void Damage_is_reported_at_the_same_offset_whether_buffers_decode_in_turn_or_at_once()
    {
        // Given a set whose second file has a record id spoiled in its third buffer, so that buffer's rest is skipped
        var folder = Directory.CreateTempSubdirectory("backupxe-xel-parallel-");
        try
        {
            var first = XelTestWriter.File(BuiltBackupCatalogue.Create(), Backup.Take(600), out _, 4096);
            var second = XelTestWriter.File(BuiltBackupCatalogue.Create(), Backup.Skip(600).Take(600), out var layout, 4096);
            var record = layout.EventBuffers[2].RecordOffsets[3];
            second[record] ^= 0x5A;
            var paths = new[] { Path.Combine(folder.FullName, "set_0_1.xel"), Path.Combine(folder.FullName, "set_0_2.xel") };
            File.WriteAllBytes(paths[0], first);
            File.WriteAllBytes(paths[1], second);

            // When
            var sequential = Analysed(new XelFileSource("set", paths) { BuffersInFlight = 0 });
            var parallel = Analysed(new XelFileSource("set", paths) { BuffersInFlight = 8 });

            // Then one problem, located in the second file at the record, the same both ways
            Assert.Equal(sequential, parallel);
            Assert.Contains($"set_0_2.xel, offset {record}: event id", parallel.Problems.Single());
        }
        finally
        {
            folder.Delete(recursive: true);
        }
    }

    [Fact]
    public void A_file_that_waits_for_its_turn_has_read_two_buffers_not_a_full_window()
    {
        // Given a file of many 4 KB buffers, read with a window of 8 buffers, as one input among others of a merge
        var bytes = XelTestWriter.File(BuiltBackupCatalogue.Create(), Backup, out var layout, 4096);
        var stream = new ReadCountingStream(bytes);
        var source = new XelFileSource("waiting.xel", () => stream) { BuffersInFlight = 8 };

        // When the merge takes its first event and turns to the other inputs
        using var batches = source.ReadEventBatches(new SourceStatus(), CancellationToken.None).GetEnumerator();
        Assert.True(batches.MoveNext());

        // Then the buffer handed on and the one behind it were read, not nine; the window opens as events are taken
        Assert.True(layout.EventBuffers.Count > 20);
        Assert.Equal(layout.EventBuffers[2].Offset, stream.BytesRead);
        var taken = 1;
        while (batches.MoveNext())
        {
            taken++;
        }

        Assert.Equal(bytes.Length, stream.BytesRead);
        Assert.True(taken > 20);
    }

    private static string[] Write(SetUp setUp, string folder)
    {
        var events = Backup.Take(setUp.Events).ToList();
        var paths = new string[setUp.Files];
        var per = (events.Count + setUp.Files - 1) / setUp.Files;
        for (var i = 0; i < setUp.Files; i++)
        {
            var bytes = XelTestWriter.File(BuiltBackupCatalogue.Create(), events.Skip(i * per).Take(per), out _, setUp.BufferSize);
            foreach (var (file, at, xor) in setUp.Damage.Where(d => d.File == i))
            {
                // After the file header, so that the file is still read as a .xel.
                bytes[XelLayoutSector + (int)(at * (bytes.Length - XelLayoutSector))] ^= xor;
            }

            if (i == setUp.Files - 1 && setUp.CutLast is { } cut)
            {
                bytes = bytes[..(int)(cut * bytes.Length)];
            }

            paths[i] = Path.Combine(folder, $"set_0_{i + 1}.xel");
            File.WriteAllBytes(paths[i], bytes);
        }

        return paths;
    }

    private const int XelLayoutSector = 512;

    private sealed record Read(IReadOnlyList<string> Events, IReadOnlyList<string> Problems, long Count, bool Unusable)
    {
        public bool Equals(Read? other) =>
            other is not null && Events.SequenceEqual(other.Events) && Problems.SequenceEqual(other.Problems) && Count == other.Count && Unusable == other.Unusable;

        public override int GetHashCode() => HashCode.Combine(Events.Count, Problems.Count, Count);

        public override string ToString() => $"{Events.Count} events, {Count} counted, unusable {Unusable}; problems: {string.Join(" | ", Problems)}";
    }

    private static Read Analysed(XelFileSource source)
    {
        var status = new SourceStatus();
        var events = source.ReadEvents(status, CancellationToken.None).Select(Describe).ToList();
        return Of(events, status);
    }

    private static Read Listed(XelFileSource source)
    {
        var status = new SourceStatus();
        var events = source.ReadXeEvents(status, CancellationToken.None).Select(Describe).ToList();
        return Of(events, status);
    }

    /// <summary>Listed through the batches, each told value by value to a listing where it was decoded; the status is checked as each is handed on.</summary>
    private static Read Batched(XelFileSource source)
    {
        var status = new SourceStatus();
        var events = new List<string>();
        foreach (var batch in source.ReadXeEventBatches(status, () => new DescribedListing(), CancellationToken.None))
        {
            events.AddRange(batch.Events);

            // A batch's events are counted when it is handed on, not before or after.
            Assert.Equal(events.Count, status.Events);
        }

        return Of(events, status);
    }

    private static string Describe(XeEvent e) =>
        $"{e.Timestamp:O} {e.Name} {e.Package} {string.Join(";", e.Fields.Select(f => $"{f.Name}={f.Display}"))} {string.Join(";", e.Actions.Select(a => $"{a.Name}={a.Display}"))}";

    private static Read Of(List<string> events, SourceStatus status) =>
        new(events, status.Problems.Select(p => $"{p.Location}: {p.Message}").ToList(), status.Events, status.Unusable);

    // A parsed progress event prints its parse among its members.
    private static string Describe(TraceEvent traceEvent) => traceEvent.ToString();
}
