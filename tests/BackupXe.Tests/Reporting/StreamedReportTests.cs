using System.Text.Json;
using BackupXe.Core.Analysis;
using BackupXe.Core.Events;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using Xunit;
using BackupXe.Tests.Support;

namespace BackupXe.Tests.Reporting;

/// <summary>Reports are written while the analysis runs: output appears before the end, and stays one document.</summary>
public class StreamedReportTests
{
    private static readonly AnalysisFindings Findings = new([new InputReport("x.xml", "xe-xml", 42, [])], 3, 0)
    {
        AmbiguousWaits = [new WaitReport("BACKUPIO", 2, 30, 20, 0)],
    };

    private static OperationReport Operation(int i) => new()
    {
        Kind = OperationKind.Backup,
        Database = $"Db{i}",
        SessionId = 50 + (i % 100),
        Start = new DateTime(2025, 3, 3, 1, 0, 0, DateTimeKind.Utc).AddMinutes(i),
        Status = i % 10 == 0 ? OperationStatus.Failed : OperationStatus.Completed,
        Verdict = new Verdict(i % 2 == 0 ? Bottleneck.BufferStarved : Bottleneck.BackupDevice, Confidence.High, ["because"]),
    };

    [Fact]
    public void Json_is_written_before_the_run_ends_and_is_one_document_with_operations_inputs_and_summary()
    {
        // Given
        using var output = new MemoryStream();
        using var writer = new JsonReportWriter(output);

        // When: enough operations to fill more than one block
        for (var i = 0; i < 5000; i++)
        {
            writer.OnOperationCompleted(Operation(i));
        }

        var before = output.Length;
        writer.Complete(Findings);

        // Then
        Assert.True(before > 0, "nothing was written before the end of the run");
        using var json = JsonDocument.Parse(output.ToArray());
        var root = json.RootElement;
        Assert.Equal(["schemaVersion", "operations", "inputs", "summary"], root.EnumerateObject().Select(p => p.Name));
        Assert.Equal(5000, root.GetProperty("operations").GetArrayLength());
        Assert.Equal("Db4999", root.GetProperty("operations")[4999].GetProperty("database").GetString());
        var summary = root.GetProperty("summary");
        Assert.Equal(5000, summary.GetProperty("operations").GetInt32());
        Assert.Equal(500, summary.GetProperty("failed").GetInt32());
        Assert.Equal(3, summary.GetProperty("unattributedWaits").GetInt64());
        Assert.Equal("BACKUPIO", summary.GetProperty("ambiguousWaits")[0].GetProperty("waitType").GetString());
        Assert.Equal("buffer-starved", summary.GetProperty("bottlenecks")[0].GetProperty("bottleneck").GetString());
    }

    [Fact]
    public void Json_operation_objects_are_the_same_as_the_serialised_report()
    {
        // Given
        using var output = new MemoryStream();
        using var writer = new JsonReportWriter(output);

        // When
        writer.OnOperationCompleted(Operation(1));
        writer.Complete(Findings);

        // Then
        using var json = JsonDocument.Parse(output.ToArray());
        var streamed = json.RootElement.GetProperty("operations")[0].GetRawText();
        Assert.Equal(ReportJson.Serialize(Operation(1)), JsonSerializer.Serialize(JsonDocument.Parse(streamed).RootElement));
    }

    [Fact]
    public void Json_lines_are_one_compact_object_per_operation_each_written_as_it_completes()
    {
        // Given
        using var output = new MemoryStream();
        using var lines = new JsonLinesWriter(output);

        // When
        lines.Write(Operation(1));
        var first = output.Length;
        lines.Write(Operation(2));

        // Then: the serializer's compact text, one line each, the first out before the second was written
        var expected = Support.SerializerOracle.Serialize(Operation(1), indented: false) + Environment.NewLine
            + Support.SerializerOracle.Serialize(Operation(2), indented: false) + Environment.NewLine;
        Assert.Equal(expected, System.Text.Encoding.UTF8.GetString(output.ToArray()));
        Assert.Equal(expected.IndexOf('\n', StringComparison.Ordinal) + 1, first);
    }

    [Fact]
    public void Markdown_writes_each_operation_as_it_completes_and_the_summary_last()
    {
        // Given
        var output = new StringWriter();
        var writer = new MarkdownReportWriter(output);

        // When
        writer.OnOperationCompleted(Operation(1));
        var first = output.ToString();
        writer.Complete(Findings);

        // Then
        Assert.Contains("## BACKUP", first);
        var text = output.ToString();
        Order.Before(text, "## BACKUP", "## Summary");
        Assert.Contains("- **Operations**: 1: 1 completed, 0 failed, 0 incomplete", text);
    }
}
