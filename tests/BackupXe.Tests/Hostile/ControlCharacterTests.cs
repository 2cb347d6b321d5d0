using System.Text;
using BackupXe.Tests.Cli;
using BackupXe.Tests.Sources.Support;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Hostile;

/// <summary>
/// A database name holding terminal controls (ESC[2J clears the screen, BEL, BS, CR, a C1 CSI, a line break that
/// would forge a line): every text renderer shows them as visible marks, never as the controls themselves.
/// </summary>
public class ControlCharacterTests
{
    // No CR or LF: a line-based input ends the line there (the log test below holds the line break).
    private const string Hostile = "Sales\u001B[2J\u0007\u0008\u009B31mX";

    [Theory]
    [InlineData("console")]
    [InlineData("markdown")]
    public async Task Given_a_database_name_with_terminal_controls_when_analysed_then_the_report_holds_none(string format)
    {
        // Given
        using var input = TempInput.WithText(Output(), new UTF8Encoding(false), "ola.txt");

        // When
        var run = await CliRun.RunAsync("analyze", input.Path, "--format", format, "--no-color");

        // Then
        Assert.Equal(0, run.ExitCode);
        AssertNoControls(run.Output);
        Assert.Contains("Sales␛[2J␇␈\\x9B31mX", run.Output);
    }

    [Fact]
    public async Task Given_a_database_name_with_terminal_controls_when_listed_from_history_then_the_table_holds_none()
    {
        // Given
        using var input = TempInput.WithText(Output(), new UTF8Encoding(false), "ola.txt");
        var history = Path.Combine(Path.GetDirectoryName(input.Path)!, "h.db");
        Assert.Equal(0, (await CliRun.RunAsync("history", "import", "--path", history, input.Path)).ExitCode);

        // When
        var listed = await CliRun.RunAsync("history", "--path", history);
        var summary = await CliRun.RunAsync("history", "--path", history, "--format", "markdown");

        // Then
        Assert.Contains("Sales␛[2J␇␈\\x9B31mX", listed.Output);
        AssertNoControls(listed.Output);
        AssertNoControls(summary.Output);
        Microsoft.Data.Sqlite.SqliteConnection.ClearAllPools();
    }

    [Fact]
    public void Given_a_name_with_a_line_break_when_made_safe_for_a_log_line_then_it_stays_one_line()
    {
        // Given / When
        var line = Core.Rendering.TerminalText.Line("Sales\n[12:00:00 ERR] Instance prod failed");

        // Then
        Assert.Equal("Sales␊[12:00:00 ERR] Instance prod failed", line);
    }

    private static string Output() => new OlaJobOutput()
        .Command(new DateTime(2024, 6, 1, 1, 0, 0), TimeSpan.FromSeconds(5), $"BACKUP DATABASE [{Hostile}] TO DISK = N'X:\\F.bak'", pages: 1000, engineSeconds: 4)
        .ToString();

    // The input's controls, each of which a terminal obeys (the table's own styling may use ESC sequences of its own).
    private static void AssertNoControls(string output)
    {
        foreach (var control in new[] { "\u001B[2J", "\u0007", "\u0008", "\u009B" })
        {
            Assert.False(output.Contains(control, StringComparison.Ordinal), $"U+{(int)control[0]:X4} from the input in the output:\n{output}");
        }
    }
}
