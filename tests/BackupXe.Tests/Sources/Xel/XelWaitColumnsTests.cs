using BackupXe.Core.Events;
using BackupXe.Sources.Xel;
using BackupXe.Sources.XeEvents;
using BackupXe.Testing.Xel;
using Xunit;

namespace BackupXe.Tests.Sources.Xel;

/// <summary>
/// A wait mapped from its columns' bytes gives what the general way gives: the same events, the same problems at the
/// same places, the same counts, for plain waits and for every value SQL Server cannot write.
/// </summary>
public sealed class XelWaitColumnsTests
{
    private static readonly DateTime Start = new(2024, 5, 1, 1, 30, 0, DateTimeKind.Utc);

    [Theory]
    [InlineData("wait_info")]
    [InlineData("wait_info_external")]
    public void The_built_metadata_gives_plain_wait_columns(string eventName)
    {
        var catalogue = BuiltBackupCatalogue.Create();
        var plans = XelPlans.Of(catalogue);
        var id = catalogue.Events.Single(e => e.Value.Name == eventName).Key;

        var wait = plans.Event(id)!.Wait;

        Assert.NotNull(wait);
        Assert.Equal("duration", wait.Duration.Name);
        Assert.Equal("wait_type", wait.WaitType.Name);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    [InlineData(5)]
    [InlineData(6)]
    public void Waits_read_from_their_bytes_give_what_the_general_way_gives(int seed)
    {
        // Given waits of every kind SQL Server writes and of values it cannot write: a duration or signal at, over or
        // far over the bound, an opcode or wait type the map does not name, no session, a Begin; some bytes flipped
        var random = new Random(seed);
        ulong[] durations = [0, 1, 2_300, (ulong)ServerRanges.MaxDurationMs, (ulong)ServerRanges.MaxDurationMs + 1, long.MaxValue, (ulong)long.MaxValue + 1, ulong.MaxValue];
        var events = new List<XeEvent>();
        for (var i = 0; i < 400; i++)
        {
            var name = BuiltBackupCatalogue.WaitNames[random.Next(BuiltBackupCatalogue.WaitNames.Count)].Value;
            var wait = BuiltBackupCatalogue.Wait(
                Start.AddMilliseconds(i * 7), random.Next(0, 3) == 0 ? 0 : random.Next(1, 65536), name,
                durations[random.Next(durations.Length)], durations[random.Next(durations.Length)], begin: random.Next(0, 4) == 0,
                external: random.Next(0, 5) == 0);
            events.Add(Vary(wait, random));
        }

        var bytes = XelTestWriter.File(BuiltBackupCatalogue.Create(), events, out _, 4096);
        for (var flips = random.Next(0, 4); flips > 0; flips--)
        {
            // After the file header and metadata, so that the file is still read as a .xel.
            bytes[random.Next(bytes.Length / 4, bytes.Length)] ^= (byte)random.Next(1, 256);
        }

        var folder = Directory.CreateTempSubdirectory("backupxe-wait-columns-");
        try
        {
            var path = Path.Combine(folder.FullName, "waits_0_1.xel");
            File.WriteAllBytes(path, bytes);

            // When
            var general = Read(new XelFileSource(path) { BuffersInFlight = 0, WaitShortcut = false });
            var shortcut = Read(new XelFileSource(path) { BuffersInFlight = 0 });

            // Then
            Assert.NotEmpty(general.Events);
            Assert.Equal(general, shortcut);
        }
        finally
        {
            folder.Delete(recursive: true);
        }
    }

    /// <summary>Now and then an opcode or wait type key the map lacks, or no session action.</summary>
    private static XeEvent Vary(XeEvent wait, Random random)
    {
        var fields = wait.Fields.Select(f => random.Next(0, 12) == 0 && f.Name is "opcode" or "wait_type"
            ? new XeValue(f.Name, f.Package, f.Type, 4242UL, null)
            : f).ToList();
        var actions = random.Next(0, 6) == 0 ? [] : wait.Actions;
        return wait with { Fields = fields, Actions = actions };
    }

    private static Result Read(XelFileSource source)
    {
        var status = new SourceStatus();
        var events = source.ReadEvents(status, CancellationToken.None).Select(e => e.ToString()).ToList();
        return new Result(events, [.. status.Problems.Select(p => $"{p.Location}: {p.Message}")], status.Events);
    }

    private sealed record Result(IReadOnlyList<string> Events, IReadOnlyList<string> Problems, long Count)
    {
        public bool Equals(Result? other) =>
            other is not null && Events.SequenceEqual(other.Events) && Problems.SequenceEqual(other.Problems) && Count == other.Count;

        public override int GetHashCode() => HashCode.Combine(Events.Count, Problems.Count, Count);
    }
}
