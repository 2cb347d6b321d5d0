using System.Text;
using BackupXe.Core.Events;
using BackupXe.Core.History;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using BackupXe.Sources.Formats;
using BackupXe.Sources.OlaOutput;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Sources.OlaOutput;

public sealed class OlaJobOutputReaderTests
{
    private static readonly DateTime Night = new(2024, 5, 1, 1, 0, 0);

    private static (List<HistoryOperation> Records, OlaJobOutputReader Reader) Read(string text)
    {
        var reader = new OlaJobOutputReader("job.txt");
        return (reader.Read(new StringReader(text)).ToList(), reader);
    }

    [Fact]
    public void Reads_every_command_of_a_job_with_its_engine_figures_and_options()
    {
        // Given: two full backups in one job output, the second striped
        var text = new OlaJobOutput()
            .Command(Night, TimeSpan.FromSeconds(42), "BACKUP DATABASE [Sales] TO DISK = N'X:\\b\\Sales_FULL.bak' WITH CHECKSUM, COMPRESSION", pages: 1_310_720, engineSeconds: 41.5)
            .Command(Night.AddSeconds(43), TimeSpan.FromSeconds(20), "BACKUP DATABASE [HR] TO DISK = N'X:\\b\\HR_1.bak', DISK = N'Y:\\b\\HR_2.bak' WITH CHECKSUM, COMPRESSION, BUFFERCOUNT = 50, MAXTRANSFERSIZE = 4194304", pages: 655_360, engineSeconds: 19.25)
            .ToString();

        // When
        var (records, reader) = Read(text);

        // Then
        Assert.Equal("PROD01", reader.Server);
        Assert.Empty(reader.Problems);
        Assert.Equal(2, records.Count);
        var sales = records[0];
        Assert.Equal("Sales", sales.Database);
        Assert.Equal(OperationStatus.Completed, sales.Status);
        Assert.Equal(Night, sales.Start);
        Assert.Equal(Night.AddSeconds(42), sales.End);
        Assert.Equal(1_310_720L * 8192, sales.BytesRead);
        Assert.Equal(41.5, sales.DurationSeconds);
        Assert.Equal(10 * 1024 / 41.5, sales.ThroughputMBps!.Value, 3);
        Assert.Equal([HistorySource.OlaOutput], sales.Sources);
        var hr = records[1];
        Assert.Equal(2, hr.Devices.Count);
        Assert.Equal(50, hr.Options.BufferCount);
        Assert.Equal(4194304, hr.Options.MaxTransferSizeBytes);
    }

    [Fact]
    public void Keeps_a_failed_command_with_its_error_and_no_speed()
    {
        var text = new OlaJobOutput()
            .Command(Night, TimeSpan.FromSeconds(3), "BACKUP LOG [Sales] TO DISK = N'X:\\b\\Sales_LOG.trn' WITH CHECKSUM", outcome: "Failed",
                error: "Cannot open backup device 'X:\\b\\Sales_LOG.trn'. Operating system error 112(There is not enough space on the disk.).")
            .ToString();

        var record = Assert.Single(Read(text).Records);

        Assert.Equal(OperationStatus.Failed, record.Status);
        Assert.Equal(OperationScope.Log, record.Scope);
        Assert.StartsWith("Cannot open backup device", record.ErrorMessage);
        Assert.Null(record.ThroughputMBps);
    }

    [Fact]
    public void Reads_a_duration_over_a_day_and_a_command_without_engine_messages()
    {
        // Given: a 1 day 2 h 3 min 4 s backup, printed as "Duration: 1.02:03:04", with no engine lines (sqlcmd without -m)
        var duration = new TimeSpan(1, 2, 3, 4);
        var text = new OlaJobOutput().Command(Night, duration, "BACKUP DATABASE [Archive] TO URL = N'https://acct.blob.core.windows.net/b/Archive.bak' WITH COMPRESSION").ToString();
        Assert.Contains("Duration: 1.02:03:04", text);

        var record = Assert.Single(Read(text).Records);

        Assert.Equal(duration.TotalSeconds, record.DurationSeconds);
        Assert.Equal(1, record.DurationResolutionSeconds);
        Assert.Null(record.BytesRead);
        Assert.Equal(DeviceKind.Url, Assert.Single(record.Devices).Kind);
    }

    [Fact]
    public void Falls_back_on_the_duration_when_the_end_line_is_missing_and_reports_a_bad_one_with_its_line()
    {
        var text = new OlaJobOutput()
            .Raw("Date and time: 2024-05-01 01:00:00")
            .Raw("Database context: [master]")
            .Raw("Command: BACKUP DATABASE [A] TO DISK = N'a.bak'")
            .Raw("Outcome: Succeeded")
            .Raw("Duration: 00:01:30")
            .Raw("\t")
            .Raw("Date and time: 2024-05-01 01:02:00")
            .Raw("Database context: [master]")
            .Raw("Command: BACKUP DATABASE [B] TO DISK = N'b.bak'")
            .Raw("Outcome: Succeeded")
            .Raw("Duration: 00:99:00")
            .Raw("Date and time: 2024-05-01 01:03:00")
            .ToString();

        var (records, reader) = Read(text);

        Assert.Equal(new DateTime(2024, 5, 1, 1, 1, 30), records[0].End);
        Assert.Equal(new DateTime(2024, 5, 1, 1, 3, 0), records[1].End);
        var problem = Assert.Single(reader.Problems);
        Assert.Equal("line 21", problem.Location);
    }

    [Fact]
    public void Skips_verifyonly_directory_commands_and_commands_not_executed()
    {
        var text = new OlaJobOutput()
            .Command(Night, TimeSpan.Zero, "DECLARE @ReturnCode int EXECUTE @ReturnCode = [master].dbo.xp_create_subdir N'X:\\b\\Sales' IF @ReturnCode <> 0 RAISERROR('Error creating directory.', 16, 1)")
            .Command(Night.AddSeconds(1), TimeSpan.FromSeconds(30), "BACKUP DATABASE [Sales] TO DISK = N'X:\\b\\s.bak'", pages: 1_000_000, engineSeconds: 29.9)
            .Command(Night.AddSeconds(31), TimeSpan.FromSeconds(10), "RESTORE VERIFYONLY FROM DISK = N'X:\\b\\s.bak' WITH CHECKSUM")
            .Command(Night.AddSeconds(41), TimeSpan.Zero, "BACKUP DATABASE [HR] TO DISK = N'X:\\b\\h.bak'", outcome: "Not Executed")
            .ToString();

        var (records, reader) = Read(text);

        Assert.Equal("Sales", Assert.Single(records).Database);
        Assert.Equal(3, reader.SkippedCommands);
    }

    [Fact]
    public void Reads_agent_output_with_sqlstate_suffixes_and_the_pre_2014_datetime_lines()
    {
        var agent = new OlaJobOutput(agentSuffix: true)
            .Command(Night, TimeSpan.FromSeconds(42), "BACKUP DATABASE [Sales] TO DISK = N'X:\\b\\s.bak' WITH COMPRESSION", pages: 1_310_720, engineSeconds: 41.5)
            .ToString();
        var old = "DateTime: 2012-03-04 02:00:00\r\nDatabase context: [master]\r\nCommand: BACKUP LOG [Sales] TO DISK = N'X:\\b\\s.trn'\r\n"
            + "Outcome: Succeeded\r\nDuration: 00:00:12\r\nDateTime: 2012-03-04 02:00:12\r\n \r\n";

        var agentRecord = Assert.Single(Read(agent).Records);
        var oldRecord = Assert.Single(Read(old).Records);

        Assert.Equal(41.5, agentRecord.DurationSeconds);
        Assert.Equal(new DateTime(2012, 3, 4, 2, 0, 12), oldRecord.End);
    }

    [Fact]
    public void Reads_a_restore_whose_output_holds_the_real_per_file_pages_and_stats_lines()
    {
        // Given: a restore in a job output whose engine messages are the real client output of fixtures/realworld
        // S13 (STATS percent lines, one "Processed N pages" line per file, then the completion line)
        var engine = File.ReadLines(RealWorld.Path("S13_sqlworkday_2012_restore_stats_output.txt")).Where(l => l.Trim().Length > 0).ToList();
        Assert.Contains(engine, l => l.StartsWith("Processed 6 pages for database 'TestDB', file 'TestDB_log'", StringComparison.Ordinal));
        var job = new OlaJobOutput()
            .Raw("Date and time: 2024-05-01 01:00:00")
            .Raw("Database context: [master]")
            .Raw("Command: RESTORE DATABASE [TestDB] FROM DISK = N'X:\\b\\TestDB.bak' WITH REPLACE, STATS = 10");
        foreach (var line in engine)
        {
            job.Raw(line);
        }

        var text = job.Raw("Outcome: Succeeded").Raw("Duration: 00:00:24").Raw("Date and time: 2024-05-01 01:00:24").Raw("\t").ToString();

        // When
        var (records, reader) = Read(text);

        // Then: the completion line's pages and seconds, not the per-file lines, give the size and speed
        Assert.Empty(reader.Problems);
        var restore = Assert.Single(records);
        Assert.Equal(OperationKind.Restore, restore.Kind);
        Assert.Equal("TestDB", restore.Database);
        Assert.Equal(292_894L * 8192, restore.BytesRead);
        Assert.Equal(23.265, restore.EngineSeconds);
        Assert.Equal(new DateTime(2024, 5, 1, 1, 0, 24), restore.End);
    }

    [Fact]
    public void Reports_a_completion_line_with_an_impossible_number_at_its_line_and_keeps_the_command()
    {
        // Given: a completion line whose page count overflows any database (damage, not a server's text)
        var text = new OlaJobOutput()
            .Raw("Date and time: 2024-05-01 01:00:00")
            .Raw("Database context: [master]")
            .Raw("Command: BACKUP DATABASE [A] TO DISK = N'a.bak'")
            .Raw("BACKUP DATABASE successfully processed 99999999999999999999 pages in 1.000 seconds (1.000 MB/sec).")
            .Raw("Outcome: Succeeded")
            .Raw("Duration: 00:00:01")
            .Raw("Date and time: 2024-05-01 01:00:01")
            .ToString();

        var (records, reader) = Read(text);

        Assert.Null(Assert.Single(records).BytesRead);
        Assert.Equal("line 14", Assert.Single(reader.Problems).Location);
    }

    [Fact]
    public void A_command_wrapped_over_several_lines_keeps_its_stripes_and_options()
    {
        // Given: a striped backup whose Command: goes on over three more lines (a path cut inside its quotes, then the
        // other stripes, then the options), followed by the engine's own lines
        var text = new OlaJobOutput()
            .Raw("Date and time: 2024-05-01 01:00:00")
            .Raw("Database context: [master]")
            .Raw(@"Command: BACKUP DATABASE [Sales] TO DISK = N'X:\Backup\SQL01\Sales\FULL\SQL01_Sales_FULL_20240501_0100")
            .Raw(@"00_1.bak', DISK = N'Y:\Backup\SQL01\Sales\FULL\SQL01_Sales_FULL_20240501_010000_2.bak',")
            .Raw(@"DISK = N'Z:\Backup\SQL01\Sales\FULL\SQL01_Sales_FULL_20240501_010000_3.bak' WITH CHECKSUM, COMPRESSION,")
            .Raw("BUFFERCOUNT = 50, MAXTRANSFERSIZE = 4194304")
            .Raw("Processed 1310718 pages for database 'Sales', file 'Sales' on file 1.")
            .Raw("Processed 2 pages for database 'Sales', file 'Sales_log' on file 1.")
            .Raw("BACKUP DATABASE successfully processed 1310720 pages in 41.500 seconds (246.747 MB/sec).")
            .Raw("Outcome: Succeeded")
            .Raw("Duration: 00:00:42")
            .Raw("Date and time: 2024-05-01 01:00:42")
            .Raw("\t")
            .ToString();

        // When
        var (records, reader) = Read(text);

        // Then: three stripes, the path joined where it was cut, the options, and the engine's figures
        Assert.Empty(reader.Problems);
        var backup = Assert.Single(records);
        Assert.Equal([@"X:\Backup\SQL01\Sales\FULL\SQL01_Sales_FULL_20240501_010000_1.bak", @"Y:\Backup\SQL01\Sales\FULL\SQL01_Sales_FULL_20240501_010000_2.bak",
            @"Z:\Backup\SQL01\Sales\FULL\SQL01_Sales_FULL_20240501_010000_3.bak"], backup.Devices.Select(d => d.Path));
        Assert.Equal((50, 4_194_304L, true, true), (backup.Options.BufferCount, backup.Options.MaxTransferSizeBytes!.Value, backup.Options.Compression, backup.Options.Checksum));
        Assert.Equal((1_310_720L * 8192, 41.5), (backup.BytesRead!.Value, backup.EngineSeconds!.Value));
    }

    [Theory]
    [InlineData("Processed 1310718 pages for database 'Sales', file 'Sales' on file 1.")]
    [InlineData("10 percent processed.")]
    [InlineData("Msg 3201, Cannot open backup device 'X:\\b\\s.bak'.")]
    [InlineData("Comment: nightly")]
    [InlineData("Outcome: Succeeded")]
    public void A_complete_command_is_not_carried_on_by_the_lines_after_it(string line)
    {
        Assert.False(CommandContinuation.Continues("BACKUP DATABASE [Sales] TO DISK = N'X:\\b\\s.bak' WITH CHECKSUM", line));
    }

    [Fact]
    public void Recognises_job_output_by_content_and_not_an_errorlog()
    {
        var job = Encoding.UTF8.GetBytes(new OlaJobOutput().Command(Night, TimeSpan.FromSeconds(1), "BACKUP LOG [a] TO DISK = N'a.trn'").ToString());
        var errorlog = File.ReadAllBytes(RealWorld.Path("S12_psssql_2008_restore_errorlog_default_logging.txt"));

        Assert.True(OlaJobOutputReader.Recognise(new InputPrefix(job, isWholeInput: true).Text));
        Assert.False(OlaJobOutputReader.Recognise(new InputPrefix(errorlog, isWholeInput: true).Text));
    }

    [Fact]
    public void A_line_break_inside_a_database_name_is_located_and_the_command_read_whole()
    {
        // Given a database named "Fi" + line break + "rst" (CommandExecute prints the command as it is)
        var text = new OlaJobOutput()
            .Command(Night, TimeSpan.FromSeconds(5), "BACKUP DATABASE [Fi\r\nrst] TO DISK = N'X:\\F.bak' WITH CHECKSUM", pages: 1000, engineSeconds: 4)
            .Command(Night.AddMinutes(1), TimeSpan.FromSeconds(5), "BACKUP DATABASE [Second] TO DISK = N'X:\\S.bak'", pages: 1000, engineSeconds: 4)
            .ToString();

        // When
        var (records, reader) = Read(text);

        // Then both are kept, and the break is one located problem at the Command: line
        Assert.Equal(["Fi\nrst", "Second"], records.Select(r => r.Database));
        Assert.Equal(OperationStatus.Completed, records[0].Status);
        Assert.Equal(1000 * 8192L, records[0].BytesRead);
        var problem = Assert.Single(reader.Problems);
        Assert.Equal("line 13", problem.Location);
        Assert.Contains("line break inside a quoted name or path", problem.Message);
    }

    [Fact]
    public void An_option_value_SQL_Server_would_not_take_is_located_at_its_command()
    {
        // Given MAXTRANSFERSIZE = 1e30, once read as 1 byte
        var text = new OlaJobOutput()
            .Command(Night, TimeSpan.FromSeconds(5), "BACKUP DATABASE [Sales] TO DISK = N'X:\\F.bak' WITH CHECKSUM, MAXTRANSFERSIZE = 1e30", pages: 1000, engineSeconds: 4)
            .ToString();

        // When
        var (records, reader) = Read(text);

        // Then
        Assert.Null(Assert.Single(records).Options.MaxTransferSizeBytes);
        var problem = Assert.Single(reader.Problems);
        Assert.Equal("line 13", problem.Location);
        Assert.StartsWith("MAXTRANSFERSIZE = 1e30: a float constant", problem.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("\t")]
    [InlineData("Date and time: 2024-05-01 01:01:05")]
    public void An_output_whose_last_line_lost_only_its_newline_is_read_whole(string lastLine)
    {
        // Given an output that ends at its closing TAB line, or at the end line before it, without the line break
        var text = new OlaJobOutput()
            .Command(Night, TimeSpan.FromSeconds(5), "BACKUP DATABASE [First] TO DISK = N'X:\\F.bak'", pages: 1000, engineSeconds: 4)
            .Command(Night.AddMinutes(1), TimeSpan.FromSeconds(5), "BACKUP DATABASE [Second] TO DISK = N'X:\\S.bak'", pages: 1000, engineSeconds: 4)
            .ToString();
        text = text[..(text.LastIndexOf(lastLine, StringComparison.Ordinal) + lastLine.Length)];

        // When
        var (records, reader) = Read(text);

        // Then
        Assert.Empty(reader.Problems);
        Assert.Equal(["First", "Second"], records.Select(r => r.Database));
        Assert.All(records, r => Assert.Equal(OperationStatus.Completed, r.Status));
        Assert.Equal(Night.AddMinutes(1).AddSeconds(5), records[1].End);
    }

    [Theory]
    [InlineData("[SQL")]
    [InlineData("[")]
    [InlineData("[SQLSTATE 010")]
    public void An_agent_suffix_split_by_a_fold_is_joined_and_the_completion_read(string head)
    {
        // Given Agent output folded inside the completion line's " [SQLSTATE 01000]"
        var lines = new OlaJobOutput(agentSuffix: true)
            .Command(Night, TimeSpan.FromSeconds(5), "BACKUP DATABASE [Sales] TO DISK = N'X:\\F.bak'", pages: 1000, engineSeconds: 4)
            .ToString().Split("\r\n");
        var at = Array.FindIndex(lines, l => l.Contains("successfully processed", StringComparison.Ordinal));
        var cut = lines[at].IndexOf("[SQLSTATE", StringComparison.Ordinal) + head.Length;
        var text = string.Join("\r\n", [.. lines[..at], lines[at][..cut], lines[at][cut..], .. lines[(at + 1)..]]);

        // When
        var (records, reader) = Read(text);

        // Then
        Assert.Empty(reader.Problems);
        var sales = Assert.Single(records);
        Assert.Equal(1000 * 8192L, sales.BytesRead);
        Assert.Equal(4, sales.EngineSeconds);
    }
}
