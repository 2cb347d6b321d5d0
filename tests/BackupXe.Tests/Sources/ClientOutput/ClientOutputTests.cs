using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using BackupXe.Sources;
using BackupXe.Sources.ClientOutput;
using BackupXe.Sources.Formats;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Sources.ClientOutput;

/// <summary>
/// What SSMS, sqlcmd and Agent job steps print, built from the real lines of Fixtures/realworld/S13 and the
/// message formats of docs/backup-internals.md#input-formats.
/// </summary>
public static class ClientOutputTests
{
    // A backup as SSMS prints it with STATS = 50 (the AdventureWorks2014 numbers of S05), then a log backup.
    private const string TwoBackups =
        "50 percent processed.\r\n"
        + "100 percent processed.\r\n"
        + "Processed 24264 pages for database 'AdventureWorks2014', file 'AdventureWorks2014_Data' on file 1.\r\n"
        + "Processed 2 pages for database 'AdventureWorks2014', file 'AdventureWorks2014_Log' on file 1.\r\n"
        + "BACKUP DATABASE successfully processed 24266 pages in 1.414 seconds (134.067 MB/sec).\r\n"
        + "Processed 3 pages for database 'AdventureWorks2014', file 'AdventureWorks2014_Log' on file 2.\r\n"
        + "BACKUP LOG successfully processed 3 pages in 0.010 seconds (2.343 MB/sec).\r\n";

    // SQL Server 2022 restoring a 2019 (version 904) database: the upgrade steps follow the copy.
    private const string UpgradedRestore =
        "Processed 63448 pages for database 'WideWorldImporters', file 'WWI_Primary' on file 1.\r\n"
        + "Processed 9 pages for database 'WideWorldImporters', file 'WWI_Log' on file 1.\r\n"
        + "Converting database 'WideWorldImporters' from version 904 to the current version 957.\r\n"
        + "Database 'WideWorldImporters' running the upgrade step from version 904 to version 905.\r\n"
        + "Database 'WideWorldImporters' running the upgrade step from version 905 to version 906.\r\n"
        + "RESTORE DATABASE successfully processed 63457 pages in 2.048 seconds (242.063 MB/sec).\r\n";

    public class Recognition
    {
        private static FormatMatch Judge(string text) =>
            new ClientOutputFormat().Recognise(new InputPrefix(System.Text.Encoding.UTF8.GetBytes(text), isWholeInput: true));

        [Fact]
        public void Is_strong_when_the_output_opens_with_an_engine_line()
        {
            Assert.Equal(MatchStrength.Strong, Judge(TwoBackups).Strength);
        }

        [Fact]
        public void Is_weak_for_a_job_step_whose_own_text_comes_first()
        {
            // Given: an Agent job step's output with its header before the engine's lines
            var text = "Job 'Nightly backups' : Step 1, 'Full' : Began Executing 2024-05-01 01:00:00\r\n\r\n" + TwoBackups;

            // Then
            Assert.Equal(MatchStrength.Weak, Judge(text).Strength);
        }

        [Fact]
        public void Does_not_claim_an_errorlog()
        {
            var text = "2014-09-10 18:10:48.95 spid51      BACKUP DATABASE successfully processed 24266 pages in 1.414 seconds (134.067 MB/sec).\r\n";
            Assert.False(Judge(text).IsMatch);
        }

        [Fact]
        public void Is_the_format_chosen_for_the_real_S13_output()
        {
            var source = InputSources.Open(Fixture.RealWorld("S13_sqlworkday_2012_restore_stats_output.txt"));
            Assert.Equal("client-output", source.Format);
        }
    }

    public class Operations
    {
        private static async Task<IReadOnlyList<OperationReport>> AnalyseAsync(string text)
        {
            using var input = TempInput.WithText(text, Encodings.Utf8WithoutBom, "messages.txt");
            return (await PipelineRun.OfAsync(InputSources.Open(input.Path))).Reports;
        }

        // A DatabaseBackup job step's output: Ola's header (its lines as olahallengren issue 190 and 193 show them), then the
        // 924 that stopped it before any backup (realworld4 V28's lines, the procedure named as a job step names it).
        private const string OlaStepStoppedBySingleUser =
            "Date and time: 2021-04-29 23:38:56\r\n"
            + "Server: SQLSERVER\\INSTANCE\r\n"
            + "Version: 15.0.4083.2\r\n"
            + "Edition: Enterprise Edition: Core-based Licensing (64-bit)\r\n"
            + "Platform: Windows\r\n"
            + "Procedure: [DBATools].[dbo].[DatabaseBackup]\r\n"
            + "Parameters: @Databases = 'USER_DATABASES', @BackupType = 'FULL'\r\n"
            + "\r\n"
            + "Msg 924, Level 14, State 1, Procedure DatabaseBackup, Line 2894\r\n"
            + "Database 'SingleUser' is already open and can only have one user at a time.\r\n";

        [Fact]
        public async Task A_job_steps_header_then_an_error_that_stopped_it_is_a_backup_that_never_started()
        {
            // Given: the job's own lines first, then only the 924
            using var input = TempInput.WithText(OlaStepStoppedBySingleUser, Encodings.Utf8WithoutBom, "job-step.txt");
            var source = InputSources.Open(input.Path);

            // When
            var run = await PipelineRun.OfAsync(source);

            // Then: client output, read whole; a failed backup of SingleUser that never started
            Assert.Equal("client-output", source.Format);
            var backup = Assert.Single(run.Reports);
            Assert.Equal((OperationKind.Backup, "SingleUser", OperationStatus.Failed), (backup.Kind, backup.Database, backup.Status));
            Assert.Equal((924, (CopyStage?)CopyStage.NotStarted), (backup.FailureError!.Number, backup.FailureError.Stage));
        }

        [Theory]
        [InlineData("Msg 924, Level 14, State 1, Line 20", "Database 'SingleUser' is already open and can only have one user at a time.", "SingleUser", "single-user-held")]
        [InlineData("Msg 916, Level 14, State 1, Line 1", "The server principal \"usernama\" is not able to access the database \"dbname\" under the current security context.", "dbname", "no-database-access")]
        [InlineData("Msg 911, Level 16, State 1, Line 1", "Database 'Sales2' does not exist. Make sure that the name is entered correctly.", "Sales2", "database-not-found")]
        [InlineData("Msg 229, Level 14, State 5, Line 1", "The EXECUTE permission was denied on the object 'DatabaseBackup', database 'master', schema 'dbo'.", null, "object-permission")]
        public async Task An_error_that_stopped_the_work_alone_is_an_operation_that_never_started_with_its_database_and_remedy(string header, string text, string? database, string remedy)
        {
            // Given / When: the Msg block alone (V29's form; 916's sentence is dbatools issue 10064's, 911's Microsoft's list's)
            var reports = await AnalyseAsync(header + "\r\n" + text + "\r\n");

            // Then: failed, of a kind the output does not say, never started
            var operation = Assert.Single(reports);
            Assert.Equal((OperationKind.Unknown, database, OperationStatus.Failed), (operation.Kind, operation.Database, operation.Status));
            Assert.Equal(((CopyStage?)CopyStage.NotStarted, remedy), (operation.FailureError!.Stage, operation.FailureError.Remedy?.Id));
            Assert.Contains("No backup or restore ran:", operation.Verdict!.Evidence[0], StringComparison.Ordinal);
        }

        [Fact]
        public async Task Execute_denied_on_olas_DatabaseBackup_is_a_backup_that_never_started_with_the_grant_to_make()
        {
            // Given / When: the job step's one error block, its header naming the procedure (as V28's does)
            var reports = await AnalyseAsync("Msg 229, Level 14, State 5, Procedure DatabaseBackup, Line 1\r\n"
                + "The EXECUTE permission was denied on the object 'DatabaseBackup', database 'master', schema 'dbo'.\r\n");

            // Then: a backup, of no database (master holds the procedure; the database backed up is not said), never started
            var operation = Assert.Single(reports);
            Assert.Equal((OperationKind.Backup, (string?)null, OperationStatus.Failed), (operation.Kind, operation.Database, operation.Status));
            Assert.Equal((229, (CopyStage?)CopyStage.NotStarted, "object-permission"),
                (operation.FailureError!.Number, operation.FailureError.Stage, operation.FailureError.Remedy?.Id));

            // And the verdict does not say the database could not be used: the procedure could not be run
            Assert.Contains("No backup ran: the work stopped before any BACKUP began", operation.Verdict!.Evidence[0], StringComparison.Ordinal);
            Assert.DoesNotContain("database could not be used", operation.Verdict.Evidence[0], StringComparison.Ordinal);
        }

        [Theory]
        [InlineData("BACKUP DATABASE", OperationKind.Backup, "Sales", "backup-permission")]
        [InlineData("BACKUP LOG", OperationKind.Backup, "Sales", "backup-permission")]
        [InlineData("CREATE DATABASE", OperationKind.Restore, null, "restore-permission")]
        public async Task A_refused_permission_fails_the_command_before_any_data_moved_with_the_grant_to_make(string permission, OperationKind kind, string? database, string remedy)
        {
            // Given sqlcmd's two blocks for a BACKUP, or a RESTORE of a new database, refused at its permission check (262,
            // then 3013 as the server ends the command); a refused CREATE DATABASE names master, not the restore's database
            var statement = kind == OperationKind.Backup ? permission : "RESTORE DATABASE";
            var where = permission == "CREATE DATABASE" ? "master" : "Sales";
            var output = $"Msg 262, Level 14, State 1, Server SQL01, Line 1\r\n{permission} permission denied in database '{where}'.\r\n"
                + $"Msg 3013, Level 16, State 1, Server SQL01, Line 1\r\n{statement} is terminating abnormally.\r\n";

            // When
            var reports = await AnalyseAsync(output);

            // Then
            var operation = Assert.Single(reports);
            Assert.Equal((kind, database, OperationStatus.Failed), (operation.Kind, operation.Database, operation.Status));
            Assert.Equal((262, (int?)14, (CopyStage?)CopyStage.BeforeCopy, remedy),
                (operation.FailureError!.Number, operation.FailureError.Severity, operation.FailureError.Stage, operation.FailureError.Remedy?.Id));
        }

        [Fact]
        public async Task Become_one_report_per_completion_line_with_pages_per_file_and_throughput()
        {
            // Given / When
            var reports = await AnalyseAsync(TwoBackups);

            // Then
            Assert.Equal(2, reports.Count);
            var full = reports[0];
            Assert.Equal((OperationKind.Backup, OperationScope.Database, "AdventureWorks2014"), (full.Kind, full.Scope, full.Database));
            Assert.Equal(1.414, full.DurationSeconds);
            Assert.Equal(134.067, full.ThroughputMBps);
            Assert.Equal(2, full.ProcessedFiles.Count);
            Assert.Equal(24264, full.ProcessedFiles[0].Pages);
            Assert.Null(full.Start);

            var log = reports[1];
            Assert.Equal((OperationKind.Backup, OperationScope.Log), (log.Kind, log.Scope));
            Assert.Equal(3 * 8192, log.BytesProcessed);
            Assert.Equal("AdventureWorks2014_Log", Assert.Single(log.ProcessedFiles).LogicalFile);
        }

        [Fact]
        public async Task Count_the_2022_upgrade_steps_after_a_restores_copy()
        {
            // Given / When
            var restore = Assert.Single(await AnalyseAsync(UpgradedRestore));

            // Then
            Assert.Equal(OperationKind.Restore, restore.Kind);
            Assert.Equal("WideWorldImporters", restore.Database);
            Assert.Equal(2, restore.UpgradeSteps);
            Assert.Empty(restore.UpgradeGaps);
            Assert.Equal(63457L * 8192, restore.BytesProcessed);
        }

        [Fact]
        public async Task Say_as_a_fact_about_the_numbers_that_a_completion_line_does_not_fit_together_and_keep_its_rate()
        {
            // Given: S13's line with other seconds (292,894 pages in 46.53 s is 49.2 MB/s, not 98.355): no rounding explains it
            var text = "RESTORE DATABASE successfully processed 292894 pages in 46.530 seconds (98.355 MB/sec).\r\n";

            // When
            var restore = Assert.Single(await AnalyseAsync(text));

            // Then: the printed rate stays the reported figure; nothing is said about how the line came to be
            Assert.Equal(98.355, restore.ThroughputMBps);
            var check = Assert.Single(restore.Verdict!.Evidence, e => e.StartsWith("The completion line's figures do not fit together", StringComparison.Ordinal));
            Assert.StartsWith("The completion line's figures do not fit together: 292894 pages x 8 KB in 46.53 s = 49.178 MB/s, but its rate is 98.355 MB/sec (50% apart), "
                + "which stands for 4,798,764,181 bytes, 585786.6 pages", check);
            Assert.DoesNotContain("altered", check, StringComparison.Ordinal);
            Assert.DoesNotContain("misread", check, StringComparison.Ordinal);
        }
    }

    public class Reading
    {
        [Fact]
        public async Task Survives_numbers_no_server_writes()
        {
            // Given: a page count past any database and seconds past any clock
            var text = "Processed 99999999999999999999 pages for database 'D', file 'F' on file 1.\r\n"
                + "Processed 9223372036854775807 pages for database 'D', file 'F2' on file 1.\r\n"
                + "BACKUP DATABASE successfully processed 9223372036854775807 pages in " + new string('9', 400) + " seconds (1.000 MB/sec).\r\n";
            using var input = TempInput.WithText(text, Encodings.Utf8WithoutBom);

            // When
            var run = await SourceRun.ReadAsync(InputSources.Open(input.Path));

            // Then: each impossible line is reported where it is; nothing is computed from it (the completion line is
            // handed on only as the end of its operation, its figures rejected)
            Assert.Contains(run.Status.Problems, p => p.Location == "line 1");
            Assert.Contains(run.Status.Problems, p => p.Location == "line 3");
            var parser = new BackupXe.Core.Parsing.TraceMessageParser();
            Assert.DoesNotContain(run.Progress, e => parser.Parse(e.Message).Message is BackupXe.Core.Parsing.CompletionSummary);
            Assert.Contains(run.Progress, e => parser.Parse(e.Message).Message is BackupXe.Core.Parsing.ImplausibleValue { Completes: BackupXe.Core.Events.OperationKind.Backup });
        }

        [Fact]
        public async Task Says_where_messages_without_a_completion_line_were_left()
        {
            // Given: output cut after the percent lines
            using var input = TempInput.WithText(TwoBackups + "10 percent processed.\r\n20 percent processed.\r\n", Encodings.Utf8WithoutBom);

            // When
            var run = await SourceRun.ReadAsync(InputSources.Open(input.Path));

            // Then
            Assert.Contains(run.Status.Problems, p => p.Location.StartsWith("line ", StringComparison.Ordinal) && p.Message.StartsWith("the input ends after 2 message(s) that no completion line closed", StringComparison.Ordinal));
        }

        [Fact]
        public async Task Gives_no_clock_to_its_events()
        {
            using var input = TempInput.WithText(TwoBackups, Encodings.Utf8WithoutBom);
            var run = await SourceRun.ReadAsync(InputSources.Open(input.Path));
            Assert.All(run.Events, e => Assert.False(e.HasClock));
            Assert.Equal(7, run.Events.Count);
        }

        [Fact]
        public async Task Hands_on_the_transcripts_meaning_with_each_text_so_no_line_is_parsed_twice()
        {
            using var input = TempInput.WithText(TwoBackups, Encodings.Utf8WithoutBom);
            var run = await SourceRun.ReadAsync(InputSources.Open(input.Path));

            // Each event's parse is what the parser makes of its text: the correlator takes it instead of parsing again.
            var parser = new TraceMessageParser();
            Assert.All(run.Progress, e => Assert.Equal(parser.Parse(e.Message), Assert.IsType<ParsedText>(e.Text).Parsed));
        }
    }

    public class TheTranscript
    {
        [Fact]
        public void Closes_an_operation_at_its_completion_line_and_keeps_only_engine_messages()
        {
            // Given: engine lines among a job's own text, as Ola Hallengren's job output embeds them
            var transcript = new ClientTranscript();
            var lines = new[]
            {
                "Date and time: 2024-05-01 01:00:00",
                "Command: BACKUP DATABASE [TestDB] TO DISK = N'X:\\TestDB.bak' WITH CHECKSUM, COMPRESSION, STATS = 50",
                "50 percent processed.",
                "100 percent processed.",
                "Processed 292888 pages for database 'TestDB', file 'TestDB' on file 1.",
                "BACKUP DATABASE successfully processed 292888 pages in 23.265 seconds (98.353 MB/sec).",
                "Outcome: Succeeded",
            };

            // When
            var closed = lines.SelectMany(transcript.Add).ToList();

            // Then
            var operation = Assert.Single(closed);
            Assert.Equal((OperationKind.Backup, OperationScope.Database, "TestDB"), (operation.Kind, operation.Scope, operation.Database));
            Assert.Equal(100, operation.LastPercent);
            Assert.Equal(292888, operation.Summary!.Pages);
            Assert.Equal(4, operation.Messages.Count);
            Assert.Equal(3, transcript.IgnoredLines);
            Assert.Empty(transcript.Finish());
        }

        [Fact]
        public void Closes_a_failed_operation_once_its_error_block_ends_with_the_real_error_joined_to_its_number()
        {
            // Given: sqlcmd's order, the real error first, then the generic 3013
            var transcript = new ClientTranscript();
            Assert.Empty(transcript.Add("Msg 3201, Level 16, State 1, Line 1"));
            Assert.Empty(transcript.Add("Cannot open backup device 'X:\\TestDB.bak'. Operating system error 3(The system cannot find the path specified.)."));
            Assert.Empty(transcript.Add("Msg 3013, Level 16, State 1, Line 1"));
            Assert.Empty(transcript.Add("BACKUP DATABASE is terminating abnormally."));

            // When: the next operation's first engine message
            var closed = transcript.Add("10 percent processed.");

            // Then
            var operation = Assert.Single(closed);
            Assert.Equal(OperationKind.Backup, operation.Kind);
            Assert.NotNull(operation.Failure);
            var error = Assert.Single(operation.Errors);
            Assert.Equal(new EngineError(3201, 16, "Cannot open backup device 'X:\\TestDB.bak'. Operating system error 3(The system cannot find the path specified.)."), error);
            Assert.Equal("Msg 3201, Level 16: Cannot open backup device 'X:\\TestDB.bak'. Operating system error 3(The system cannot find the path specified.).", operation.Messages[0].Text);
        }

        [Fact]
        public void Puts_an_error_printed_after_the_terminating_line_before_it()
        {
            // Given: SSMS's order in real-world T09a, the generic 3013 first and the real 845 after it
            var transcript = new ClientTranscript();
            transcript.Add("Msg 3013, Level 16, State 1, Line 2");
            transcript.Add("RESTORE DATABASE is terminating abnormally.");
            transcript.Add("Msg 845, Level 17, State 1, Line 2");
            transcript.Add("Time-out occurred while waiting for buffer latch type 3 for page (1:0), database ID 27.");

            // When
            var operation = Assert.Single(transcript.Finish());

            // Then
            Assert.Equal(OperationKind.Restore, operation.Kind);
            Assert.IsType<EngineError>(operation.Messages[0].Message);
            Assert.IsType<OperationFailed>(operation.Messages[^1].Message);
            Assert.Equal(845, Assert.Single(operation.Errors).Number);
        }
    }

    public class Messages_folded_at_a_width
    {
        // Every line of a real file cut into pieces of a fixed width, as a transcript saved at a console's width stores it;
        // with Agent's suffix the pieces of "... [SQLSTATE 01000]" are folded the same way.
        private static string Folded(string file, int width, bool agentSuffix)
        {
            var lines = File.ReadAllLines(Fixture.RealWorld2(file)).Select(l => agentSuffix && l.Length > 0 ? l + " [SQLSTATE 01000]" : l);
            return string.Join("\r\n", lines.SelectMany(l => l.Length == 0 ? [l] : l.Chunk(width).Select(c => new string(c)))) + "\r\n";
        }

        private static async Task<IReadOnlyList<OperationReport>> AnalyseAsync(string text)
        {
            using var input = TempInput.WithText(text, Encodings.Utf8WithoutBom, "folded.txt");
            return (await PipelineRun.OfAsync(InputSources.Open(input.Path))).Reports;
        }

        private static object Essentials(OperationReport r) => new
        {
            r.Kind, r.Scope, r.Database, r.Status, r.EngineSummary, r.UpgradeSteps, r.FailureError,
            Files = string.Join("; ", r.ProcessedFiles.Select(f => $"{f.LogicalFile}={f.Pages}")),
        };

        [Theory]
        [InlineData("T04_msdocs_sql2017_container_wwi_backup_sqlcmd.txt", 80, false)]
        [InlineData("T04_msdocs_sql2017_container_wwi_backup_sqlcmd.txt", 37, false)]
        [InlineData("T04_msdocs_sql2017_container_wwi_backup_sqlcmd.txt", 80, true)]
        [InlineData("T03_msdocs_sql2017_container_wwi_restore_sqlcmd.txt", 64, true)]
        [InlineData("T09a_lessthandot_2013_sql2012_restore_fails_buffer_latch_timeout.txt", 50, false)]
        [InlineData("T12_mikefrobbins_2011_sql2008express_backup_taillog_restore_sequence.txt", 72, true)]
        public async Task Are_joined_again_and_read_as_the_unfolded_file_is(string file, int width, bool agentSuffix)
        {
            // Given: the real file as printed, and folded
            var whole = await AnalyseAsync(File.ReadAllText(Fixture.RealWorld2(file)));

            // When
            var folded = await AnalyseAsync(Folded(file, width, agentSuffix));

            // Then: the same operations, pages, seconds, files and failure
            Assert.NotEmpty(whole);
            Assert.Equal(whole.Select(Essentials), folded.Select(Essentials));
            Assert.All(folded, r => Assert.Equal(0, r.UnknownMessages));
        }

        [Fact]
        public void Are_not_joined_when_the_next_line_does_not_complete_the_message()
        {
            // Given: a whole backup of real-world T05, then a head cut short and a line that does not complete it
            var transcript = new ClientTranscript();
            var closed = new List<ClientOperation>();

            // When
            foreach (var line in (string[])[
                "BACKUP DATABASE successfully processed 298 pages in 0.064 seconds (36.376 MB/sec).",
                "BACKUP DATABASE successfully processed 12 pag",
                "10 percent processed."])
            {
                closed.AddRange(transcript.Add(line));
            }

            closed.AddRange(transcript.Finish());

            // Then: the percent line keeps its own meaning and the cut head is no message
            Assert.IsType<PercentReached>(transcript.LastMessage);
            Assert.Equal(new CompletionSummary(OperationKind.Backup, OperationScope.Database, 298, 0.064, 36.376), closed[0].Summary);
            var rest = Assert.Single(closed.Skip(1));
            Assert.Equal(["10 percent processed."], rest.Messages.Select(m => m.Text));
        }
    }
}
