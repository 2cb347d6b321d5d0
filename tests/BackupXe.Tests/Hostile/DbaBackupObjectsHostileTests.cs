using BackupXe.Core.Events;
using BackupXe.Sources;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// dbatools' backup objects (PowerShell's list view) with values no msdb holds: each object is one located problem and
/// skipped, the good object after it is still an operation, and no figure overflows.
/// </summary>
public sealed class DbaBackupObjectsHostileTests
{
    private const string Good = "\r\nSqlInstance : SQL01\r\nDatabase    : Sales\r\nType        : Full\r\nTotalSize   : 100.00 GB\r\n"
        + "Start       : 2024-05-07 22:10:04.000\r\nEnd         : 2024-05-07 22:13:31.000\r\n\r\n";

    [Theory]
    [InlineData("TotalSize   : 99999999999.00 TB", "TotalSize '99999999999.00 TB' is not a size")]
    [InlineData("TotalSize   : -5.00 GB", "TotalSize '-5.00 GB' is not a size")]
    [InlineData("Start       : 0001-01-01 00:00:00.000", "unreadable Start '0001-01-01 00:00:00.000'")]
    [InlineData("End         : 2024-05-07 22:10:03.000", "unreadable Start")]
    public async Task A_value_msdb_cannot_hold_is_a_located_problem_and_the_next_object_is_analysed(string damaged, string problem)
    {
        // Given: the good object with one line replaced, then the good object again
        var name = damaged[..damaged.IndexOf(' ', StringComparison.Ordinal)];
        var lines = Good.Split("\r\n").Select(l => l.StartsWith(name + " ", StringComparison.Ordinal) ? damaged : l);
        using var input = TempInput.WithText(string.Join("\r\n", lines) + Good, Encodings.Utf8WithoutBom, "backup.txt");
        var source = InputSources.Open(input.Path);
        var status = new SourceStatus();
        var events = new List<TraceEvent>();

        // When
        await foreach (var traceEvent in source.ReadEventsAsync(status, CancellationToken.None))
        {
            events.Add(traceEvent);
        }

        // Then
        Assert.Equal("dbatools-backup-objects", source.Format);
        var located = Assert.Single(status.Problems);
        Assert.Equal("line 2", located.Location);
        Assert.Contains(problem, located.Message, StringComparison.Ordinal);
        var backup = Assert.Single(PipelineRun.Of(events).Reports);
        Assert.Equal(100L << 30, backup.BytesProcessed);
    }
}
