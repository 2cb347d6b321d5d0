using BackupXe.Core.Events;
using BackupXe.Core.Reporting;
using BackupXe.Sources;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Sources;

/// <summary>
/// One file, several wrappers: SQL Server on Linux sends its ERRORLOG to standard output, so `docker logs` and journald
/// pass its lines on (with their own prefixes), and a container's entry script's sqlcmd output lands among them. Each
/// line is read by its content: a client's line is never glued to the ERRORLOG message above it.
/// </summary>
public sealed class MixedWrapperTests
{
    private const string History = "Database backed up. Database: Sales, creation date(time): 2024/05/01(09:59:01), pages dumped: 473, first LSN: 37:112:37, "
        + "last LSN: 37:136:1, number of dump devices: 1, device information: (FILE=1, TYPE=DISK: {'/var/opt/mssql/backup/Sales.bak'}). "
        + "This is an informational message only. No user action is required.";

    private const string Completion = "BACKUP DATABASE successfully processed 466 pages in 0.069 seconds (52.734 MB/sec).";

    // The ERRORLOG lines of the container, then sqlcmd's lines of the backup, then the ERRORLOG again.
    private static string Stream(Func<string, string> errorlogLine, Func<string, string> clientLine) => string.Join("\n",
        errorlogLine("2024-05-01 10:02:10.45 spid51      Setting database option RECOVERY to FULL for database 'Sales'."),
        errorlogLine("2024-05-01 10:02:11.80 Backup      " + History),
        clientLine("Processed 464 pages for database 'Sales', file 'Sales' on file 1."),
        clientLine("Processed 2 pages for database 'Sales', file 'Sales_log' on file 1."),
        clientLine(Completion),
        errorlogLine("2024-05-01 10:02:12.01 spid52      Using 'dbghelp.dll' version '4.0.5'")) + "\n";

    private static async Task<(IReadOnlyList<OperationReport> Reports, string Format, SourceRun Run)> AnalyseAsync(string text)
    {
        using var input = TempInput.WithText(text, Encodings.Utf8WithoutBom, "docker.log");
        var run = await SourceRun.ReadAsync(InputSources.Open(input.Path));
        var source = InputSources.Open(input.Path);
        var reports = (await PipelineRun.OfAsync(source)).Reports;
        return (reports, source.Format, run);
    }

    public static TheoryData<string, string> Collectors() => new()
    {
        { "docker logs", Stream(l => l, l => l) },
        { "docker logs -t", Stream(l => "2024-05-01T10:02:11.801234567Z " + l, l => "2024-05-01T10:02:11.812345678Z " + l) },
        { "journalctl", Stream(l => "May 01 10:02:11 sqlhost sqlservr[2101]: " + l, l => l) },
    };

    [Theory]
    [MemberData(nameof(Collectors))]
    public async Task The_client_completion_line_joins_the_backup_and_is_never_glued_to_the_errorlog_line(string collector, string text)
    {
        // Given: the stream as the collector passes it on
        // When
        var (reports, format, run) = await AnalyseAsync(text);

        // Then: read as an ERRORLOG whose history line stays whole, and the client's completion line is its own message
        Assert.Equal("errorlog", format);
        Assert.Contains(run.Progress, p => p.Message == History);
        Assert.Contains(run.Progress, p => p.Message == Completion);
        Assert.DoesNotContain(run.Progress, p => p.Message.Contains('\n', StringComparison.Ordinal));
        Assert.Empty(run.Status.Problems);
        var backup = Assert.Single(reports);
        Assert.Equal((OperationKind.Backup, "Sales", OperationStatus.Completed), (backup.Kind, backup.Database, backup.Status));
        Assert.Equal((466L, 0.069), (backup.EngineSummary!.Pages, backup.EngineSummary.Seconds));
        Assert.True(collector.Length > 0);
    }

    [Fact]
    public async Task A_client_error_block_among_the_errorlog_lines_fails_the_backup_it_names()
    {
        // Given: sqlcmd's Msg block of a refused log backup between two ERRORLOG lines
        var text = string.Join("\n",
            "2024-05-01 10:02:10.45 spid51      Setting database option RECOVERY to SIMPLE for database 'Sales'.",
            "Msg 4208, Level 16, State 1, Server sql1, Line 1",
            "The statement BACKUP LOG is not allowed while the recovery model is SIMPLE. Use BACKUP DATABASE or change the recovery model using ALTER DATABASE.",
            "Msg 3013, Level 16, State 1, Server sql1, Line 1",
            "BACKUP LOG is terminating abnormally.",
            "2024-05-01 10:02:12.01 spid52      Using 'dbghelp.dll' version '4.0.5'") + "\n";

        // When
        var (reports, _, _) = await AnalyseAsync(text);

        // Then
        var backup = Assert.Single(reports);
        Assert.Equal((OperationKind.Backup, OperationScope.Log, OperationStatus.Failed), (backup.Kind, backup.Scope, backup.Status));
        Assert.Equal(4208, backup.FailureError!.Number);
    }
}
