using BackupXe.Core.Diagnosis;
using BackupXe.Core.Events;
using BackupXe.Core.Rendering;
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
    public async Task A_verifyonly_after_the_backup_is_listed_as_its_verification_and_the_jobs_time_is_accounted()
    {
        // Given: a full backup of 10 minutes, then RESTORE VERIFYONLY of its file for 4 minutes, 5 s apart
        var text = new OlaJobOutput()
            .Raw("Date and time: 2024-05-01 02:00:00")
            .Raw("Database context: [master]")
            .Raw("Command: BACKUP DATABASE [Sales] TO DISK = N'X:\\b\\Sales_FULL.bak' WITH CHECKSUM, COMPRESSION")
            .Raw("Processed 292888 pages for database 'Sales', file 'Sales' on file 1.")
            .Raw("Processed 6 pages for database 'Sales', file 'Sales_log' on file 1.")
            .Raw("BACKUP DATABASE successfully processed 292894 pages in 598.000 seconds (3.826 MB/sec).")
            .Raw("Outcome: Succeeded")
            .Raw("Duration: 00:10:00")
            .Raw("Date and time: 2024-05-01 02:10:00")
            .Raw("\t")
            .Raw("Date and time: 2024-05-01 02:10:05")
            .Raw("Database context: [master]")
            .Raw("Command: RESTORE VERIFYONLY FROM DISK = N'X:\\b\\Sales_FULL.bak' WITH CHECKSUM")
            .Raw("The backup set on file 1 is valid.")
            .Raw("Outcome: Succeeded")
            .Raw("Duration: 00:04:00")
            .Raw("Date and time: 2024-05-01 02:14:05")
            .ToString();
        using var input = TempInput.WithText(text, Encodings.Utf8WithoutBom, "job.txt");

        // When
        var run = await BackupXe.Tests.Cli.CliRun.RunAsync("analyze", input.Path, "--format", "json");

        // Then: one operation, the backup; the verification and the job's time are findings of the input
        Assert.Equal(0, run.ExitCode);
        using var json = System.Text.Json.JsonDocument.Parse(run.Output);
        var operation = Assert.Single(json.RootElement.GetProperty("operations").EnumerateArray());
        Assert.Equal("backup", operation.GetProperty("kind").GetString());
        var findings = json.RootElement.GetProperty("findings").EnumerateArray().Select(f => f.GetProperty("location").GetString() + ": " + f.GetProperty("message").GetString()).ToList();
        Assert.Contains("line 23: RESTORE VERIFYONLY of Sales_FULL.bak: the job's verification of a backup, not a restore: succeeded in 4 min 00 s (02:10:05 to 02:14:05)", findings);
        Assert.Contains("line 2: the job's commands ran from 2024-05-01 02:00:00 to 2024-05-01 02:14:05 (14 min 05 s): 1 backup or restore command 10 min 00 s, "
            + "1 verification (RESTORE VERIFYONLY) 4 min 00 s, between and around the commands (the procedure's own checks and clean-up, which no command line times) 5 s", findings);
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

/// <summary>The options and stripes of the job's own "Command:" join the operation, as requested.</summary>
public sealed class OlaRequestedOptionsTests
{
    private static readonly DateTime Night = new(2024, 5, 1, 2, 0, 0);

    private const string Striped = "BACKUP DATABASE [Sales] TO DISK = N'X:\\b\\Sales_1.bak', DISK = N'Y:\\b\\Sales_2.bak', DISK = N'Z:\\b\\Sales_3.bak' "
        + "WITH CHECKSUM, COMPRESSION, BUFFERCOUNT = 64, MAXTRANSFERSIZE = 4194304, BLOCKSIZE = 65536";

    [Fact]
    public async Task A_striped_backup_reports_the_devices_and_options_its_command_asked_for()
    {
        // Given: a backup's engine lines inside CommandExecute's block, the command naming three stripes and its buffers
        var text = new OlaJobOutput().Command(Night, TimeSpan.FromSeconds(30), Striped, pages: 292_894, engineSeconds: 23.265).ToString();
        using var input = TempInput.WithText(text, Encodings.Utf8WithoutBom, "job.txt");

        // When
        var backup = Assert.Single((await PipelineRun.OfAsync(InputSources.Open(input.Path))).Reports);

        // Then
        var requested = backup.Requested!;
        Assert.Equal([@"X:\b\Sales_1.bak", @"Y:\b\Sales_2.bak", @"Z:\b\Sales_3.bak"], requested.Devices);
        Assert.Equal(new RequestedReport(requested.Devices, 64, 4_194_304, 65536, true, true, false, "the job's command"), requested);
        var fact = Assert.Single(ReportFacts.Summary(backup), f => f.Label == "Requested");
        Assert.Equal(@"3 devices: X:\b\Sales_1.bak, Y:\b\Sales_2.bak, Z:\b\Sales_3.bak; BUFFERCOUNT 64, MAXTRANSFERSIZE 4 MB, BLOCKSIZE 65536, COMPRESSION, CHECKSUM, "
            + "as requested by the job's command", fact.Value);
        Assert.Contains("\"requested\":", ReportJson.Serialize(backup), StringComparison.Ordinal);
    }

    [Fact]
    public void The_diagnosis_reads_the_requested_buffers_and_stripes_when_the_server_named_none()
    {
        // Given: the published buffer-starved run without the server's devices and buffer block, its command known
        var operation = DiagnosisOperations.PublishedBufferTest(1) with
        {
            Devices = [],
            BufferConfig = null,
            Requested = new RequestedReport([@"E:\backup\tpch_1.bak", @"F:\backup\tpch_2.bak"], 7, 1024 * 1024, null, true, null, false, "the job's command"),
        };

        // When
        var diagnosis = new BackupDiagnostician().Diagnose(operation);

        // Then: two device threads, 7 x 1 MB as requested, and the remedy's T-SQL on the job's own stripes
        Assert.Contains("7 buffers x 1 MB = 7 MB of buffer memory as the job's command requested (the server's own figure was not captured).",
            diagnosis.Verdict.Evidence.Select(e => e.Replace(": small, below 64 MB per device.", ".", StringComparison.Ordinal)));
        Assert.DoesNotContain(diagnosis.Verdict.Evidence, e => e.Contains("1 assumed", StringComparison.Ordinal) && e.Contains("device", StringComparison.Ordinal));
        var raise = Assert.Single(diagnosis.Recommendations, r => r.Id == RecommendationIds.RaiseBuffers);
        Assert.Contains(@"DISK = N'E:\backup\tpch_1.bak'", raise.Tsql);
        Assert.Contains(@"DISK = N'F:\backup\tpch_2.bak'", raise.Tsql);
    }
}

/// <summary>A job history excerpt that starts mid-command: no "Date and time:" before its first "Command:".</summary>
public sealed class OlaExcerptTests
{
    [Fact]
    public async Task A_command_without_its_opening_line_is_still_an_operation_without_a_client_span()
    {
        // Given: the excerpt starts at a command's "Command:" line, its "Date and time:" and the job's header cut; the next command is whole
        var whole = new OlaJobOutput().Command(new DateTime(2024, 5, 1, 2, 0, 0), TimeSpan.FromSeconds(30),
            "BACKUP DATABASE [Sales] TO DISK = N'X:\\b\\Sales.bak' WITH CHECKSUM", pages: 292_894, engineSeconds: 23.265).ToString();
        var text = "Command: BACKUP LOG [Sales] TO DISK = N'X:\\b\\Sales.trn'\r\n"
            + "Processed 9 pages for database 'Sales', file 'Sales_log' on file 1.\r\n"
            + "BACKUP LOG successfully processed 9 pages in 0.045 seconds (1.562 MB/sec).\r\n"
            + "Outcome: Succeeded\r\nDuration: 00:00:01\r\n\t\r\n"
            + whole[whole.IndexOf("Date and time: 2024-05-01 02:00:00", StringComparison.Ordinal)..];
        using var input = TempInput.WithText(text, Encodings.Utf8WithoutBom, "job.txt");
        var source = InputSources.Open(input.Path);

        // When
        var reports = (await PipelineRun.OfAsync(source)).Reports;

        // Then: the log backup from its engine lines (no client span), the full backup with its span
        Assert.Equal("ola-output", source.Format);
        Assert.Equal(2, reports.Count);
        var log = Assert.Single(reports, r => r.Scope == Core.Events.OperationScope.Log);
        Assert.Equal(("Sales", 1.562), (log.Database, log.ThroughputMBps!.Value));
        Assert.Null(log.ClientCommand);
        Assert.NotNull(Assert.Single(reports, r => r.Scope == Core.Events.OperationScope.Database).ClientCommand);
    }
}
