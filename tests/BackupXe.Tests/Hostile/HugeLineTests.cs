using System.Text;
using BackupXe.Tests.Sources.Support;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// A single line of tens of MB (a binary blob pasted into a log, a path gone wrong). Before the fix a 200 MB line
/// took 4.2 GB on the console path and failed the JSON path; the field is now cut at 64 K characters with a
/// located note, so memory no longer follows the line. Run in a child process to see its real peak memory.
/// </summary>
public class HugeLineTests
{
    // 48 MB: large enough that holding the line (twice, as UTF-16) would show; small enough for the suite's budget.
    private const int LineBytes = 48 << 20;

    // The runtime and the CLI alone peak near 100 MB; holding the line would add at least 96 MB, usually far more.
    private const long MemoryBound = 300L << 20;

    [Theory]
    [InlineData("errorlog", "console", "characters long; only the first 65536 are kept")]
    [InlineData("errorlog", "json", "characters long; only the first 65536 are kept")]
    [InlineData("xe-xml", "console", "backup_restore_progress_trace event has a field longer than 65536 characters; kept truncated")]
    [InlineData("xe-xml", "json", "backup_restore_progress_trace event has a field longer than 65536 characters; kept truncated")]
    public async Task A_huge_field_is_cut_and_located_in_bounded_memory(string kind, string format, string expected)
    {
        // Given a device path of 48 MB inside a complete backup, as an ERRORLOG line or an XE trace_message
        using var input = kind == "errorlog"
            ? TempInput.WithText(Errorlog(), new UTF8Encoding(false), "huge.log")
            : TempInput.WithText(XeXml(), new UTF8Encoding(false), "huge.xml");

        // When
        var run = await ChildProcess.RunAsync(ChildProcess.Cli, Path.GetTempPath(), TimeSpan.FromMinutes(2), "analyze", input.Path, "--format", format, "--no-color");

        // Then
        Assert.True(run.ExitCode == 2, run.Error);
        Assert.Contains($"{input.Path}: line 2: ", run.Error);
        Assert.Contains(expected, run.Error);
        Assert.Contains("completed", run.Output);
        Assert.True(run.PeakBytes < MemoryBound, $"peak {run.PeakBytes >> 20} MB");
        Assert.True(run.Output.Length < 1 << 20, $"{run.Output.Length} characters of output");
    }

    private static string Errorlog() =>
        "2024-05-02 06:15:03.41 spid58      Backup(SalesDB): BACKUP DATABASE started\n"
        + "2024-05-02 06:15:04.41 spid58      Backup(SalesDB): BackupStream(0): Writing leading metadata to the device D:\\"
        + new string('A', LineBytes) + "\n"
        + "2024-05-02 06:15:05.41 spid58      Backup(SalesDB): BACKUP DATABASE finished\n";

    private static string XeXml()
    {
        static string Event(string time, string message) =>
            $"""<event name="backup_restore_progress_trace" package="sqlserver" timestamp="2024-05-01T01:30:{time}Z"><data name="operation_type"><value>0</value></data><data name="database_name"><value>SalesDB</value></data><data name="trace_message"><value>{message}</value></data><action name="session_id" package="sqlserver"><value>61</value></action></event>""";

        return "<events>" + Event("00.120", "BACKUP DATABASE started") + "\n"
            + Event("01.120", "BackupStream(0): Writing leading metadata to the device D:\\" + new string('A', LineBytes)) + "\n"
            + Event("02.120", "BACKUP DATABASE finished") + "</events>\n";
    }
}
