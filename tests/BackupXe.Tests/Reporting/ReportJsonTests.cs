using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;
using Xunit;

namespace BackupXe.Tests.Reporting;

public sealed class ReportJsonTests
{
    private static readonly OperationReport Report = new()
    {
        Kind = OperationKind.Backup,
        Scope = OperationScope.Database,
        Database = "Sales",
        Start = new DateTime(2025, 3, 3, 1, 0, 0, DateTimeKind.Utc),
        Status = OperationStatus.Completed,
        ThroughputMBps = 41.5,
        Verdict = new Verdict(Bottleneck.BufferStarved, Confidence.High, ["BACKUPBUFFER 81% of writer time"]),
        WaitAttribution = WaitAttribution.TimeOverlap,
    };

    [Fact]
    public void Names_are_camel_case_enums_kebab_case_and_nulls_written()
    {
        var json = ReportJson.Serialize(Report);

        Assert.Contains("\"kind\":\"backup\"", json);
        Assert.Contains("\"throughputMBps\":41.5", json);
        Assert.Contains("\"bottleneck\":\"buffer-starved\"", json);
        Assert.Contains("\"waitAttribution\":\"time-overlap\"", json);
        Assert.Contains("\"sessionId\":null", json);
    }

    [Fact]
    public void A_report_survives_the_round_trip()
    {
        var back = ReportJson.Deserialize<OperationReport>(ReportJson.Serialize(Report));

        Assert.Equal(ReportJson.Serialize(Report, indented: true), ReportJson.Serialize(back, indented: true));
        Assert.Equal(Bottleneck.BufferStarved, back.Verdict?.Bottleneck);
    }
}
