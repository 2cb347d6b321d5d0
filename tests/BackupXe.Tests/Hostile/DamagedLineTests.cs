using System.Text;
using BackupXe.Core.Reporting;
using BackupXe.Tests.Cli;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// ERRORLOG lines damaged in one place: a timestamp with one wrong character (once glued to the message above, so a
/// damaged completion line was lost), a UTF-16 file cut at an odd byte just after its first line (once refused
/// whole), C1 control characters (once passed as text). Each is a located problem, and the rest is read.
/// </summary>
public class DamagedLineTests
{
    private static string RestoreText()
    {
        var raw = File.ReadAllBytes(CliRun.Sample("log-zeroing-restore.log"));
        return Encoding.Unicode.GetString(raw, 2, raw.Length - 2);
    }

    private static string WithLine(string text, int lineNumber, Func<string, string> change)
    {
        var lines = text.Split("\r\n");
        lines[lineNumber - 1] = change(lines[lineNumber - 1]);
        return string.Join("\r\n", lines);
    }

    [Theory]
    [InlineData(26)]
    [InlineData(27)]
    public async Task Given_a_timestamp_damaged_in_one_character_when_analysed_then_the_line_is_located_and_its_message_kept(int lineNumber)
    {
        // Given: the UTF-8 form of the restore sample, 'sed "26s/^2024-05/2024-O5/"': 26 is its completion line, 27
        // the restore's last
        var text = WithLine(RestoreText(), lineNumber, line => "2024-O5" + line["2024-05".Length..]);
        var clean = await HostileRun.AnalyzeAsync(Encoding.UTF8.GetBytes(RestoreText()), "restore.log");

        // When
        var run = await HostileRun.AnalyzeAsync(Encoding.UTF8.GetBytes(text), "restore.log");

        // Then: named, not glued to the line above, and the completion figures still the restore's
        run.AssertInvariants($"line {lineNumber}");
        Assert.Equal(2, run.ExitCode);
        var problem = Assert.Single(run.Problems);
        Assert.Equal($"line {lineNumber}", problem.Location);
        Assert.Contains("'2024-O5-02 06:37:05' is not a valid date and time", problem.Message, StringComparison.Ordinal);
        var restore = Assert.Single(run.Operations);
        Assert.Equal("SalesArchive", restore.Database);
        Assert.Equal(OperationStatus.Completed, restore.Status);
        Assert.NotNull(restore.EngineSummary);
        Assert.Equal(clean.Operations[0].EngineSummary, restore.EngineSummary);
    }

    [Fact]
    public async Task Given_a_utf16_errorlog_cut_at_an_odd_byte_after_its_first_line_when_analysed_then_it_is_read_and_the_cut_located()
    {
        // Given: every odd cut from the end of the first line to the middle of the second
        var raw = File.ReadAllBytes(CliRun.Sample("log-zeroing-restore.log"));
        var firstLineEnd = 2 + ((RestoreText().IndexOf('\n', StringComparison.Ordinal) + 1) * 2);
        for (var cut = firstLineEnd + 1; cut < firstLineEnd + 60; cut += 2)
        {
            // When
            var run = await HostileRun.AnalyzeAsync(raw[..cut], "restore.log");

            // Then: recognised as the ERRORLOG it is, the cut line named
            run.AssertInvariants($"cut at {cut}");
            Assert.True(run.ExitCode == 2, $"cut at {cut}: exit {run.ExitCode}, {string.Join("; ", run.Problems.Select(p => $"{p.Location}: {p.Message}"))}");
            Assert.Contains(run.Problems, p => p.Location == "line 2");
        }
    }

    [Theory]
    [InlineData('\u0080')]
    [InlineData('\u0085')]
    [InlineData('\u009B')]
    public async Task Given_a_c1_control_character_in_an_errorlog_line_when_analysed_then_the_line_is_located_and_skipped(char control)
    {
        // Given: line 24 of the restore sample with a C1 control in its text
        var text = WithLine(RestoreText(), 24, line => line.Replace("Writing", $"Wri{control}ting", StringComparison.Ordinal));

        // When
        var run = await HostileRun.AnalyzeAsync(Encoding.UTF8.GetBytes(text), "restore.log");

        // Then
        run.AssertInvariants($"U+{(int)control:X4}");
        Assert.Equal(2, run.ExitCode);
        Assert.Equal("line 24", Assert.Single(run.Problems).Location);
        Assert.Equal(OperationStatus.Completed, Assert.Single(run.Operations).Status);
    }
}
