using System.Text;
using System.Text.RegularExpressions;
using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using FsCheck;
using FsCheck.Fluent;
using Xunit;

namespace BackupXe.Tests.Parsing;

public static class TraceMessageParserTests
{
    private const long KB = 1024;
    private const long MB = 1024 * 1024;

    private static TraceMessage MessageOf(string text) => new TraceMessageParser().Parse(text).Message;

    /// <summary>An ERRORLOG line: text after the date, time and process columns, or null for a continuation line.</summary>
    private sealed record LogLine(string? Text, string Raw);

    private static readonly Regex Columns = new(@"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d+\s+\S+\s+(?<text>.*)$");

    private static List<LogLine> ReadFixture(string name)
    {
        var path = Path.Combine(AppContext.BaseDirectory, "Fixtures", "errorlog", name);
        using var reader = new StreamReader(path, Encoding.UTF8, detectEncodingFromByteOrderMarks: true);
        var lines = new List<LogLine>();
        while (reader.ReadLine() is { } line)
        {
            var match = Columns.Match(line);
            lines.Add(new LogLine(match.Success ? match.Groups["text"].Value : null, line));
        }

        return lines;
    }

    private static List<ParsedTraceMessage> ParseFixture(string name) =>
        ReadFixture(name).Where(l => l.Text is not null).Select(l => new TraceMessageParser().Parse(l.Text!)).ToList();

    public class TheTraceFlag3014Fixture
    {
        private readonly List<ParsedTraceMessage> parsed = ParseFixture("tf3014-backup-sql2014.log");

        [Fact]
        public void Maps_every_timestamped_line_to_a_known_record()
        {
            // Given
            var lines = ReadFixture("tf3014-backup-sql2014.log").Where(l => l.Text is not null).ToList();

            // When
            var unknown = lines.Where(l => new TraceMessageParser().Parse(l.Text!).Message is UnknownMessage).Select(l => l.Raw).ToList();

            // Then
            Assert.Equal(68, lines.Count);
            Assert.Empty(unknown);
        }

        [Fact]
        public void Keeps_the_published_snip_marks_as_unknown_messages()
        {
            // Given: the documentation page cut the percent lines with "(snipped)" / "processed" lines
            var continuations = ReadFixture("tf3014-backup-sql2014.log").Where(l => l.Text is null).Select(l => l.Raw).ToList();

            // When
            var messages = continuations.Select(MessageOf).ToList();

            // Then
            Assert.Equal(["(snipped)", "processed", "(snipped)", "processed"], continuations);
            Assert.All(messages, m => Assert.IsType<UnknownMessage>(m));
        }

        [Fact]
        public void Starts_a_full_backup_of_the_prefixed_database()
        {
            // When
            var first = parsed[0];

            // Then
            Assert.Equal("backuptest", first.PrefixDatabase);
            Assert.Equal(new OperationStarted(OperationKind.Backup, OperationScope.Database), first.Message);
        }

        [Fact]
        public void Reads_the_buffer_block_without_a_database_prefix_and_in_bytes()
        {
            // When
            var block = parsed.Where(p => p.Message is BufferParameterLine).ToList();
            var values = block.Select(p => (BufferParameterLine)p.Message).ToDictionary(l => l.Parameter, l => l.Value);

            // Then
            Assert.All(block, p => Assert.Null(p.PrefixDatabase));
            Assert.Single(parsed, p => p.Message is BufferConfigurationHeader);
            Assert.Equal(
                new Dictionary<BufferParameter, long>
                {
                    [BufferParameter.MemoryLimit] = 2300 * MB,
                    [BufferParameter.BufferCount] = 7,
                    [BufferParameter.SetsOfBuffers] = 3,
                    [BufferParameter.MaxTransferSize] = 1048576,
                    [BufferParameter.MinMaxTransferSize] = 64 * KB,
                    [BufferParameter.TotalBufferSpace] = 21 * MB,
                    [BufferParameter.TabularDataDeviceCount] = 1,
                    [BufferParameter.FulltextDataDeviceCount] = 0,
                    [BufferParameter.FilestreamDeviceCount] = 1,
                    [BufferParameter.TxfDeviceCount] = 0,
                    [BufferParameter.FilesystemIoAlignment] = 512,
                    [BufferParameter.MediaBufferCount] = 7,
                    [BufferParameter.MediaBufferSize] = 1024 * KB,
                    [BufferParameter.EncodeBufferCount] = 7,
                },
                values);
            Assert.Equal(14, block.Count);
        }

        [Fact]
        public void Reads_checksum_and_compression_on_with_seven_buffers_of_one_megabyte()
        {
            // When
            var options = Assert.Single(parsed.Select(p => p.Message).OfType<EffectiveOptions>());

            // Then
            Assert.Equal(new EffectiveOptions(true, true, false, 7, 1048576), options);
        }

        [Fact]
        public void Reads_the_estimated_size_split_into_data_and_log()
        {
            // When
            var estimate = Assert.Single(parsed.Select(p => p.Message).OfType<EstimatedSize>());

            // Then
            Assert.Equal(new EstimatedSize(95303680, 95289344, 14336), estimate);
        }

        [Fact]
        public void Reads_one_data_file_reader_and_both_files_in_order()
        {
            // When
            var messages = parsed.Select(p => p.Message).ToList();

            // Then
            Assert.Equal(new DataFileReaders(1), Assert.Single(messages.OfType<DataFileReaders>()));
            Assert.Equal(
                [@"D:\DATA\backuptest1.mdf", @"D:\DATA\backuptest2.ndf"],
                messages.OfType<DataFileReadStarted>().Select(m => m.Path));
            Assert.Equal(
                [@"D:\DATA\backuptest1.mdf", @"D:\DATA\backuptest2.ndf"],
                messages.OfType<DataFileReadCompleted>().Select(m => m.Path));
        }

        [Fact]
        public void Names_the_single_backup_device()
        {
            // When
            var device = Assert.Single(parsed.Select(p => p.Message).OfType<BackupDeviceNamed>());

            // Then
            Assert.Equal(new BackupDeviceNamed(0, @"D:\DATA\backuptest.bak"), device);
        }

        [Fact]
        public void Reads_percent_progress_with_exact_byte_counts()
        {
            // When
            var progress = parsed.Select(p => p.Message).OfType<PercentProcessed>().ToList();

            // Then
            Assert.Equal(11, progress.Count);
            Assert.Equal(new PercentProcessed(1, 1048576, 95303680), progress[0]);
            Assert.Equal(new PercentProcessed(89, 84869120, 95303680), progress[^1]);
        }

        [Fact]
        public void Marks_the_phases_in_the_order_written_including_repeated_size_calculations()
        {
            // When
            var markers = parsed.Select(p => p.Message).OfType<PhaseMarker>().ToList();

            // Then: "Calculating expected size of total data" is written three times by SQL Server 2014
            Assert.Equal(
                [
                    new PhaseMarker(OperationPhase.Checkpoint, PhaseEdge.Begin),
                    new PhaseMarker(OperationPhase.Checkpoint, PhaseEdge.End),
                    new PhaseMarker(OperationPhase.Estimate, PhaseEdge.Begin),
                    new PhaseMarker(OperationPhase.Estimate, PhaseEdge.Begin),
                    new PhaseMarker(OperationPhase.Estimate, PhaseEdge.End),
                    new PhaseMarker(OperationPhase.Estimate, PhaseEdge.Begin),
                    new PhaseMarker(OperationPhase.CopyData, PhaseEdge.Begin),
                    new PhaseMarker(OperationPhase.Estimate, PhaseEdge.Begin),
                ],
                markers);
        }
    }

    public class TheSql2005BufferBlock
    {
        [Fact]
        public void Maps_the_older_labels_onto_the_same_parameters()
        {
            // Given
            var parsed = ParseFixture("tf3213-buffers-sql2005sp2.txt");

            // When
            var values = parsed.Select(p => p.Message).OfType<BufferParameterLine>().ToDictionary(l => l.Parameter, l => l.Value);

            // Then
            Assert.IsType<BufferConfigurationHeader>(parsed[0].Message);
            Assert.Equal(
                new Dictionary<BufferParameter, long>
                {
                    [BufferParameter.MemoryLimit] = 3325 * MB,
                    [BufferParameter.BufferCount] = 6,
                    [BufferParameter.MaxTransferSize] = 1024 * KB,
                    [BufferParameter.MinMaxTransferSize] = 64 * KB,
                    [BufferParameter.TotalBufferSpace] = 6 * MB,
                    [BufferParameter.BuffersPerReadStream] = 6,
                    [BufferParameter.BuffersPerWriteStream] = 6,
                    [BufferParameter.TabularDataDeviceCount] = 1,
                    [BufferParameter.FileTreeDataDeviceCount] = 0,
                    [BufferParameter.FilesystemIoAlignment] = 512,
                },
                values);
        }

        [Theory]
        [InlineData("Memory limit: 3325MB", 3325 * MB)]
        [InlineData("Memory limit:               2300 MB", 2300 * MB)]
        [InlineData("memory LIMIT :2300mb", 2300 * MB)]
        [InlineData("Max transfer size: 1024 KB", 1024 * KB)]
        [InlineData("MaxTransferSize:            4096 KB", 4096 * KB)]
        [InlineData("Min MaxTransfer size: 64 KB", 64 * KB)]
        public void Converts_sizes_to_bytes(string text, long bytes)
        {
            // When
            var line = Assert.IsType<BufferParameterLine>(MessageOf(text));

            // Then
            Assert.Equal(bytes, line.Value);
        }

        [Theory]
        [InlineData("Memory limit: lots")]
        [InlineData("BufferCount: 7 buffers")]
        [InlineData("Buffer count is 7")]
        public void Leaves_malformed_values_unknown(string text)
        {
            // When
            var message = MessageOf(text);

            // Then
            Assert.Equal(new UnknownMessage(text), message);
        }
    }

    public class ThePrefix
    {
        [Theory]
        [InlineData("Backup(backuptest): Writing a checkpoint", "backuptest")]
        [InlineData("Writing a checkpoint", null)]
        [InlineData("BACKUP(Sales DB): writing a checkpoint", "Sales DB")]
        [InlineData("  Backup ( AdventureWorks ) :   Writing   a checkpoint  ", "AdventureWorks")]
        [InlineData("Backup(odd(1)): Writing a checkpoint", "odd(1)")]
        [InlineData("Restore: Writing a checkpoint", null)]
        public void Is_stripped_and_names_the_database_when_it_has_one(string text, string? database)
        {
            // When
            var parsed = new TraceMessageParser().Parse(text);

            // Then
            Assert.Equal(database, parsed.PrefixDatabase);
            Assert.Equal(new PhaseMarker(OperationPhase.Checkpoint, PhaseEdge.Begin), parsed.Message);
        }

        [Fact]
        public void Is_accepted_for_restores_too()
        {
            // When
            var parsed = new TraceMessageParser().Parse("Restore(AdventureWorks): RESTORE DATABASE started");

            // Then
            Assert.Equal("AdventureWorks", parsed.PrefixDatabase);
            Assert.Equal(new OperationStarted(OperationKind.Restore, OperationScope.Database), parsed.Message);
        }

        [Theory]
        [InlineData("BackupStream(0): Padding MSDA with 65536 bytes")]
        [InlineData("Backup/Restore buffer configuration parameters")]
        [InlineData("BACKUP DATABASE started")]
        public void Is_not_read_from_words_that_only_begin_like_one(string text)
        {
            // When
            var parsed = new TraceMessageParser().Parse(text);

            // Then
            Assert.Null(parsed.PrefixDatabase);
            Assert.IsNotType<UnknownMessage>(parsed.Message);
        }

        [Fact]
        public void Keeps_only_the_message_text_in_known_steps()
        {
            // When
            var parsed = new TraceMessageParser().Parse("Backup(backuptest): Opening the backup media set");

            // Then
            Assert.Equal(new KnownStep("Opening the backup media set"), parsed.Message);
        }
    }

    public class OperationLines
    {
        [Theory]
        [InlineData("BACKUP DATABASE started", OperationKind.Backup, OperationScope.Database)]
        [InlineData("BACKUP LOG started", OperationKind.Backup, OperationScope.Log)]
        [InlineData("BACKUP DATABASE WITH DIFFERENTIAL started", OperationKind.Backup, OperationScope.Differential)]
        [InlineData("RESTORE DATABASE started", OperationKind.Restore, OperationScope.Database)]
        [InlineData("restore   log   Started.", OperationKind.Restore, OperationScope.Log)]
        public void Start_an_operation_of_the_named_kind_and_scope(string text, OperationKind kind, OperationScope scope)
        {
            // When
            var message = MessageOf(text);

            // Then
            Assert.Equal(new OperationStarted(kind, scope), message);
        }

        [Theory]
        [InlineData("RestoreDatabase: Database AdventureWorks", OperationKind.Restore, OperationScope.Database, "AdventureWorks")]
        [InlineData("RestoreLog: Database AdventureWorks", OperationKind.Restore, OperationScope.Log, "AdventureWorks")]
        [InlineData("RESTOREDATABASE:  Database   My Db ", OperationKind.Restore, OperationScope.Database, "My Db")]
        [InlineData("BackupDatabase: Database master", OperationKind.Backup, OperationScope.Database, "master")]
        public void Start_with_the_database_named_in_the_3004_wording(
            string text, OperationKind kind, OperationScope scope, string database)
        {
            // When
            var message = MessageOf(text);

            // Then
            Assert.Equal(new OperationStarted(kind, scope, database), message);
        }

        [Theory]
        [InlineData("BACKUP DATABASE finished", OperationKind.Backup, OperationScope.Database)]
        [InlineData("BACKUP LOG finished.", OperationKind.Backup, OperationScope.Log)]
        [InlineData("RESTORE DATABASE finished", OperationKind.Restore, OperationScope.Database)]
        [InlineData("RESTORE LOG finished", OperationKind.Restore, OperationScope.Log)]
        [InlineData("BACKUP finished", OperationKind.Backup, null)]
        public void Finish_an_operation(string text, OperationKind kind, OperationScope? scope)
        {
            // When
            var message = MessageOf(text);

            // Then
            Assert.Equal(new OperationFinished(kind, scope), message);
        }

        [Fact]
        public void Do_not_start_without_a_scope()
        {
            // When
            var message = MessageOf("BACKUP started");

            // Then
            Assert.IsType<UnknownMessage>(message);
        }
    }

    public class Failures
    {
        [Fact]
        public void Read_the_scope_and_database_of_the_errorlog_failed_command()
        {
            // When: 3041, the ERRORLOG's closing line of a failed backup
            const string text = "BACKUP failed to complete the command BACKUP DATABASE backuptest. Check the backup application log for detailed messages.";
            var message = MessageOf(text);

            // Then
            Assert.Equal(new OperationFailed(OperationKind.Backup, text, OperationScope.Database) { Database = "backuptest" }, message);
        }

        [Theory]
        [InlineData("BACKUP DATABASE is terminating abnormally.", OperationKind.Backup, OperationScope.Database)]
        [InlineData("BACKUP LOG is terminating abnormally.", OperationKind.Backup, OperationScope.Log)]
        [InlineData("RESTORE DATABASE is terminating abnormally.", OperationKind.Restore, OperationScope.Database)]
        [InlineData("RESTORE LOG terminated abnormally", OperationKind.Restore, null)]
        public void Fail_the_operation_and_keep_the_wording_as_reason(string text, OperationKind kind, OperationScope? scope)
        {
            // When
            var message = MessageOf(text);

            // Then: the scope when the client's 3013 line names it
            Assert.Equal(new OperationFailed(kind, text, scope), message);
        }

        [Theory]
        [InlineData("Error: 3041, Severity: 16, State: 1.", 3041, 16, 1)]
        [InlineData("Error: 18210, Severity: 16, State: 1.", 18210, 16, 1)]
        [InlineData("Error: 845, Severity: 17, State: 1.", 845, 17, 1)]
        public void Number_the_next_message_on_a_backup_restore_error_header(string text, int number, int severity, int state)
        {
            // When
            var message = MessageOf(text);

            // Then: the header of the catalog's error, whose text the same process writes next
            Assert.Equal(new ErrorHeader(number, severity, state, text), message);
        }

        [Theory]
        [InlineData("10 percent restored.", 10, OperationKind.Restore)]
        [InlineData("100 percent backed up.", 100, OperationKind.Backup)]
        public void Read_SQL_Server_2000_percent_lines_with_their_kind(string text, int percent, OperationKind kind)
            => Assert.Equal(new PercentReached(percent) { Kind = kind }, MessageOf(text));

        [Fact]
        public void Ignore_error_headers_outside_the_backup_restore_range()
        {
            // When
            var message = MessageOf("Error: 18456, Severity: 14, State: 8.");

            // Then
            Assert.IsType<UnknownMessage>(message);
        }
    }

    public class PhaseMarkers
    {
        [Theory]
        [InlineData("Writing a checkpoint", OperationPhase.Checkpoint, PhaseEdge.Begin)]
        [InlineData("Checkpoint is complete (elapsed = 90 ms)", OperationPhase.Checkpoint, PhaseEdge.End)]
        [InlineData("Scanning allocation bitmaps", OperationPhase.Estimate, PhaseEdge.Begin)]
        [InlineData("Calculating expected size of total data", OperationPhase.Estimate, PhaseEdge.Begin)]
        [InlineData("Work estimation is complete", OperationPhase.Estimate, PhaseEdge.End)]
        [InlineData("Copying data files", OperationPhase.CopyData, PhaseEdge.Begin)]
        [InlineData("Copying data files is complete", OperationPhase.CopyData, PhaseEdge.End)]
        [InlineData("Copying transaction log", OperationPhase.CopyLog, PhaseEdge.Begin)]
        [InlineData("Copying log", OperationPhase.CopyLog, PhaseEdge.Begin)]
        [InlineData("Log copy begins", OperationPhase.CopyLog, PhaseEdge.Begin)]
        [InlineData("Copying transaction log is complete", OperationPhase.CopyLog, PhaseEdge.End)]
        [InlineData("Log copy complete", OperationPhase.CopyLog, PhaseEdge.End)]
        [InlineData("Writing the trailing metadata", OperationPhase.Finalize, PhaseEdge.Begin)]
        [InlineData("Writing end of backup set", OperationPhase.Finalize, PhaseEdge.Begin)]
        [InlineData("Writing history records", OperationPhase.Finalize, PhaseEdge.Begin)]
        [InlineData("Planning begins", OperationPhase.Planning, PhaseEdge.Begin)]
        [InlineData("Planning complete", OperationPhase.Planning, PhaseEdge.End)]
        [InlineData("Planning is complete", OperationPhase.Planning, PhaseEdge.End)]
        [InlineData("PreparingContainers", OperationPhase.PrepareContainers, PhaseEdge.Begin)]
        [InlineData("Preparing containers", OperationPhase.PrepareContainers, PhaseEdge.Begin)]
        [InlineData("Containers are ready", OperationPhase.PrepareContainers, PhaseEdge.End)]
        [InlineData("Transferring data to AdventureWorks", OperationPhase.TransferData, PhaseEdge.Begin)]
        [InlineData("Data transfer complete on AdventureWorks", OperationPhase.TransferData, PhaseEdge.End)]
        [InlineData("Waiting for log zero on AdventureWorks", OperationPhase.WaitLogZero, PhaseEdge.Begin)]
        [InlineData("LogZero complete", OperationPhase.WaitLogZero, PhaseEdge.End)]
        [InlineData("Redo begins", OperationPhase.Redo, PhaseEdge.Begin)]
        [InlineData("Starting redo", OperationPhase.Redo, PhaseEdge.Begin)]
        [InlineData("Rollforward begins", OperationPhase.Redo, PhaseEdge.Begin)]
        [InlineData("Redo complete", OperationPhase.Redo, PhaseEdge.End)]
        [InlineData("Redo is complete", OperationPhase.Redo, PhaseEdge.End)]
        [InlineData("Rollforward complete", OperationPhase.Redo, PhaseEdge.End)]
        [InlineData("Recovery begins", OperationPhase.Recovery, PhaseEdge.Begin)]
        [InlineData("Starting recovery", OperationPhase.Recovery, PhaseEdge.Begin)]
        [InlineData("Recovery is starting", OperationPhase.Recovery, PhaseEdge.Begin)]
        [InlineData("Recovery complete", OperationPhase.Recovery, PhaseEdge.End)]
        [InlineData("Recovery is complete", OperationPhase.Recovery, PhaseEdge.End)]
        public void Open_and_close_the_named_phase(string text, OperationPhase phase, PhaseEdge edge)
        {
            // When
            var message = MessageOf(text);

            // Then
            Assert.Equal(new PhaseMarker(phase, edge), message);
        }

        [Theory]
        [InlineData("WRITING A CHECKPOINT")]
        [InlineData("writing   a\tcheckpoint.")]
        [InlineData("  Writing a checkpoint  ")]
        public void Tolerate_case_and_spacing(string text)
        {
            // When
            var message = MessageOf(text);

            // Then
            Assert.Equal(new PhaseMarker(OperationPhase.Checkpoint, PhaseEdge.Begin), message);
        }

        [Theory]
        [InlineData("Scanning allocation bitmaps is complete")]
        [InlineData("Writing history records is complete (elapsed = 37 ms)")]
        public void Leave_the_close_of_a_step_inside_a_phase_as_a_known_step(string text)
        {
            // When
            var message = MessageOf(text);

            // Then
            Assert.Equal(new KnownStep(text), message);
        }

        [Theory]
        [InlineData("Writing a checkpoint later")]
        [InlineData("Scanning allocation bitmaps again and again")]
        [InlineData("Recovery is writing a checkpoint")]
        [InlineData("Redoing nothing")]
        public void Do_not_fire_on_a_phrase_followed_by_other_words(string text)
        {
            // When
            var message = MessageOf(text);

            // Then
            Assert.Equal(new UnknownMessage(text), message);
        }
    }

    public class RestoreSequences
    {
        [Fact]
        public void Map_the_3004_redo_and_recovery_steps_to_their_phases()
        {
            // Given: the closing steps of a trace flag 3004 restore, as published walkthroughs print them
            string[] lines =
            [
                "Restore-Redo begins on database AdventureWorks",
                "Rollforward complete on database AdventureWorks",
                "Restore: Done with fixups",
                "Restore: Transitioning database to ONLINE",
                "Restore: Database is restarted",
            ];

            // When
            var messages = lines.Select(MessageOf).ToList();

            // Then
            Assert.Equal(
                [
                    new PhaseMarker(OperationPhase.Redo, PhaseEdge.Begin),
                    new PhaseMarker(OperationPhase.Redo, PhaseEdge.End),
                    new KnownStep("Done with fixups"),
                    new PhaseMarker(OperationPhase.Recovery, PhaseEdge.Begin),
                    new PhaseMarker(OperationPhase.Recovery, PhaseEdge.End),
                ],
                messages);
        }

        [Fact]
        public void Map_the_3004_restore_wording_step_by_step()
        {
            // Given: trace flag 3004 output as listed in docs/backup-internals.md#restore-steps
            string[] lines =
            [
                "RestoreDatabase: Database AdventureWorks",
                "Opening backup set",
                "Restore: Configuration section loaded",
                "Restore: Backup set is open",
                "Restore: Planning begins",
                "Restore: Planning complete",
                "Restore: BeginRestore (offline) on AdventureWorks",
                "Restore: Attached database AdventureWorks as DBID=15",
                "Restore: PreparingContainers",
                @"Zeroing D:\Data\AdventureWorks_log.ldf from page 1 to 64000 (0x2000 to 0x1f400000)",
                "Restore: Containers are ready",
                "Restore: Restoring backup set",
                "Restore: Transferring data to AdventureWorks",
                "Restore: Waiting for log zero on AdventureWorks",
                @"Zeroing completed on D:\Data\AdventureWorks_log.ldf",
                "Restore: LogZero complete",
                "Restore: Data transfer complete on AdventureWorks",
                "Restore: Backup set restored",
            ];

            // When
            var messages = lines.Select(MessageOf).ToList();

            // Then
            Assert.Equal(
                [
                    new OperationStarted(OperationKind.Restore, OperationScope.Database, "AdventureWorks"),
                    new KnownStep("Opening backup set"),
                    new KnownStep("Configuration section loaded"),
                    new KnownStep("Backup set is open"),
                    new PhaseMarker(OperationPhase.Planning, PhaseEdge.Begin),
                    new PhaseMarker(OperationPhase.Planning, PhaseEdge.End),
                    new KnownStep("BeginRestore (offline) on AdventureWorks"),
                    new KnownStep("Attached database AdventureWorks as DBID=15"),
                    new PhaseMarker(OperationPhase.PrepareContainers, PhaseEdge.Begin),
                    new ZeroingStarted(@"D:\Data\AdventureWorks_log.ldf", 1, 64000),
                    new PhaseMarker(OperationPhase.PrepareContainers, PhaseEdge.End),
                    new KnownStep("Restoring backup set"),
                    new PhaseMarker(OperationPhase.TransferData, PhaseEdge.Begin),
                    new PhaseMarker(OperationPhase.WaitLogZero, PhaseEdge.Begin),
                    new ZeroingCompleted(@"D:\Data\AdventureWorks_log.ldf"),
                    new PhaseMarker(OperationPhase.WaitLogZero, PhaseEdge.End),
                    new PhaseMarker(OperationPhase.TransferData, PhaseEdge.End),
                    new KnownStep("Backup set restored"),
                ],
                messages);
        }

        [Fact]
        public void Map_the_extended_events_restore_wording()
        {
            // Given: the XE wording from article lists (docs/backup-internals.md#restore-steps)
            string[] lines =
            [
                "RESTORE DATABASE started",
                "Opening the backup set",
                "Processing the leading metadata",
                "Planning begins",
                "Effective options: Checksum=0, Compression=0, Encryption=0, BufferCount=6, MaxTransferSize=1024 KB",
                "Planning is complete",
                "Beginning OFFLINE restore",
                "Attached database AdventureWorks as DBID=5",
                "Preparing containers",
                "Containers are ready",
                "Transferring data to AdventureWorks",
                "Waiting for log zero on AdventureWorks",
                "LogZero complete",
                "Data transfer complete on AdventureWorks",
                "Redo begins",
                "Redo is complete",
                "Recovery begins",
                "Recovery is complete",
                "Writing history records",
                "RESTORE DATABASE finished",
            ];

            // When
            var messages = lines.Select(MessageOf).ToList();

            // Then
            Assert.Equal(
                [
                    new OperationStarted(OperationKind.Restore, OperationScope.Database),
                    new KnownStep("Opening the backup set"),
                    new KnownStep("Processing the leading metadata"),
                    new PhaseMarker(OperationPhase.Planning, PhaseEdge.Begin),
                    new EffectiveOptions(false, false, false, 6, 1048576),
                    new PhaseMarker(OperationPhase.Planning, PhaseEdge.End),
                    new KnownStep("Beginning OFFLINE restore"),
                    new KnownStep("Attached database AdventureWorks as DBID=5"),
                    new PhaseMarker(OperationPhase.PrepareContainers, PhaseEdge.Begin),
                    new PhaseMarker(OperationPhase.PrepareContainers, PhaseEdge.End),
                    new PhaseMarker(OperationPhase.TransferData, PhaseEdge.Begin),
                    new PhaseMarker(OperationPhase.WaitLogZero, PhaseEdge.Begin),
                    new PhaseMarker(OperationPhase.WaitLogZero, PhaseEdge.End),
                    new PhaseMarker(OperationPhase.TransferData, PhaseEdge.End),
                    new PhaseMarker(OperationPhase.Redo, PhaseEdge.Begin),
                    new PhaseMarker(OperationPhase.Redo, PhaseEdge.End),
                    new PhaseMarker(OperationPhase.Recovery, PhaseEdge.Begin),
                    new PhaseMarker(OperationPhase.Recovery, PhaseEdge.End),
                    new PhaseMarker(OperationPhase.Finalize, PhaseEdge.Begin),
                    new OperationFinished(OperationKind.Restore, OperationScope.Database),
                ],
                messages);
        }
    }

    public class TheEffectiveOptionsLine
    {
        [Fact]
        public void Reads_keys_in_any_order_with_missing_ones_left_null()
        {
            // When
            var message = MessageOf("effective OPTIONS :  MaxTransferSize = 4096 KB ,BufferCount=50, Compression=0");

            // Then
            Assert.Equal(new EffectiveOptions(null, false, null, 50, 4 * MB), message);
        }

        [Fact]
        public void Ignores_keys_it_does_not_know()
        {
            // When
            var message = MessageOf("Effective options: Checksum=1, Something=7, Encryption=1");

            // Then
            Assert.Equal(new EffectiveOptions(true, null, true, null, null), message);
        }
    }

    public class DataFilesDevicesAndZeroing
    {
        [Theory]
        [InlineData(@"Started file D:\Data\big.mdf", true, @"D:\Data\big.mdf")]
        [InlineData(@"Completed file D:\Data\big.mdf", false, @"D:\Data\big.mdf")]
        [InlineData(@"Reading the data file C:\Program Files\Data\a b.ndf", true, @"C:\Program Files\Data\a b.ndf")]
        [InlineData(@"completed reading the DATA file  E:\x.mdf ", false, @"E:\x.mdf")]
        public void Read_data_file_paths_in_both_wordings(string text, bool started, string path)
        {
            // When
            var message = MessageOf(text);

            // Then
            TraceMessage expected = started ? new DataFileReadStarted(path) : new DataFileReadCompleted(path);
            Assert.Equal(expected, message);
        }

        [Fact]
        public void Read_the_stream_number_of_a_named_device()
        {
            // When
            var message = MessageOf(@"BackupStream(2): Writing leading metadata to the device \\backup host\share\x 3.bak");

            // Then
            Assert.Equal(new BackupDeviceNamed(2, @"\\backup host\share\x 3.bak"), message);
        }

        [Theory]
        [InlineData("BackupStream(0): Total MSDA: 384 extents")]
        public void Keep_other_stream_lines_as_known_steps(string text)
        {
            // When
            var message = MessageOf(text);

            // Then
            Assert.Equal(new KnownStep(text), message);
        }

        [Fact]
        public void Read_a_zeroing_range_when_the_path_holds_spaces()
        {
            // When
            var message = MessageOf(@"Zeroing C:\My Data\from page\x_log.ldf from page 1 to 128000 (0x2000 to 0x3e800000)");

            // Then
            Assert.Equal(new ZeroingStarted(@"C:\My Data\from page\x_log.ldf", 1, 128000), message);
        }

        [Theory]
        [InlineData("Number of data file readers = 4", 4)]
        [InlineData("number of data file readers=2", 2)]
        public void Count_data_file_readers(string text, int readers)
        {
            // When
            var message = MessageOf(text);

            // Then
            Assert.Equal(new DataFileReaders(readers), message);
        }

        [Fact]
        public void Read_the_last_percent_line()
        {
            // When
            var message = MessageOf("100 percent (95303680/95303680 bytes) processed");

            // Then
            Assert.Equal(new PercentProcessed(100, 95303680, 95303680), message);
        }

        // The server's own form is read in one pass, every other one word by word: both must mean the same.
        [Theory]
        [InlineData("7 percent (1048576/95303680 bytes) processed")]
        [InlineData("7  percent (1048576/95303680 bytes) processed")]
        [InlineData("7 PERCENT ( 1048576 / 95303680 BYTES ) Processed.")]
        [InlineData("7 percent\t(1048576/95303680 bytes)\tprocessed (elapsed = 3 ms)")]
        [InlineData("007 percent (0001048576/95303680 bytes) processed")]
        public void Read_a_percent_line_the_same_whatever_its_spacing_and_case(string text)
        {
            // When
            var message = MessageOf(text);

            // Then
            Assert.Equal(new PercentProcessed(7, 1048576, 95303680), message);
        }

        [Theory]
        [InlineData("5 percent (1/99999999999999999999999 bytes) processed")]
        [InlineData("5 percent (9223372036854775807/9223372036854775808 bytes) processed")]
        [InlineData("5  percent (1/99999999999999999999999 bytes) processed")]
        public void A_byte_count_beyond_what_the_server_writes_is_implausible_in_any_spacing(string text)
        {
            // When
            var message = MessageOf(text);

            // Then: the digits saturate rather than overflow, and the range check names the line
            var implausible = Assert.IsType<ImplausibleValue>(message);
            Assert.Contains("9223372036854775807 bytes", implausible.Reason);
        }

        [Theory]
        [InlineData("101 percent (1/2 bytes) processed")]
        [InlineData("7 percent (1/2 bytes) processed and more")]
        [InlineData("7 percent (1/2 bytes)")]
        [InlineData("7 percent (/2 bytes) processed")]
        [InlineData("7 percent (1/ bytes) processed")]
        public void A_percent_line_out_of_shape_is_kept_as_unknown(string text)
        {
            // When
            var message = MessageOf(text);

            // Then
            Assert.Equal(new UnknownMessage(text), message);
        }
    }

    /// <summary>
    /// Progress lines in the server's exact wording are read off the line's characters and their text is written back
    /// only when asked for (<see cref="TraceMessageParser.TryServerProgress"/>): the event must be the one the text
    /// would have given, character for character.
    /// </summary>
    public class ServerProgressLines
    {
        private static readonly DateTime At = new(2024, 6, 1, 0, 0, 1, 420, DateTimeKind.Unspecified);

        [Theory]
        [InlineData("Backup(Db00): 1 percent (20971520/2147483648 bytes) processed")]
        [InlineData("Restore(Sales Archive): 100 percent (95303680/95303680 bytes) processed")]
        [InlineData("Backup( Sales )  :   0 percent (0/95303680 bytes) processed")]
        [InlineData("Restore: 42 percent (40028160/95303680 bytes) processed")]
        [InlineData("7 percent (1048576/95303680 bytes) processed")]
        [InlineData("Backup(Ünïcode db): 9 percent (9/100 bytes) processed")]
        public void A_line_in_the_servers_wording_gives_the_event_its_text_would(string text)
        {
            // When
            var read = new TraceMessageParser().TryServerProgress(text, At, 51, out var progress);

            // Then
            Assert.True(read);
            Assert.Equal(new TraceMessageParser().Parse(text), Assert.IsType<ParsedText>(progress!.Text).Parsed);
            Assert.Equal(text, progress.Message);
            Assert.Equal(new ProgressTraceEvent(At, 51, null, null, text), progress);
        }

        [Fact]
        public void A_copy_of_such_an_event_keeps_its_text_unless_given_another()
        {
            // Given an event read off a line, its text not yet written back
            const string text = "Backup(Db00): 1 percent (20971520/2147483648 bytes) processed";
            Assert.True(new TraceMessageParser().TryServerProgress(text, At, 51, out var progress));

            // When copies are made with another session and another text
            var moved = progress with { SessionId = 52 };
            var retexted = progress with { Message = "other text" };

            // Then the copy with another text keeps no parse of the text it replaced
            Assert.Equal(text, moved.Message);
            Assert.Same(progress.Text, moved.Text);
            Assert.Equal("other text", retexted.Message);
            Assert.Null(retexted.Text);
            Assert.Equal(text, progress.Message);
        }

        [Fact]
        public void An_event_parsed_by_its_reader_equals_the_same_text_given_plainly()
        {
            // Given one line, read by a parser and given as text
            const string text = "Backup(Db00): 1 percent (20971520/2147483648 bytes) processed";
            Assert.True(new TraceMessageParser().TryServerProgress(text, At, 51, out var parsed));
            var plain = new ProgressTraceEvent(At, 51, null, null, text);

            // Then equality is what was captured, however the text is held, and symmetric
            Assert.True(plain.Equals(parsed));
            Assert.True(parsed.Equals(plain));
            Assert.True(((object)parsed).Equals(plain));
            Assert.Equal(plain.GetHashCode(), parsed.GetHashCode());
        }

        [Theory]
        [InlineData("007 percent (1048576/95303680 bytes) processed")]
        [InlineData("7 percent (01048576/95303680 bytes) processed")]
        [InlineData("7 percent (1048576/095303680 bytes) processed")]
        [InlineData(" 7 percent (1048576/95303680 bytes) processed")]
        [InlineData("7 percent (1048576/95303680 bytes) processed ")]
        [InlineData("7  percent (1048576/95303680 bytes) processed")]
        [InlineData("7 PERCENT (1048576/95303680 bytes) processed")]
        [InlineData("7 percent (1048576/95303680 bytes) processed\ncontinued")]
        [InlineData("101 percent (1/2 bytes) processed")]
        [InlineData("5 percent (1/99999999999999999999999 bytes) processed")]
        [InlineData("10 percent processed.")]
        [InlineData("Backup(Db00): Writing a checkpoint")]
        [InlineData("")]
        public void Any_other_line_is_left_to_the_text_parser(string text)
        {
            // When
            var read = new TraceMessageParser().TryServerProgress(text, At, 51, out var progress);

            // Then
            Assert.False(read);
            Assert.Null(progress);
        }

        [Fact]
        public void Whatever_a_line_holds_a_progress_event_read_off_it_is_the_one_its_text_gives()
        {
            // Given lines near the server's wording: prefixes, spacing, leading zeros, numbers at and past the limits
            var prefixes = Gen.Elements("", "Backup(Db00): ", "Restore(Sales): ", "Backup( x ) : ", "Restore: ", "Backup(Db00):", " ", "Backup(a(b)): ");
            var numbers = Gen.Elements("0", "7", "100", "101", "007", "00", "1048576", "9223372036854775807", "99999999999999999999", "01");
            var gaps = Gen.Elements(" ", "  ", "\t", "");
            var ends = Gen.Elements("", " ", ".", "\nmore");
            var lines =
                from prefix in prefixes
                from percent in numbers
                from gap in gaps
                from bytes in numbers
                from total in numbers
                from end in ends
                select $"{prefix}{percent}{gap}percent ({bytes}/{total} bytes) processed{end}";

            // Then
            Prop.ForAll(lines.ToArbitrary(), text =>
            {
                if (new TraceMessageParser().TryServerProgress(text, At, 51, out var progress))
                {
                    Assert.Equal(new TraceMessageParser().Parse(text), Assert.IsType<ParsedText>(progress.Text).Parsed);
                    Assert.Equal(text, progress.Message);
                }
            }).Check(Config.QuickThrowOnFailure.WithMaxTest(2000).WithReplay(20261122UL, 0x9E3779B97F4A7C15UL));
        }

        [Fact]
        public void A_parser_that_read_lines_before_reads_each_line_as_a_new_parser_would()
        {
            // Given runs of lines, as a log gives them to one parser: percent lines whose prefixes repeat, differ by a
            // character, by white space after the colon or by a parenthesis in the name, between other lines of other
            // databases
            var prefixes = Gen.Elements(
                "", "Backup(Db00): ", "Backup(Db00):  ", "Backup(Db00):", "Backup(Db01): ", "Backup(Db0): ", "Restore: ",
                "Restore(Db00): ", "Backup(a(b)): ", "Backup(a(b): ", "BACKUP(Db00): ");
            var numbers = Gen.Elements("0", "7", "100", "101", "007", "1048576", "99999999999999999999");
            var percentLines =
                from prefix in prefixes
                from percent in numbers
                from bytes in numbers
                from total in numbers
                select $"{prefix}{percent} percent ({bytes}/{total} bytes) processed";
            var otherLines =
                from prefix in prefixes
                from step in Gen.Elements("Writing a checkpoint", "Opening the backup media set", "7 percent processed.")
                select prefix + step;
            var runs = Gen.Frequency((4, percentLines), (1, otherLines)).ArrayOf();

            // Then
            Prop.ForAll(runs.ToArbitrary(), lines =>
            {
                var parser = new TraceMessageParser();
                foreach (var text in lines)
                {
                    var expected = new TraceMessageParser().Parse(text);
                    if (parser.TryServerProgress(text, At, 51, out var progress))
                    {
                        Assert.Equal(expected, Assert.IsType<ParsedText>(progress.Text).Parsed);
                        Assert.Equal(text, progress.Message);
                    }
                    else
                    {
                        Assert.Equal(expected, parser.Parse(text));
                    }
                }
            }).Check(Config.QuickThrowOnFailure.WithMaxTest(1000).WithReplay(20261122UL, 0x2545F4914F6CDD1DUL));
        }
    }

    public class CompletionSummaries
    {
        [Fact]
        public void Read_pages_seconds_and_rate_of_a_full_backup()
        {
            // When
            var message = MessageOf("BACKUP DATABASE successfully processed 8042633 pages in 43.967 seconds (1429.096 MB/sec).");

            // Then
            var summary = Assert.IsType<CompletionSummary>(message);
            Assert.Equal(new CompletionSummary(OperationKind.Backup, OperationScope.Database, 8042633, 43.967, 1429.096), summary);
            Assert.Equal(65885249536, summary.Bytes);
        }

        [Theory]
        [InlineData("BACKUP LOG successfully processed 2 pages in 0.010 seconds (1.562 MB/sec).", OperationKind.Backup, OperationScope.Log)]
        [InlineData("BACKUP DATABASE WITH DIFFERENTIAL successfully processed 57 pages in 0.106 seconds (4.148 MB/sec).", OperationKind.Backup, OperationScope.Differential)]
        [InlineData("RESTORE DATABASE successfully processed 57 pages in 0.106 seconds (4.148 MB/sec).", OperationKind.Restore, OperationScope.Database)]
        [InlineData("RESTORE LOG successfully processed 2 pages in 0.010 seconds (1.562 MB/sec).", OperationKind.Restore, OperationScope.Log)]
        [InlineData("BACKUP DATABASE...FILE=<name> successfully processed 57 pages in 0.106 seconds (4.148 MB/sec).", OperationKind.Backup, OperationScope.File)]
        public void Name_the_kind_and_scope(string text, OperationKind kind, OperationScope scope)
        {
            // When
            var summary = Assert.IsType<CompletionSummary>(MessageOf(text));

            // Then
            Assert.Equal((kind, scope), (summary.Kind, summary.Scope));
        }

        [Fact]
        public void Stay_unknown_when_the_numbers_are_missing()
        {
            // When
            var message = MessageOf("BACKUP DATABASE successfully processed many pages.");

            // Then
            Assert.IsType<UnknownMessage>(message);
        }
    }

    public class HistoryRecords
    {
        [Fact]
        public void Read_a_database_backup_with_pages_and_its_device()
        {
            // When
            var message = MessageOf(
                @"Database backed up. Database: AdventureWorks, creation date(time): 2011/09/15(21:46:19), pages dumped: 3100, first LSN: 44:432:37, last LSN: 44:456:1, number of dump devices: 1, device information: (FILE=2, TYPE=DISK: {'D:\Backs\x.bak'}). This is an informational message only. No user action is required.");

            // Then
            var record = Assert.IsType<HistoryRecord>(message);
            Assert.Equal(
                (OperationKind.Backup, OperationScope.Database, "AdventureWorks", (long?)3100, (int?)1),
                (record.Kind, record.Scope, record.Database, record.PagesDumped, record.DeviceCount));
            Assert.Equal([@"D:\Backs\x.bak"], record.Devices);
        }

        [Fact]
        public void Read_a_log_backup_to_nul_without_pages()
        {
            // When
            var message = MessageOf(
                "Log was backed up. Database: Sales, creation date(time): 2020/01/02(03:04:05), first LSN: 1:2:3, last LSN: 1:9:1, number of dump devices: 1, device information: (FILE=1, TYPE=DISK: {'NUL'}). This is an informational message only. No user action is required.");

            // Then
            var record = Assert.IsType<HistoryRecord>(message);
            Assert.Equal(
                (OperationKind.Backup, OperationScope.Log, "Sales", (long?)null, (int?)1),
                (record.Kind, record.Scope, record.Database, record.PagesDumped, record.DeviceCount));
            Assert.Equal(["NUL"], record.Devices);
        }

        [Fact]
        public void Read_a_restore_striped_over_several_devices()
        {
            // When
            var message = MessageOf(
                @"Database was restored: Database: Big Db, creation date(time): 2020/01/02(03:04:05), first LSN: 1:2:3, last LSN: 1:9:1, number of dump devices: 3, device information: (FILE=1, TYPE=DISK: {'E:\b\one.bak', 'F:\b\two, too.bak', 'G:\b\three.bak'}). Informational message. No user action required.");

            // Then
            var record = Assert.IsType<HistoryRecord>(message);
            Assert.Equal(
                (OperationKind.Restore, OperationScope.Database, "Big Db", (long?)null, (int?)3),
                (record.Kind, record.Scope, record.Database, record.PagesDumped, record.DeviceCount));
            Assert.Equal([@"E:\b\one.bak", @"F:\b\two, too.bak", @"G:\b\three.bak"], record.Devices);
        }

        [Fact]
        public void Read_a_virtual_device_name_that_holds_braces()
        {
            // When
            var message = MessageOf(
                "Database backed up. Database: vdi, creation date(time): 2020/01/02(03:04:05), pages dumped: 42, first LSN: 1:2:3, last LSN: 1:9:1, number of dump devices: 1, device information: (FILE=1, TYPE=VIRTUAL_DEVICE: {'{4B4CD3A4-7F1E-4C1E-9D77-0A4A1A2B3C4D}1'}). This is an informational message only.");

            // Then
            var record = Assert.IsType<HistoryRecord>(message);
            Assert.Equal(["{4B4CD3A4-7F1E-4C1E-9D77-0A4A1A2B3C4D}1"], record.Devices);
        }

        [Fact]
        public void Read_a_differential_backup_with_the_errorlog_prefix_absent()
        {
            // When
            var message = MessageOf(
                "Database differential changes were backed up. Database: Sales, creation date(time): 2020/01/02(03:04:05), pages dumped: 57, first LSN: 1:2:3, last LSN: 1:9:1, full backup LSN: 1:1:1, number of dump devices: 1, device information: (FILE=1, TYPE=DISK: {'d.bak'}).");

            // Then
            var record = Assert.IsType<HistoryRecord>(message);
            Assert.Equal((OperationKind.Backup, OperationScope.Differential, (long?)57), (record.Kind, record.Scope, record.PagesDumped));
        }
    }

    public class UnknownMessages
    {
        [Theory]
        [InlineData("Something new in SQL Server 2025")]
        [InlineData("")]
        [InlineData("Ünïcode first character")]
        [InlineData("101 percent (1/2 bytes) processed")]
        public void Keep_the_text(string text)
        {
            // When
            var message = MessageOf(text);

            // Then
            Assert.Equal(new UnknownMessage(text), message);
        }

        [Fact]
        public void Keep_the_text_after_the_prefix_and_the_prefix_database()
        {
            // When
            var parsed = new TraceMessageParser().Parse("Backup(db1): Something new");

            // Then
            Assert.Equal(new ParsedTraceMessage("db1", new UnknownMessage("Something new")), parsed);
        }
    }

    public class Allocation
    {
        [Theory]
        [InlineData("Writing a checkpoint")]
        [InlineData("Opening the backup media set")]
        [InlineData("Backup/Restore buffer configuration parameters")]
        public void A_verbatim_step_without_prefix_allocates_nothing(string text)
        {
            // Given one parser, as one input stream has
            var parser = new TraceMessageParser();
            for (var i = 0; i < 1000; i++)
            {
                parser.Parse(text);
            }

            // When: the fewest bytes of five rounds, since the runtime's own one-off work (a method's tier-up) may land on
            // this thread in any one round, while an allocation per call shows in every round
            var perCall = double.MaxValue;
            for (var round = 0; round < 5 && perCall > 0; round++)
            {
                var before = GC.GetAllocatedBytesForCurrentThread();
                for (var i = 0; i < 1000; i++)
                {
                    parser.Parse(text);
                }

                perCall = Math.Min(perCall, (GC.GetAllocatedBytesForCurrentThread() - before) / 1000.0);
            }

            // Then: the message record is shared and the result is a value
            Assert.True(perCall == 0, $"{perCall} bytes per call");
        }
    }
}
