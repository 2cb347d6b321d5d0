using System.Text;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Sources.Support;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// <c>backupxe events</c> on hostile XE XML: names a spreadsheet would run as formulas are written inert, as in
/// history's CSV, and a field cut at the field bound is a located problem, not a silent cut.
/// </summary>
public class EventListingTests
{
    [Theory]
    [InlineData("=HYPERLINK(\"http://x\")")]
    [InlineData("@SUM(A1)")]
    [InlineData("+1")]
    [InlineData("-1")]
    public async Task Given_an_event_name_shaped_like_a_formula_when_listed_as_csv_then_the_cell_is_inert(string name)
    {
        // Given
        using var input = TempInput.WithText(Capture(name, "x"), new UTF8Encoding(false), "capture.xml");

        // When
        var run = await CliRun.RunAsync("events", input.Path, "--format", "csv");

        // Then
        Assert.Equal(0, run.ExitCode);
        var row = run.Output.Split('\n')[1];
        var cell = row[(row.IndexOf(',', StringComparison.Ordinal) + 1)..].TrimStart('"');
        Assert.StartsWith("'", cell);
    }

    [Fact]
    public async Task Given_a_field_longer_than_the_bound_when_listed_then_the_cut_is_a_located_problem()
    {
        // Given
        using var input = TempInput.WithText(Capture("backup_restore_progress_trace", new string('x', 70_000)), new UTF8Encoding(false), "capture.xml");

        // When
        var run = await CliRun.RunAsync("events", input.Path);

        // Then
        Assert.Equal(2, run.ExitCode);
        Assert.Contains($"backupxe: {input.Path}: line 2: backup_restore_progress_trace event has a field longer than 65536 characters", run.Error);
    }

    private static string Capture(string name, string message) =>
        "<RingBufferTarget>\n"
        + $"<event name=\"{System.Security.SecurityElement.Escape(name)}\" package=\"sqlserver\" timestamp=\"2024-05-01T02:30:05.000Z\"><data name=\"trace_message\"><value>{message}</value></data></event>\n"
        + "</RingBufferTarget>\n";
}
