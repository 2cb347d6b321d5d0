using BackupXe.Core.Events;
using BackupXe.Core.Reporting;
using BackupXe.Sources;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Sources.ClientOutput;

/// <summary>SQL Server 2000's STATS wording, "N percent restored.", which names the operation's kind.</summary>
public sealed class OldWordingTests
{
    [Fact]
    public async Task Percent_restored_to_100_with_no_completion_line_is_a_restore_still_recovering_or_cut()
    {
        // Given: Query Analyzer's messages of a SQL Server 2000 restore, taken before its completion line
        const string text = "10 percent restored.\r\n20 percent restored.\r\n50 percent restored.\r\n90 percent restored.\r\n100 percent restored.\r\n";
        using var input = TempInput.WithText(text, Encodings.Utf8WithoutBom, "qa.txt");
        var source = InputSources.Open(input.Path);

        // When
        var run = await SourceRun.ReadAsync(InputSources.Open(input.Path));
        var reports = (await PipelineRun.OfAsync(source)).Reports;

        // Then: a restore, not "nothing found", and the input says why it has no end
        Assert.Equal("client-output", source.Format);
        var restore = Assert.Single(reports);
        Assert.Equal((OperationKind.Restore, OperationStatus.Incomplete), (restore.Kind, restore.Status));
        Assert.False(run.Status.Unusable);
        Assert.Contains(run.Status.Problems, p => p.Message.Contains("'100 percent restored.' with no completion line", StringComparison.Ordinal)
            && p.Message.Contains("still recovering", StringComparison.Ordinal));
    }
}
