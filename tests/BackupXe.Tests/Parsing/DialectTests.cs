using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using Xunit;

namespace BackupXe.Tests.Parsing;

/// <summary>
/// The message wordings of each SQL Server version (docs/diagnosis.md, "Dialects"), each line built from the real
/// formats of the fixtures and the public samples the page cites.
/// </summary>
public static class DialectTests
{
    private static TraceMessage MessageOf(string text) => new TraceMessageParser().Parse(text).Message;

    public class Sql2008R2TraceFlag3014
    {
        [Theory]
        [InlineData("BackupStream(0): Starting MSDA of size 384 extents", 0, 384)]
        [InlineData("BackupStream(1): Writing MSDA of size 1296 extents", 1, 1296)]
        public void Reads_the_stream_starting_its_data_extents(string text, int stream, long extents)
        {
            Assert.Equal(new MsdaStarted(stream, extents), MessageOf(text));
        }

        [Theory]
        [InlineData("Padding MSDA with 327680 bytes")]
        [InlineData("BackupStream(0): Total MSDA: 384 extents")]
        [InlineData("BackupStream(0): Total MSDA size = 1296 extents")]
        public void Knows_the_padding_and_total_lines(string text)
        {
            Assert.IsType<KnownStep>(MessageOf(text));
        }

        [Theory]
        [InlineData(@"Started file C:\DATA\3014_demo.mdf", true)]
        [InlineData(@"Completed file C:\DATA\3014_demo.mdf", false)]
        public void Reads_the_older_file_wording(string text, bool started)
        {
            var message = MessageOf(text);
            Assert.Equal(started ? new DataFileReadStarted(@"C:\DATA\3014_demo.mdf") : new DataFileReadCompleted(@"C:\DATA\3014_demo.mdf"), message);
        }

        [Fact]
        public void Reads_a_device_between_typographic_quotes_as_pasted_from_a_web_page()
        {
            // Given: the published sample's quotes, as its page shows them
            var text = "Database backed up. Database: 3014_demo, creation date(time): 2011/09/15(21:46:19), pages dumped: 3100, "
                + "first LSN: 163:1808:37, last LSN: 163:1824:1, number of dump devices: 1, device information: (FILE=2, TYPE=DISK: {\u2018D:\\Backs\\3014_full.bak\u2019}).";

            // When
            var record = Assert.IsType<HistoryRecord>(MessageOf(text));

            // Then
            Assert.Equal(3100, record.PagesDumped);
            Assert.Equal([@"D:\Backs\3014_full.bak"], record.Devices);
        }
    }

    public class DefaultLogging
    {
        [Fact]
        public void Reads_the_database_marked_restoring()
        {
            Assert.Equal(
                new DatabaseMarkedRestoring("dbPerf_MAIN"),
                MessageOf("The database 'dbPerf_MAIN' is marked RESTORING and is in a state that does not allow recovery to be run."));
        }
    }

    public class Sql2012TraceFlag3004
    {
        [Theory]
        [InlineData("SetTargetRestoreAge: 0")]
        [InlineData("FileHandleCache: 0 files opened. CacheSize: 12")]
        public void Knows_the_detail_lines_between_the_steps(string text)
        {
            Assert.IsType<KnownStep>(MessageOf(text));
        }
    }

    public class InMemoryOltpContainers
    {
        [Fact]
        public void Keeps_the_container_estimate_line_of_a_memory_optimized_filegroup_as_known()
        {
            // Given: the FID=65537 line of the 2014 trace flag 3014 fixture, a memory-optimized container
            var message = MessageOf("FID=65537, Size=9437184 bytes, ExpectedExtents=133, AlignedDataSize=8192512 bytes, OverheadSize=518144 bytes");

            // Then
            Assert.IsType<KnownStep>(message);
        }

        [Fact]
        public void Knows_the_harmless_checkpoint_file_warning_of_a_backup()
        {
            // Given: the warning of Microsoft KB 4316959 (SQL Server 2016), as the errorlog writes it
            var message = MessageOf("[WARNING] HkHostBackupGetCheckpointFileInfoV2 (). Database ID: [21]. Not a valid checkpoint file name. "
                + "FileName: ffffffdd-fffffb17-fffd.00000022-000004e8-0002.4b987b24-bf74-485d-b32e-e7ddfb496457.0-0. 1000016. "
                + "(d:\\b\\s3\\sources\\sql\\ntdbms\\hekaton\\sqlhost\\sqlmin\\hkhostbackup.cpp : 2958)");

            // Then
            Assert.IsType<KnownStep>(message);
        }
    }

    public class ClientOutput
    {
        [Theory]
        [InlineData("10 percent processed.", 10)]
        [InlineData("100 percent processed.", 100)]
        [InlineData("  5 percent processed", 5)]
        public void Reads_the_STATS_percent_line(string text, int percent)
        {
            Assert.Equal(new PercentReached(percent), MessageOf(text));
        }

        [Theory]
        [InlineData("Processed 292888 pages for database 'TestDB', file 'TestDB' on file 1.", "TestDB", "TestDB", 292888L, 1)]
        [InlineData("Processed 6 pages for database 'TestDB', file 'TestDB_log' on file 1.", "TestDB", "TestDB_log", 6L, 1)]
        [InlineData("Processed 0 pages for database 'Sales DB', file 'Sales Data' on file 12.", "Sales DB", "Sales Data", 0L, 12)]
        public void Reads_the_pages_of_each_file(string text, string database, string file, long pages, int position)
        {
            Assert.Equal(new FilePagesProcessed(database, file, pages, position), MessageOf(text));
        }

        [Theory]
        [InlineData("Processed pages for database 'D', file 'F' on file 1.")]
        [InlineData("Processed 12 pages for database D, file 'F' on file 1.")]
        [InlineData("Processed 12 pages for database 'D', file 'F' on file 1. and more")]
        public void Leaves_malformed_page_lines_unknown(string text)
        {
            Assert.IsType<UnknownMessage>(MessageOf(text));
        }

        [Theory]
        [InlineData("BACKUP LOG successfully processed 2 pages in 0.004 seconds (3.906 MB/sec).", OperationKind.Backup, OperationScope.Log, 2L)]
        [InlineData("RESTORE LOG successfully processed 0 pages in 0.005 seconds (0.000 MB/sec).", OperationKind.Restore, OperationScope.Log, 0L)]
        [InlineData("BACKUP DATABASE WITH DIFFERENTIAL successfully processed 49 pages in 0.031 seconds (12.348 MB/sec).", OperationKind.Backup, OperationScope.Differential, 49L)]
        public void Reads_the_completion_line_variants(string text, OperationKind kind, OperationScope scope, long pages)
        {
            var summary = Assert.IsType<CompletionSummary>(MessageOf(text));
            Assert.Equal((kind, scope, pages), (summary.Kind, summary.Scope, summary.Pages));
        }
    }

    public class PublishedExcerpts
    {
        [Theory]
        [InlineData("    ... in 1.414 seconds (134.067 MB/sec)", null, 1.414, 134.067)]
        [InlineData("    ... 24266 pages in 0.694 seconds (273.156 MB/sec).", 24266L, 0.694, 273.156)]
        [InlineData("... in 15.882 seconds (11.971 MB/sec).", null, 15.882, 11.971)]
        public void Reads_the_figures_of_a_completion_line_whose_head_was_cut(string text, long? pages, double seconds, double rate)
        {
            Assert.Equal(new ElidedCompletion(pages, seconds, rate), MessageOf(text));
        }

        [Theory]
        [InlineData("... and so on")]
        [InlineData("... 24266 in 0.694 seconds (273.156 MB/sec).")]
        [InlineData("... in 0.694 seconds")]
        [InlineData("... in 0.694 seconds (273.156 MB/sec) and then")]
        public void Leaves_other_elisions_unknown(string text)
        {
            Assert.IsType<UnknownMessage>(MessageOf(text));
        }

        [Fact]
        public void Reports_seconds_no_clock_can_count()
        {
            Assert.IsType<ImplausibleValue>(MessageOf("... in 99999999999999 seconds (1.000 MB/sec)"));
        }
    }

    public class Sql2022Upgrade
    {
        [Fact]
        public void Reads_the_conversion_after_a_restores_copy()
        {
            Assert.Equal(
                new DatabaseUpgrade("WideWorldImporters", 904, 957, IsStep: false),
                MessageOf("Converting database 'WideWorldImporters' from version 904 to the current version 957."));
        }

        [Fact]
        public void Reads_each_upgrade_step()
        {
            Assert.Equal(
                new DatabaseUpgrade("WideWorldImporters", 904, 905, IsStep: true),
                MessageOf("Database 'WideWorldImporters' running the upgrade step from version 904 to version 905."));
        }

        [Theory]
        [InlineData("Database 'X' running the upgrade step from version 904.")]
        [InlineData("Converting database 'X' from version A to the current version 957.")]
        public void Leaves_a_malformed_upgrade_line_unknown(string text)
        {
            Assert.IsType<UnknownMessage>(MessageOf(text));
        }
    }

    public class BackupToUrl
    {
        [Theory]
        [InlineData("BackupStream(0): Writing leading metadata to the device https://acct.blob.core.windows.net/backups/Sales.bak")]
        [InlineData("BackupStream(0): Writing leading metadata to the device s3://s3.example.com:9000/backups/Sales.bak")]
        public void Names_a_url_device(string text)
        {
            var device = Assert.IsType<BackupDeviceNamed>(MessageOf(text));
            Assert.Contains("://", device.Path, StringComparison.Ordinal);
        }

        [Fact]
        public void Reads_a_url_device_of_the_history_line()
        {
            var record = Assert.IsType<HistoryRecord>(MessageOf(
                "Database backed up. Database: WideWorldImporters, creation date(time): 2022/08/03(19:50:39), pages dumped: 63457, first LSN: 626:25056:2, "
                + "last LSN: 627:10424:1, number of dump devices: 1, device information: (FILE=1, TYPE=URL: {'s3://s3.example.com:9000/backups/WWI.bak'}). "
                + "This is an informational message only. No user action is required."));
            Assert.Equal(["s3://s3.example.com:9000/backups/WWI.bak"], record.Devices);
        }
    }
}
