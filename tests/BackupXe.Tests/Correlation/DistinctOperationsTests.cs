using BackupXe.Core.Events;
using BackupXe.Core.Reporting;
using BackupXe.Sources;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Correlation;

/// <summary>Two operations of one database stay two, however close in time: each history line is one operation's.</summary>
public sealed class DistinctOperationsTests
{
    [Fact]
    public async Task Two_log_restores_a_quarter_second_apart_are_two_restores_of_one_device_each()
    {
        // Given: default logging of a log-shipping restore job applying two log backups 0.27 s apart
        const string text = "2024-05-01 03:00:01.10 Backup      Log was restored. Database: Sales, creation date(time): 2024/04/01(09:59:01), first LSN: 40:100:1, last LSN: 40:200:1, number of dump devices: 1, device information: (FILE=1, TYPE=DISK: {'D:\\Logs\\Sales_0300.trn'}). This is an informational message. No user action is required.\r\n"
            + "2024-05-01 03:00:01.37 Backup      Log was restored. Database: Sales, creation date(time): 2024/04/01(09:59:01), first LSN: 40:200:1, last LSN: 40:300:1, number of dump devices: 1, device information: (FILE=1, TYPE=DISK: {'D:\\Logs\\Sales_0315.trn'}). This is an informational message. No user action is required.\r\n";
        using var input = TempInput.WithText(text, Encodings.Utf16LeWithBom, "ERRORLOG");

        // When
        var reports = (await PipelineRun.OfAsync(InputSources.Open(input.Path))).Reports;

        // Then
        Assert.Equal(2, reports.Count);
        Assert.All(reports, r => Assert.Equal((OperationKind.Restore, OperationScope.Log, "Sales"), (r.Kind, r.Scope, r.Database)));
        Assert.Equal(["D:\\Logs\\Sales_0300.trn", "D:\\Logs\\Sales_0315.trn"], reports.Select(r => Assert.Single(r.Devices).Path));
    }
}
