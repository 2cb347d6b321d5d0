using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// Captures cut short: at every record boundary and at odd byte offsets inside records. Whatever the cut, every
/// operation a clean capture of the same complete records reports as completed is still reported as completed,
/// and the invariants of <see cref="HostileRun"/> hold.
/// </summary>
public class TruncationTests(CleanAnalyses cleanRuns)
{
    public static TheoryData<string> Inputs => new(HostileCorpus.All.Select(input => input.Name));

    [Theory]
    [MemberData(nameof(Inputs))]
    public async Task A_cut_at_any_record_boundary_keeps_every_operation_completed_before_it(string name)
    {
        var input = HostileCorpus.All.Single(i => i.Name == name);
        for (var records = 0; records <= input.Records; records++)
        {
            // Given the capture cut right after a record, without its closing tag
            var offset = records == 0 ? input.Head.Length : input.RecordEnds[records - 1];

            // When
            var clean = await cleanRuns.OfAsync(input, records);
            var cut = await HostileRun.AnalyzeAsync(input.CutAt(offset), input.FileName);

            // Then
            var what = $"{name} cut after record {records} (offset {offset})";
            cut.AssertInvariants(what);
            cut.AssertKeeps(clean, what);
        }
    }

    [Theory]
    [MemberData(nameof(Inputs))]
    public async Task A_cut_inside_a_record_keeps_every_operation_completed_before_it_and_names_the_damage(string name)
    {
        var input = HostileCorpus.All.Single(i => i.Name == name);

        // Odd offsets (half a UTF-16 character, half a UTF-8 sequence) in every record, sampled with a fixed seed so
        // that a failure reproduces.
        var random = new Random(7);
        for (var records = 0; records < input.Records; records++)
        {
            var start = records == 0 ? input.Head.Length : input.RecordEnds[records - 1];
            var end = input.RecordEnds[records];
            if (end - start < 3)
            {
                continue;
            }

            var offset = start + 1 + random.Next((end - start - 2) / 2) * 2;
            offset |= 1;
            if (offset >= end)
            {
                continue;
            }

            // When
            var clean = await cleanRuns.OfAsync(input, records);
            var cut = await HostileRun.AnalyzeAsync(input.CutAt(offset), input.FileName);

            // Then
            var what = $"{name} cut inside record {records + 1} at offset {offset}";
            cut.AssertInvariants(what);
            cut.AssertKeeps(clean, what);
            if (name.StartsWith("xe", StringComparison.Ordinal) || IsUtf16(input))
            {
                // Half an XML element, or half a UTF-16 character, is visible damage: it must be said.
                Assert.True(cut.Problems.Count > 0, $"{what}: no problem reported");
            }
        }
    }

    [Fact]
    public async Task The_completed_backup_before_a_torn_event_stays_completed()
    {
        // Given the two-backup capture cut in the middle of the second backup's first event
        var input = HostileCorpus.XeXml;
        var firstOfSecond = input.Records / 2;
        var offset = input.RecordEnds[firstOfSecond - 1] + 40;

        // When
        var run = await HostileRun.AnalyzeAsync(input.CutAt(offset), input.FileName);

        // Then the first backup is complete and the damage is located
        var first = Assert.Single(run.Operations, o => o.Database == "SalesDB");
        Assert.Equal(Core.Reporting.OperationStatus.Completed, first.Status);
        Assert.Equal(2, run.ExitCode);
        Assert.StartsWith("line ", run.Problems[0].Location);
    }

    private static bool IsUtf16(CorpusInput input) => input.Head is [0xFF, 0xFE, ..];
}
