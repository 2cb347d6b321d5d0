using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
using BackupXe.Core.Reporting;
using BackupXe.Sources;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Sources.OlaOutput;

/// <summary>
/// Ola Hallengren's job output as an analyze input: the engine's messages make the operation, the command's own
/// "Date and time:" lines are the client's span, and a command that took far longer than its operation is
/// outside-the-operation. The outputs are built in CommandExecute's format (Support/OlaJobOutput) with the engine's
/// real restore lines (S13's pages and seconds).
/// </summary>
public sealed class OlaOutputAnalysisTests
{
    private static readonly DateTime Night = new(2024, 5, 1, 2, 0, 0);

    // S13's real completion and per-file lines, as CommandExecute prints the engine's messages of its RESTORE.
    private static OlaJobOutput RestoreOfTestDb(TimeSpan clientDuration, bool agentSuffix = false)
    {
        var output = new OlaJobOutput(agentSuffix: agentSuffix)
            .Raw("Date and time: 2024-05-01 02:00:00")
            .Raw("Database context: [master]")
            .Raw("Command: RESTORE DATABASE [TestDB] FROM DISK = N'X:\\b\\TestDB_FULL.bak' WITH REPLACE" + (agentSuffix ? " [SQLSTATE 01000]" : ""))
            .Raw("Processed 292888 pages for database 'TestDB', file 'TestDB' on file 1." + (agentSuffix ? " [SQLSTATE 01000]" : ""))
            .Raw("Processed 6 pages for database 'TestDB', file 'TestDB_log' on file 1." + (agentSuffix ? " [SQLSTATE 01000]" : ""))
            .Raw("RESTORE DATABASE successfully processed 292894 pages in 23.265 seconds (98.355 MB/sec)." + (agentSuffix ? " [SQLSTATE 01000]" : ""))
            .Raw("Outcome: Succeeded")
            .Raw($"Duration: {clientDuration:hh\\:mm\\:ss}")
            .Raw($"Date and time: {Night + clientDuration:yyyy-MM-dd HH:mm:ss}")
            .Raw("\t");
        return output;
    }

    private static async Task<(OperationReport Report, string Format)> AnalyseOneAsync(string text)
    {
        using var input = TempInput.WithText(text, Encodings.Utf8WithoutBom, "job.txt");
        var source = InputSources.Open(input.Path);
        var report = Assert.Single((await PipelineRun.OfAsync(source)).Reports);
        return (report, source.Format);
    }

    [Fact]
    public async Task A_restore_of_23_s_inside_a_command_of_ten_minutes_is_outside_the_operation()
    {
        // Given: the engine restored in 23.265 s; the job's command ran 02:00:00 to 02:10:05
        var text = RestoreOfTestDb(new TimeSpan(0, 10, 5)).ToString();

        // When
        var (restore, format) = await AnalyseOneAsync(text);

        // Then: 605 - 23.265 = 581.735 s outside, 96%
        Assert.Equal("ola-output", format);
        Assert.Equal(OperationKind.Restore, restore.Kind);
        Assert.Equal("TestDB", restore.Database);
        Assert.Equal(23.265, restore.DurationSeconds);
        Assert.Equal(new ClientCommandReport(Night, Night.AddSeconds(605), 605, 1, "Ola Hallengren's job output, to the second"), restore.ClientCommand);
        var verdict = restore.Verdict!;
        Assert.Equal(Bottleneck.OutsideTheOperation, verdict.Bottleneck);
        Assert.Equal(Confidence.High, verdict.Confidence);
        Assert.Equal("the client's span against the server's operation", verdict.DecidedBy);
        Assert.Contains("The restore took 23.3 s on the server (the engine's own figure) while the client's command took 605.0 s, 00:10:05 "
            + "(Ola Hallengren's job output, to the second: 02:00:00 to 02:10:05): 581.7 s (96%) of it was spent outside the restore.", verdict.Evidence);
        Assert.Contains(verdict.Evidence, e => e.Contains("RESTORE's exclusive access to the database", StringComparison.Ordinal));
        Assert.Empty(restore.Recommendations);
    }

    [Fact]
    public async Task Reads_the_same_through_SQL_Agents_SQLSTATE_suffixes()
    {
        // Given: a T-SQL job step's output, each message ending " [SQLSTATE 01000]"
        var text = RestoreOfTestDb(new TimeSpan(0, 10, 5), agentSuffix: true).ToString();

        // When
        var (restore, _) = await AnalyseOneAsync(text);

        // Then
        Assert.Equal(Bottleneck.OutsideTheOperation, restore.Verdict!.Bottleneck);
        Assert.Equal(2_399_387_648, restore.BytesProcessed);
    }

    [Fact]
    public async Task A_command_as_long_as_its_operation_is_judged_on_the_operation()
    {
        // Given: 42 s on the client's clock around 41.5 s on the server's
        var text = new OlaJobOutput()
            .Command(Night, TimeSpan.FromSeconds(42), "BACKUP DATABASE [Sales] TO DISK = N'X:\\b\\Sales_FULL.bak' WITH CHECKSUM, COMPRESSION", pages: 1_310_720, engineSeconds: 41.5)
            .ToString();

        // When
        var (backup, _) = await AnalyseOneAsync(text);

        // Then: only totals, so cannot tell; the span is still reported
        Assert.Equal(42, backup.ClientCommand!.Seconds);
        Assert.Equal(Bottleneck.CannotTell, backup.Verdict!.Bottleneck);
    }

    [Theory]
    [InlineData(34, Bottleneck.NotAThroughputProblem)] // 29 s outside: under OutsideOperationSeconds
    [InlineData(35, Bottleneck.OutsideTheOperation)] // 30 s outside, 86%
    public async Task Needs_30_s_outside_before_it_blames_the_outside(int clientSeconds, Bottleneck expected)
    {
        // Given: a 5-second backup
        var text = new OlaJobOutput()
            .Command(Night, TimeSpan.FromSeconds(clientSeconds), "BACKUP DATABASE [Sales] TO DISK = N'X:\\b\\Sales_FULL.bak'", pages: 12_800, engineSeconds: 5)
            .ToString();

        // When
        var (backup, _) = await AnalyseOneAsync(text);

        // Then
        Assert.Equal(expected, backup.Verdict!.Bottleneck);
    }

    [Fact]
    public async Task Shares_under_the_threshold_leave_the_verdict_to_the_operation()
    {
        // Given: 40 s outside a 60 s backup: 40% of the 100 s command, under OutsideOperationShare
        var text = new OlaJobOutput()
            .Command(Night, TimeSpan.FromSeconds(100), "BACKUP DATABASE [Sales] TO DISK = N'X:\\b\\Sales_FULL.bak'", pages: 1_310_720, engineSeconds: 60)
            .ToString();

        // When
        var (backup, _) = await AnalyseOneAsync(text);

        // Then
        Assert.NotEqual(Bottleneck.OutsideTheOperation, backup.Verdict!.Bottleneck);
    }

    [Fact]
    public async Task A_failed_command_without_engine_messages_is_an_operation_known_from_the_client_only()
    {
        // Given: the device could not be opened; the output has no engine message of the backup
        var text = new OlaJobOutput()
            .Command(Night, TimeSpan.FromSeconds(3), "BACKUP LOG [Sales] TO DISK = N'X:\\b\\Sales_LOG.trn' WITH CHECKSUM", outcome: "Failed",
                error: "Cannot open backup device 'X:\\b\\Sales_LOG.trn'. Operating system error 112(There is not enough space on the disk.).")
            .ToString();

        // When
        var (backup, _) = await AnalyseOneAsync(text);

        // Then
        Assert.Equal(OperationStatus.Failed, backup.Status);
        Assert.Equal("Sales", backup.Database);
        Assert.Equal(3, backup.ClientCommand!.Seconds);
        Assert.Null(backup.DurationSeconds);
    }

    [Fact]
    public void Its_thresholds_are_validated()
    {
        var problems = new DiagnosisSettings { OutsideOperationShare = 1.5, OutsideOperationSeconds = -1 }.Validate();

        Assert.Contains(problems, p => p.StartsWith("OutsideOperationShare", StringComparison.Ordinal));
        Assert.Contains(problems, p => p.StartsWith("OutsideOperationSeconds", StringComparison.Ordinal));
    }
}
