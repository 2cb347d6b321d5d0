using System.Text;
using BackupXe.Core.Events;
using BackupXe.Core.History;
using BackupXe.Core.Reporting;
using BackupXe.Sources;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Sources.Dbatools;

/// <summary>
/// dbatools' <c>Backup-DbaDatabase</c> result as PowerShell prints it by default: the object has more properties than a
/// table holds, so it is a list of <c>Name : Value</c> lines, the names padded to the longest, a long value wrapped under
/// its column at the console's width (120 here). The properties and their order are those of dbatools' BackupHistory
/// object plus what Backup-DbaDatabase adds (BackupComplete ... Verified), without the ones it leaves out of its view
/// when the backup succeeded (FullName, FileList, SoftwareVersionMajor, Notes, the LSNs, BackupSetId, LastRecoveryForkGuid).
/// </summary>
public sealed class DbaBackupObjectsTests
{
    private static string ListView(params (string Name, string Value)[][] objects)
    {
        var text = new StringBuilder("\r\n");
        foreach (var properties in objects)
        {
            var width = properties.Max(p => p.Name.Length);
            foreach (var (name, value) in properties)
            {
                var line = $"{name.PadRight(width)} : {value}";
                while (line.Length > 120)
                {
                    var cut = line.LastIndexOf(' ', 119);
                    text.Append(line[..cut]).Append("\r\n");
                    line = new string(' ', width + 3) + line[(cut + 1)..];
                }

                text.Append(line).Append("\r\n");
            }

            text.Append("\r\n");
        }

        return text.Append("\r\n").ToString();
    }

    private static (string, string)[] Result(string database, string start, string end, string duration, string size, string file, string script, string complete = "True") =>
    [
        ("ComputerName", "SQL01"), ("InstanceName", "MSSQLSERVER"), ("SqlInstance", "SQL01"), ("Database", database), ("UserName", @"CONTOSO\dba"),
        ("Start", start), ("End", end), ("Duration", duration), ("Path", $@"{{\\nas01\sql\{file}}}"), ("TotalSize", size),
        ("CompressedBackupSize", "31.25 GB"), ("CompressionRatio", "3.2"), ("Type", "Full"), ("DeviceType", "Disk"), ("Software", "Microsoft SQL Server"),
        ("Position", "1"), ("IsCopyOnly", "True"), ("RecoveryModel", "FULL"), ("KeyAlgorithm", ""), ("EncryptorThumbprint", ""), ("EncryptorType", ""),
        ("BackupComplete", complete), ("BackupFile", file), ("BackupFilesCount", "1"), ("BackupFolder", @"\\nas01\sql"), ("BackupPath", $@"\\nas01\sql\{file}"),
        ("DatabaseName", database), ("Script", script), ("Verified", "False"),
    ];

    private const string SalesScript = @"BACKUP DATABASE [Sales] TO  DISK = N'\\nas01\sql\Sales_202405072210.bak' WITH  COPY_ONLY, BUFFERCOUNT = 64, "
        + "MAXTRANSFERSIZE = 4194304, NOFORMAT, NOINIT, NOSKIP, REWIND, NOUNLOAD, COMPRESSION,  STATS = 1";

    private static async Task<(IReadOnlyList<OperationReport> Reports, SourceStatus Status, string Format)> AnalyseAsync(string text)
    {
        using var input = TempInput.WithText(text, Encodings.Utf8WithoutBom, "backup.txt");
        var source = InputSources.Open(input.Path);
        var status = new SourceStatus();
        var run = PipelineRun.Of(await Events(source, status));
        return (run.Reports, status, source.Format);
    }

    private static async Task<List<TraceEvent>> Events(ITraceEventSource source, SourceStatus status)
    {
        var events = new List<TraceEvent>();
        await foreach (var traceEvent in source.ReadEventsAsync(status, CancellationToken.None))
        {
            events.Add(traceEvent);
        }

        return events;
    }

    [Fact]
    public async Task A_Backup_DbaDatabase_result_is_an_operation_with_its_time_size_and_the_options_of_its_script()
    {
        // Given: one result, its Script wrapped over three lines at the console's width
        var text = ListView(Result("Sales", "2024-05-07 22:10:04.000", "2024-05-07 22:13:31.000", "00:03:27", "100.00 GB", "Sales_202405072210.bak", SalesScript));
        Assert.Contains("\r\n" + new string(' ', 23) + "BUFFERCOUNT = 64, MAXTRANSFERSIZE = 4194304", text, StringComparison.Ordinal);

        // When
        var (reports, status, format) = await AnalyseAsync(text);

        // Then
        Assert.Equal("dbatools-backup-objects", format);
        Assert.Empty(status.Problems);
        var backup = Assert.Single(reports);
        Assert.Equal((OperationKind.Backup, OperationScope.Database, "Sales", OperationStatus.Completed), (backup.Kind, backup.Scope, backup.Database, backup.Status));
        Assert.Equal(100L << 30, backup.BytesProcessed);
        Assert.Equal(new ClientCommandReport(new DateTime(2024, 5, 7, 22, 10, 4), new DateTime(2024, 5, 7, 22, 13, 31), 207, 1,
            "dbatools' Start and End (msdb's), to the second"), backup.ClientCommand);
        var requested = backup.Requested!;
        Assert.Equal([@"\\nas01\sql\Sales_202405072210.bak"], requested.Devices);
        Assert.Equal(new RequestedReport(requested.Devices, 64, 4_194_304, null, true, null, true, "the Script of Backup-DbaDatabase"), requested);
        Assert.Contains(backup.Verdict!.Evidence, e => e.StartsWith("Its time is the client's only: 3 min 27 s", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Two_results_of_one_database_are_compared_as_runs()
    {
        // Given: the same 100 GB database backed up twice, the second with BUFFERCOUNT 64 and 4 MB transfers
        var plain = SalesScript.Replace("BUFFERCOUNT = 64, MAXTRANSFERSIZE = 4194304, ", "", StringComparison.Ordinal);
        var text = ListView(
            Result("Sales", "2024-05-06 22:10:04.000", "2024-05-06 22:21:40.000", "00:11:36", "100.00 GB", "Sales_202405062210.bak", plain.Replace("20240507", "20240506", StringComparison.Ordinal)),
            Result("Sales", "2024-05-07 22:10:04.000", "2024-05-07 22:13:31.000", "00:03:27", "100.00 GB", "Sales_202405072210.bak", SalesScript));
        using var input = TempInput.WithText(text, Encodings.Utf8WithoutBom, "backups.txt");
        var session = new Core.Analysis.AnalysisSession([InputSources.Open(input.Path)], new Core.Analysis.AnalysisOptions { CompareRuns = true });

        // When
        await foreach (var unused in session.ReadOperationsAsync(CancellationToken.None))
        {
        }

        // Then: 696 s against 207 s on the client's clock, the buffers alone apart
        var buffers = Assert.Single(Assert.Single(session.Findings.RunsCompared).Conclusions);
        Assert.Equal(("buffers", 3.36, "time"), (buffers.Factor, buffers.Ratio, buffers.RatioOf));
    }

    [Fact]
    public async Task An_object_with_an_unreadable_start_is_reported_at_its_line_and_the_others_analysed()
    {
        // Given: a first object whose Start is no date, then a good one
        var text = ListView(
            Result("HR", "yesterday", "2024-05-07 22:13:31.000", "00:03:27", "10.00 GB", "HR.bak", "BACKUP DATABASE [HR] TO  DISK = N'\\\\nas01\\sql\\HR.bak'"),
            Result("Sales", "2024-05-07 22:10:04.000", "2024-05-07 22:13:31.000", "00:03:27", "100.00 GB", "Sales_202405072210.bak", SalesScript));

        // When
        var (reports, status, _) = await AnalyseAsync(text);

        // Then
        Assert.Equal("Sales", Assert.Single(reports).Database);
        var problem = Assert.Single(status.Problems);
        Assert.Equal("line 2", problem.Location);
        Assert.StartsWith("unreadable Start 'yesterday'", problem.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task History_import_reads_the_same_result()
    {
        // Given
        var text = ListView(Result("Sales", "2024-05-07 22:10:04.000", "2024-05-07 22:13:31.000", "00:03:27", "100.00 GB", "Sales_202405072210.bak", SalesScript));
        using var input = TempInput.WithText(text, Encodings.Utf8WithoutBom, "backup.txt");

        // When
        var file = await HistoryFileRead.ReadAsync(input.Path, CancellationToken.None);

        // Then
        Assert.Equal(("dbatools-backup-objects", "SQL01"), (file.Format, file.Server));
        var record = Assert.Single(file.Records);
        Assert.Equal((64, 207.0, 100L << 30), (record.Options.BufferCount, record.DurationSeconds!.Value, record.BytesRead!.Value));
    }

    /// <summary>Get-DbaDbBackupHistory | Format-List: the history object's own properties, its LSNs among them (dbatools' BackupHistory).</summary>
    private static (string, string)[] HistoryObject(string type, string start, string end, string first, string last, string checkpoint, string databaseBackup) =>
    [
        ("ComputerName", "SQL01"), ("InstanceName", "MSSQLSERVER"), ("SqlInstance", "SQL01"), ("Database", "Sales"), ("DatabaseId", "5"), ("UserName", @"CONTOSO\svc_sql"),
        ("Start", start), ("End", end), ("Duration", "00:05:12"), ("Path", @"{X:\backup\Sales.bak}"), ("TotalSize", "7.00 GB"), ("CompressedBackupSize", "2.10 GB"),
        ("CompressionRatio", "3.33"), ("Type", type), ("BackupSetId", "101"), ("DeviceType", "Disk"), ("Software", "Microsoft SQL Server"),
        ("FullName", @"{X:\backup\Sales.bak}"), ("Position", "1"), ("FirstLsn", first), ("DatabaseBackupLsn", databaseBackup), ("CheckpointLsn", checkpoint),
        ("LastLsn", last), ("SoftwareVersionMajor", "16"), ("IsCopyOnly", "False"), ("LastRecoveryForkGuid", "918cdbdd-e60c-4db5-b57e-bab507756b31"),
        ("RecoveryModel", "FULL"), ("KeyAlgorithm", ""), ("EncryptorThumbprint", ""), ("EncryptorType", ""),
    ];

    [Fact]
    public async Task Get_DbaDbBackupHistory_objects_keep_their_lsns_copy_only_and_recovery_model_and_analyze_reads_them_too()
    {
        // Given: a full and the log backup after it, then a log whose LastLsn is no LSN
        var text = ListView(
            HistoryObject("Full", "2024-06-18 08:00:00.000", "2024-06-18 08:05:12.000", "41000000016000037", "41000000017600001", "41000000016000037", "41000000000000001"),
            HistoryObject("Log", "2024-06-18 08:15:00.000", "2024-06-18 08:15:03.000", "41000000008800001", "41000000018400001", "41000000018400001", "41000000016000037"),
            HistoryObject("Log", "2024-06-18 08:30:00.000", "2024-06-18 08:30:03.000", "41000000018400001", "4100000001840000X", "41000000018400001", "41000000016000037"));
        using var input = TempInput.WithText(text, Encodings.Utf8WithoutBom, "history.txt");

        // When
        var file = await HistoryFileRead.ReadAsync(input.Path, CancellationToken.None);
        var (reports, status, format) = await AnalyseAsync(text);

        // Then: the LSNs as msdb wrote them, the damaged one said at its object's line and the backup kept without LSNs
        Assert.Equal(3, file.Records.Count);
        Assert.Equal(new BackupLsns(41000000016000037m, 41000000017600001m, 41000000000000001m, 41000000016000037m), file.Records[0].Lsns);
        Assert.Equal(41000000008800001m, file.Records[1].Lsns!.FirstLsn);
        Assert.Equal(("FULL", false), (file.Records[0].RecoveryModel, file.Records[0].Options.CopyOnly));
        Assert.Null(file.Records[2].Lsns);
        var problem = Assert.Single(file.Problems);
        Assert.Contains("last LSN '4100000001840000X' is not an LSN", problem.Message, StringComparison.Ordinal);
        Assert.Equal("dbatools-backup-objects", format);
        Assert.Equal(3, reports.Count);
        Assert.Equal(3, status.Events);
    }
}
