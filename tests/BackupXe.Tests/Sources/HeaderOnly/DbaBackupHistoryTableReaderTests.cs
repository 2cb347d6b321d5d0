using BackupXe.Core.Baselines;
using BackupXe.Core.Events;
using BackupXe.Core.History;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using BackupXe.Sources;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Sources.HeaderOnly;

/// <summary>dbatools' Get-DbaDbBackupHistory printed as a table, read as msdb history: the real T01c tables and variants.</summary>
public sealed class DbaBackupHistoryTableReaderTests : IDisposable
{
    private const string T01c = "T01c_purestorage_sql2022_snapshot_backup_history_get-dbadbbackuphistory.txt";

    private readonly string _folder = Directory.CreateTempSubdirectory("backupxe-dba-history-").FullName;

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    [Fact]
    public async Task T01c_is_a_7_GB_full_in_no_time_and_a_log_backup_neither_ranked_at_one_second_resolution()
    {
        // Given / When: two tables, the second listing the full again after the log backup
        var file = await HistoryFileRead.ReadAsync(Fixture.RealWorld2(T01c), CancellationToken.None);

        // Then: each backup once; 7.00 GB and 813.00 KB as dbatools rounds them; 00:00:00 is under a second, not a speed
        Assert.Equal("dbatools-backup-history", file.Format);
        Assert.Equal("Windows1", file.Server);
        Assert.Empty(file.Problems);
        Assert.Equal(2, file.Records.Count);
        var full = Assert.Single(file.Records, r => r.Scope == OperationScope.Database);
        Assert.Equal((OperationKind.Backup, "TPCC100", OperationStatus.Completed), (full.Kind, full.Database, full.Status));
        Assert.Equal((new DateTime(2024, 6, 18, 8, 37, 59), new DateTime(2024, 6, 18, 8, 37, 59)), (full.Start, full.End!.Value));
        Assert.Equal(7L << 30, full.BytesRead);
        Assert.Equal(0, full.DurationSeconds);
        Assert.Null(full.ThroughputMBps);
        Assert.Equal([HistorySource.Msdb], full.Sources);
        Assert.Equal(DeviceKind.Disk, Assert.Single(full.Devices).Kind);
        var log = Assert.Single(file.Records, r => r.Scope == OperationScope.Log);
        Assert.Equal((813L * 1024, new DateTime(2024, 6, 18, 8, 40, 43)), (log.BytesRead!.Value, log.Start));

        // And: its series has no speed to give
        var series = SeriesStatistics.Compute(file.Records.Select(r => new InstanceOperation("Windows1", r)));
        Assert.All(series, s => Assert.Equal((1, 0), (s.Count, s.Ranked)));
    }

    [Fact]
    public async Task Analyze_reads_it_as_history_import_does()
    {
        // Given / When
        var source = InputSources.Open(Fixture.RealWorld2(T01c));
        var status = new SourceStatus();
        var events = new List<TraceEvent>();
        await foreach (var traceEvent in source.ReadEventsAsync(status, CancellationToken.None))
        {
            events.Add(traceEvent);
        }

        var reports = PipelineRun.Of(events).Reports;

        // Then: the full backup (listed again by the second call, one backup) and the log, each with msdb's times and size (issue 42)
        Assert.Equal("dbatools-backup-history", source.Format);
        Assert.Empty(status.Problems);
        Assert.Equal([(OperationScope.Database, 7L << 30), (OperationScope.Log, 813L * 1024)], reports.Select(r => (r.Scope!.Value, r.BytesProcessed!.Value)));
        Assert.All(reports, r => Assert.Equal(0, r.ClientCommand!.Seconds));
    }

    [Theory]
    [InlineData("Windows1    TPCC100  Full 7.00 XB   Disk       2024-06-18 08:37:59.000 00:00:00 2024-06-18 08:37:59.000", "TotalSize '7.00 XB' is not a size")]
    [InlineData("Windows1    TPCC100  Full 7.00 GB   Disk       2024-06-18 08:37:59.000 00:00:00 2024-06-18 08:37:58.000", "unreadable Start")]
    [InlineData("Windows1    TPCC100  Copy 7.00 GB   Disk       2024-06-18 08:37:59.000 00:00:00 2024-06-18 08:37:59.000", "unknown Type 'Copy'")]
    public async Task Skips_a_damaged_row_with_its_line_and_keeps_the_others(string damaged, string problem)
    {
        // Given: the T01c heading, a damaged row, then a good one
        var path = Path.Combine(_folder, "history.txt");
        await File.WriteAllTextAsync(path, string.Join("\r\n",
            "SqlInstance Database Type TotalSize DeviceType Start                   Duration End                    ",
            "----------- -------- ---- --------- ---------- -----                   -------- ---                    ",
            damaged,
            "Windows1    TPCC100  Log  813.00 KB Disk       2024-06-18 08:40:43.000 00:00:00 2024-06-18 08:40:43.000",
            ""));

        // When
        var file = await HistoryFileRead.ReadAsync(path, CancellationToken.None);

        // Then
        var found = Assert.Single(file.Problems);
        Assert.Equal("line 3", found.Location);
        Assert.Contains(problem, found.Message, StringComparison.Ordinal);
        Assert.Equal(OperationScope.Log, Assert.Single(file.Records).Scope);
    }
}
