using System.Text.Json;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Sources.Support;
using Xunit;
using BackupXe.Testing.Xel;

namespace BackupXe.Tests.Sources.Xel;

/// <summary>A built .xel and its XE XML twin go through the same mapping, so analyze reports them identically.</summary>
public sealed class XelXmlTwinTests
{
    [Fact]
    public async Task A_backup_as_xel_and_as_xe_xml_gives_the_same_json_report()
    {
        // Given one built backup scenario written both ways, the .xel over many 16 KB event buffers
        var events = BuiltBackupScenario.BufferStarved();
        var catalogue = BuiltBackupCatalogue.Create();
        using var xel = TempInput.WithBytes(XelTestWriter.File(catalogue, events, out var layout, bufferSize: 16 * 1024), "backup_0_133600000000000000.xel");
        using var xml = TempInput.WithText(BuiltBackupCatalogue.ToXml(events), Encodings.Utf8WithoutBom, "backup.xml");
        Assert.True(layout.EventBuffers.Count > 5);

        // When
        var fromXel = await CliRun.RunAsync("analyze", xel.Path, "--format", "json");
        var fromXml = await CliRun.RunAsync("analyze", xml.Path, "--format", "json");

        // Then
        Assert.Equal((0, string.Empty), (fromXel.ExitCode, fromXel.Error));
        Assert.Equal((0, string.Empty), (fromXml.ExitCode, fromXml.Error));
        using var xelJson = JsonDocument.Parse(fromXel.Output);
        using var xmlJson = JsonDocument.Parse(fromXml.Output);
        var operations = xelJson.RootElement.GetProperty("operations");
        Assert.Equal(1, operations.GetArrayLength());
        Assert.Equal("buffer-starved", operations[0].GetProperty("verdict").GetProperty("bottleneck").GetString());
        Assert.Equal(xmlJson.RootElement.GetProperty("operations").GetRawText(), operations.GetRawText());
        Assert.Equal(events.Count, xelJson.RootElement.GetProperty("inputs")[0].GetProperty("events").GetInt64());
        Assert.Equal(
            xmlJson.RootElement.GetProperty("inputs")[0].GetProperty("events").GetInt64(),
            xelJson.RootElement.GetProperty("inputs")[0].GetProperty("events").GetInt64());
    }

    [Fact]
    public async Task Every_field_of_a_built_backup_reads_back_from_the_xel_as_written()
    {
        // Given
        var events = BuiltBackupScenario.BufferStarved();
        var bytes = XelTestWriter.File(BuiltBackupCatalogue.Create(), events, bufferSize: 16 * 1024);

        // When
        var run = await XelRun.ReadAsync(bytes);

        // Then
        Assert.Empty(run.Status.Problems);
        Assert.Equal(XelWriterProofTests.Canonical(events), XelWriterProofTests.Canonical(run.Events));
        var wait = run.Events.First(e => e.Name == "wait_info");
        Assert.Equal("0x00007FF612345678", wait.Field("wait_resource").Display);
        Assert.Equal("sqlserver", wait.Action("session_id").Package);
    }
}
