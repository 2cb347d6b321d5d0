using BackupXe.Core.Events;
using BackupXe.Core.Parsing;
using BackupXe.Core.Rendering;
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

    [Fact]
    public void Every_public_enum_of_the_core_is_written_in_the_contracts_spelling()
    {
        // The native build has no converter factory: an enum missing from the list would be written as a number there.
        var enums = typeof(OperationReport).Assembly.GetExportedTypes().Where(t => t.IsEnum).ToList();
        var spelled = ReportJson.EnumConverters().Select(c => c.GetType().GetGenericArguments().Single()).ToList();

        Assert.Equal(enums.OrderBy(t => t.FullName), spelled.OrderBy(t => t.FullName));
        foreach (var type in enums.Where(t => ReportJson.Options.TryGetTypeInfo(t, out _)))
        {
            var first = Enum.GetValues(type).GetValue(0)!;
            Assert.StartsWith("\"", System.Text.Json.JsonSerializer.Serialize(first, type, ReportJson.Options), StringComparison.Ordinal);
        }
    }

    [Fact]
    public void A_type_without_compile_time_metadata_is_refused_not_written_by_reflection()
    {
        var error = Assert.Throws<NotSupportedException>(() => ReportJson.Serialize(new { operations = 1 }));

        Assert.Contains("JsonTypeInfo metadata", error.Message);
    }
}
