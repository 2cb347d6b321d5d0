using BackupXe.Cli.Commands;
using BackupXe.Cli.Rendering;
using BackupXe.Core.Events;
using BackupXe.Sources.Xel;
using BackupXe.Sources.XeEvents;
using BackupXe.Tests.Sources.Xel;
using Xunit;
using BackupXe.Testing.Xel;

namespace BackupXe.Tests.Cli.Rendering;

/// <summary>
/// A .xel listed buffer by buffer on the decoding threads gives the bytes of one event written after the other: the
/// same JSON Lines and CSV, the same problems, on the genuine capture and on generated rollover sets with damage.
/// </summary>
public sealed class EventListBatchesTests
{
    private static readonly byte[] Genuine = File.ReadAllBytes(Path.Combine(AppContext.BaseDirectory, "Fixtures", "xel", "TestXel_0.xel"));

    // The genuine file's event buffers start after its header and metadata.
    private const int GenuineEvents = 0x5000;

    public static TheoryData<string, string> Inputs() => new()
    {
        { "genuine", "jsonl" }, { "genuine", "csv" },
        { "genuine-set-cut", "jsonl" }, { "genuine-set-cut", "csv" },
        { "genuine-set-damaged", "jsonl" }, { "genuine-set-damaged", "csv" },
        { "wait-info-set", "jsonl" }, { "wait-info-set", "csv" },
        { "wait-info-set-damaged", "jsonl" }, { "wait-info-set-damaged", "csv" },
    };

    [Theory]
    [MemberData(nameof(Inputs))]
    public void Listing_buffers_where_they_decode_gives_the_bytes_and_problems_of_one_event_after_the_other(string input, string format)
    {
        // Given a capture: the genuine file, or a rollover set of the genuine buffers or of generated wait_info, cut or damaged
        var folder = Directory.CreateTempSubdirectory("backupxe-events-batches-");
        try
        {
            var paths = Write(input, folder.FullName);

            // When it is listed one event after the other, and buffer by buffer with eight buffers in flight
            var sequential = Sequential(new XelFileSource("set", paths) { BuffersInFlight = 0 }, format);
            var batched = Batched(new XelFileSource("set", paths) { BuffersInFlight = 8 }, format);
            var batchedOnOneCore = Batched(new XelFileSource("set", paths) { BuffersInFlight = 0 }, format);

            // Then the bytes, the problems and the counts are the same
            Assert.True(sequential.Bytes.Length > 10_000, $"{sequential.Bytes.Length} bytes listed");
            Assert.Equal(sequential, batched);
            Assert.Equal(sequential, batchedOnOneCore);
            Assert.Equal(input.EndsWith("damaged", StringComparison.Ordinal) || input.EndsWith("cut", StringComparison.Ordinal), sequential.Problems.Length > 0);
        }
        finally
        {
            folder.Delete(recursive: true);
        }
    }

    private static string[] Write(string input, string folder)
    {
        var files = input switch
        {
            "genuine" => [Genuine],
            "genuine-set-cut" => [Repeated(5), Repeated(3), Repeated(4)[..^7777]],
            // The event id of the first record of the third copy's first buffer (its header gives 0x4D as the data offset).
            "genuine-set-damaged" => [Repeated(2), Flipped(Repeated(6), GenuineEvents + (2 * (Genuine.Length - GenuineEvents)) + 0x4D), Repeated(1)],
            "wait-info-set" => WaitInfo(damaged: false),
            "wait-info-set-damaged" => WaitInfo(damaged: true),
            _ => throw new ArgumentOutOfRangeException(nameof(input)),
        };
        var paths = new string[files.Length];
        for (var i = 0; i < files.Length; i++)
        {
            paths[i] = Path.Combine(folder, $"set_0_{i + 1}.xel");
            File.WriteAllBytes(paths[i], files[i]);
        }

        return paths;
    }

    private static byte[] Repeated(int times) => [.. Genuine[..GenuineEvents], .. Enumerable.Repeat(Genuine[GenuineEvents..], times).SelectMany(b => b)];

    private static byte[][] WaitInfo(bool damaged)
    {
        var backup = BuiltBackupScenario.BufferStarved();
        var files = new byte[3][];
        for (var i = 0; i < files.Length; i++)
        {
            files[i] = XelTestWriter.File(BuiltBackupCatalogue.Create(), backup.Skip(i * 2000).Take(2000), out var layout, 16384);
            if (damaged && i == 1)
            {
                files[i] = Flipped(files[i], layout.EventBuffers[3].RecordOffsets[5]);
            }
        }

        return files;
    }

    private static byte[] Flipped(byte[] bytes, int at)
    {
        var copy = bytes.ToArray();
        copy[at] ^= 0x5A;
        return copy;
    }

    private sealed record Listing(byte[] Bytes, string[] Problems, long Count)
    {
        public bool Equals(Listing? other) =>
            other is not null && Bytes.AsSpan().SequenceEqual(other.Bytes) && Problems.SequenceEqual(other.Problems) && Count == other.Count;

        public override int GetHashCode() => Bytes.Length;

        public override string ToString() => $"{Bytes.Length} bytes, {Count} events, problems: {string.Join(" | ", Problems)}";
    }

    private static Listing Sequential(XelFileSource source, string format)
    {
        var (status, bytes, output, list) = Start(source, format);
        foreach (var xeEvent in source.ReadXeEvents(status, CancellationToken.None))
        {
            list.Write(xeEvent);
        }

        return Finish(status, bytes, output);
    }

    private static Listing Batched(XelFileSource source, string format)
    {
        var (status, bytes, output, list) = Start(source, format);
        var batches = new EventListBatches(format, Names(source), null);
        foreach (var part in source.ReadXeEventBatches(status, batches.Start, CancellationToken.None))
        {
            batches.CopyOut(part, output, new EventNames(), list);
        }

        return Finish(status, bytes, output);
    }

    private static (SourceStatus Status, MemoryStream Bytes, OutputBuffer Output, EventListWriter List) Start(XelFileSource source, string format)
    {
        var bytes = new MemoryStream();
        var output = new OutputBuffer(bytes);
        var list = EventListWriter.For(format, output, Names(source));
        list.Start();
        return (new SourceStatus(), bytes, output, list);
    }

    private static XeNames Names(XelFileSource source)
    {
        var names = new XeNames();
        source.AddNames(names, CancellationToken.None);
        return names;
    }

    private static Listing Finish(SourceStatus status, MemoryStream bytes, OutputBuffer output)
    {
        output.FlushAsync(CancellationToken.None).GetAwaiter().GetResult();
        return new Listing(bytes.ToArray(), [.. status.Problems.Select(p => $"{p.Location}: {p.Message}")], status.Events);
    }
}
