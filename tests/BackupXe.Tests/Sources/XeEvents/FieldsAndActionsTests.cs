using System.Text.Json;
using BackupXe.Core.Events;
using BackupXe.Sources.XeXml;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Sources.Xel;
using Xunit;
using BackupXe.Testing.Xel;

namespace BackupXe.Tests.Sources.XeEvents;

/// <summary>
/// A capture session may add the <c>sqlserver.database_name</c> action to <c>backup_restore_progress_trace</c>. The
/// action is the session's current database (a job step or SSMS window in <c>master</c>), the event's own
/// <c>database_name</c> field the database backed up; the server sends the field, then the action. The field wins
/// in every reader, and the action is still listed under its own name.
/// </summary>
public sealed class FieldsAndActionsTests
{
    private const string MasterAction =
        """<action name="database_name" package="sqlserver"><type name="unicode_string" package="package0"/><value>master</value></action>""";

    [Fact]
    public async Task A_database_name_action_after_the_field_does_not_rename_the_backup_in_xe_xml()
    {
        // Given the sample backup as a session with the action records it, run from master
        var sample = await File.ReadAllTextAsync(CliRun.Sample("buffer-starved-backup.xml"));
        var withAction = InjectAfterSessionId(sample);
        Assert.Contains("<value>master</value>", withAction, StringComparison.Ordinal);
        using var input = TempInput.WithText(withAction, Encodings.Utf8WithoutBom, "backup.xml");

        // When
        var run = await CliRun.RunAsync("analyze", input.Path, "--format", "json");

        // Then
        Assert.Equal(0, run.ExitCode);
        using var json = JsonDocument.Parse(run.Output);
        var operation = Assert.Single(json.RootElement.GetProperty("operations").EnumerateArray());
        Assert.Equal("SalesDB", operation.GetProperty("database").GetString());
        Assert.DoesNotContain("[master]", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_database_name_action_does_not_rename_the_backup_in_a_xel()
    {
        // Given
        var events = BuiltBackupScenario.BufferStarved(currentDatabase: "master");
        using var xel = TempInput.WithBytes(XelTestWriter.File(BuiltBackupCatalogue.Create(), events, bufferSize: 16 * 1024), "backup_0_133600000000000000.xel");

        // When
        var run = await CliRun.RunAsync("analyze", xel.Path, "--format", "json");

        // Then
        Assert.Equal((0, string.Empty), (run.ExitCode, run.Error));
        using var json = JsonDocument.Parse(run.Output);
        var operation = Assert.Single(json.RootElement.GetProperty("operations").EnumerateArray());
        Assert.Equal("SalesDB", operation.GetProperty("database").GetString());
    }

    [Fact]
    public async Task The_listing_keeps_the_field_and_the_action_apart()
    {
        // Given
        var events = BuiltBackupScenario.BufferStarved(currentDatabase: "master");

        // When
        var run = await XelRun.ReadAsync(XelTestWriter.File(BuiltBackupCatalogue.Create(), events, bufferSize: 16 * 1024));

        // Then
        var progress = run.Events.First(e => e.Name == "backup_restore_progress_trace");
        Assert.Equal("SalesDB", progress.Field("database_name").Display);
        Assert.Equal("master", progress.Action("database_name").Display);
        Assert.Equal("sqlserver", progress.Action("database_name").Package);
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void A_live_event_data_row_takes_the_field_whichever_comes_first(bool actionFirst)
    {
        // Given one fn_xe_file_target_read_file row, the action before or after the field
        const string field = """<data name="database_name"><type name="unicode_string" package="package0"/><value>SalesDB</value></data>""";
        const string session = """<action name="session_id" package="sqlserver"><type name="uint16" package="package0"/><value>61</value></action>""";
        var row = "<event name=\"backup_restore_progress_trace\" package=\"sqlserver\" timestamp=\"2024-05-01T01:30:00.120Z\">"
            + """<data name="operation_type"><type name="backup_restore_operation_type" package="sqlserver"/><value>0</value><text>Backup</text></data>"""
            + (actionFirst ? MasterAction + field : field + MasterAction)
            + """<data name="trace_message"><type name="unicode_string" package="package0"/><value>BACKUP DATABASE started</value></data>"""
            + session + "</event>";

        // When
        var status = new SourceStatus();
        var traceEvent = new XeEventDataReader().Read(row, status, "row 1");

        // Then
        Assert.Empty(status.Problems);
        var progress = Assert.IsType<ProgressTraceEvent>(traceEvent, exactMatch: false);
        Assert.Equal("SalesDB", progress.DatabaseName);
        Assert.Equal(61, progress.SessionId);
    }

    private static string InjectAfterSessionId(string xml)
    {
        var builder = new System.Text.StringBuilder(xml.Length + 200_000);
        var position = 0;
        while (true)
        {
            var start = xml.IndexOf("<event name=\"backup_restore_progress_trace\"", position, StringComparison.Ordinal);
            if (start < 0)
            {
                break;
            }

            var end = xml.IndexOf("</event>", start, StringComparison.Ordinal);
            builder.Append(xml, position, end - position).Append(MasterAction);
            position = end;
        }

        return builder.Append(xml, position, xml.Length - position).ToString();
    }
}
