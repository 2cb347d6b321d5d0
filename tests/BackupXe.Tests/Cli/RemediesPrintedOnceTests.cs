using System.Text.Json;
using BackupXe.Tests.Sources.Support;
using Xunit;

namespace BackupXe.Tests.Cli;

/// <summary>
/// A remedy that applies to several operations of one report (the capture advice for every restore seen only through
/// its client output) is printed in full once in the human formats and referred to after; JSON keeps each whole.
/// The capture remedy is the tool's own session, never a second session definition.
/// </summary>
public sealed class RemediesPrintedOnceTests
{
    private static string TwoRestores()
    {
        var one = File.ReadAllText(Path.Combine(AppContext.BaseDirectory, "Fixtures", "realworld", "S13_sqlworkday_2012_restore_stats_output.txt"));
        return one + "\n" + one.Replace("TestDB", "OtherDB", StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("console")]
    [InlineData("markdown")]
    public async Task A_remedy_shared_by_two_operations_is_printed_once_and_referred_to(string format)
    {
        // Given
        using var input = TempInput.WithText(TwoRestores(), Encodings.Utf8WithoutBom, "restores.txt");

        // When
        var run = await CliRun.RunAsync("analyze", input.Path, "--format", format, "--no-color");

        // Then
        Assert.Equal(0, run.ExitCode);
        Assert.Equal(1, Count(run.Output, "backupxe session install --server <server>"));
        Assert.Contains("capture-waits**: as shown above for RESTORE DATABASE [TestDB]".Replace("**", format == "markdown" ? "**" : string.Empty, StringComparison.Ordinal), run.Output);
    }

    [Fact]
    public async Task Json_keeps_every_operations_remedies_whole_and_the_capture_is_the_tools_own_session()
    {
        // Given
        using var input = TempInput.WithText(TwoRestores(), Encodings.Utf8WithoutBom, "restores.txt");

        // When
        var run = await CliRun.RunAsync("analyze", input.Path, "--format", "json");

        // Then
        using var json = JsonDocument.Parse(run.Output);
        var captures = json.RootElement.GetProperty("operations").EnumerateArray()
            .SelectMany(o => o.GetProperty("recommendations").EnumerateArray())
            .Where(r => r.GetProperty("id").GetString() == "capture-waits")
            .ToList();
        Assert.Equal(2, captures.Count);
        Assert.All(captures, c =>
        {
            Assert.Contains("backupxe session install", c.GetProperty("tsql").GetString());
            Assert.DoesNotContain("CREATE EVENT SESSION", c.GetProperty("tsql").GetString());
            Assert.Contains("SQL Server 2016 and later", c.GetProperty("text").GetString());
        });
    }

    private static int Count(string text, string value)
    {
        var count = 0;
        for (var at = text.IndexOf(value, StringComparison.Ordinal); at >= 0; at = text.IndexOf(value, at + value.Length, StringComparison.Ordinal))
        {
            count++;
        }

        return count;
    }
}
