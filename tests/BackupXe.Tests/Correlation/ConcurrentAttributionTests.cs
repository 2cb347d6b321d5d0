using BackupXe.Core.Events;
using BackupXe.Core.Reporting;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Correlation;

/// <summary>
/// The same concurrent backups read twice: with session_id on every event, and with none (reader and writer
/// threads that do not carry it, docs/backup-internals.md#events-to-capture). Without it a verdict must be the one session_id gives,
/// or say that the waits could not be separated: never a bottleneck taken from another backup's waits.
/// </summary>
public class ConcurrentAttributionTests
{
    public static TheoryData<string, double> Offsets => new()
    {
        { "one after the other", 100 },
        { "side by side", 0 },
        { "overlapping by a few seconds", 57 },
    };

    [Theory]
    [MemberData(nameof(Offsets))]
    public void Verdicts_without_session_id_match_those_with_it_or_say_ambiguous(string layout, double secondStartSeconds)
    {
        // Given: Sales starved of buffers (many short BACKUPBUFFER waits), Hr held up by its device (long BACKUPIO)
        var script = new XeScript();
        BufferStarved(script, 0, 61, "Sales");
        DeviceBound(script, secondStartSeconds, 62, "Hr");

        // When
        var withSession = PipelineRun.Of(script.Events).Reports;
        var withoutSession = PipelineRun.Of(script.Events.Select(e => e with { SessionId = null })).Reports;

        // Then: session_id tells the two apart...
        Assert.Equal(Bottleneck.BufferStarved, Verdict(withSession, "Sales").Bottleneck);
        Assert.Equal(Bottleneck.BackupDevice, Verdict(withSession, "Hr").Bottleneck);

        // ...and without it each verdict is the same, or unknown because the waits were ambiguous.
        foreach (var database in new[] { "Sales", "Hr" })
        {
            var expected = Verdict(withSession, database);
            var actual = Verdict(withoutSession, database);
            Assert.True(
                actual.Bottleneck == expected.Bottleneck || (actual.Bottleneck == Bottleneck.Unknown && actual.Evidence[0].StartsWith("Ambiguous:", StringComparison.Ordinal)),
                $"{layout}: {database} was {actual.Bottleneck} ({string.Join(" ", actual.Evidence)}) without session_id, {expected.Bottleneck} with it");
        }

        if (secondStartSeconds >= 100)
        {
            Assert.All(withoutSession, op => Assert.Equal(0, op.AmbiguousWaits));
        }
        else if (secondStartSeconds == 0)
        {
            Assert.All(withoutSession, op => Assert.Equal(Bottleneck.Unknown, op.Verdict!.Bottleneck));
        }
    }

    private static Verdict Verdict(IReadOnlyList<OperationReport> reports, string database)
        => Assert.Single(reports, r => r.Database == database).Verdict!;

    // 60 s of copying: 2 threads x 60 s, BACKUPBUFFER 2 ms every 3 ms = 40 s (33%), BACKUPIO light.
    private static void BufferStarved(XeScript script, double start, int session, string database)
    {
        script.CompleteBackup(start, 60, session, database, $@"X:\{database}.bak");
        Waits(script, start, session, "BACKUPBUFFER", everyMs: 3, durationMs: 2);
        Waits(script, start, session, "BACKUPIO", everyMs: 200, durationMs: 2);
    }

    // 60 s of copying: BACKUPIO 40 ms every 60 ms = 40 s of one device thread's 60 s (66%), few buffer waits.
    private static void DeviceBound(XeScript script, double start, int session, string database)
    {
        script.CompleteBackup(start, 60, session, database, $@"Y:\{database}.bak");
        Waits(script, start, session, "BACKUPIO", everyMs: 60, durationMs: 40);
        Waits(script, start, session, "BACKUPBUFFER", everyMs: 500, durationMs: 3);
    }

    private static void Waits(XeScript script, double start, int session, string waitType, int everyMs, long durationMs)
    {
        for (var ms = 100; ms < 59_900; ms += everyMs)
        {
            script.Wait(start + (ms / 1000.0), session, waitType, durationMs);
        }
    }
}
