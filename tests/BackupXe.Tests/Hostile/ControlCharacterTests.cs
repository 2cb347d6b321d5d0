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

    [Theory]
    [InlineData("console")]
    [InlineData("markdown")]
    [InlineData("json")]
    public async Task Given_a_database_name_with_bidi_and_invisible_format_characters_when_analysed_then_each_is_shown_as_an_escape(string format)
    {
        // Given a name that a terminal would show reversed ("Sales" + RLO + "kab.exe"), with isolates, a zero-width
        // space, a byte order mark, a line separator and a tag character
        using var input = TempInput.WithText(Output(BidiName), new UTF8Encoding(false), "ola.txt");

        // When
        var run = await CliRun.RunAsync("analyze", input.Path, "--format", format, "--no-color");

        // Then none reaches the output raw
        Assert.Equal(0, run.ExitCode);
        AssertNoInvisibles(run.Output);
        if (format != "json")
        {
            Assert.Contains(BidiShown, run.Output);
        }
    }

    [Fact]
    public async Task Given_a_database_name_with_bidi_characters_when_listed_from_history_then_the_table_shows_escapes()
    {
        // Given
        using var input = TempInput.WithText(Output(BidiName), new UTF8Encoding(false), "ola.txt");
        var history = Path.Combine(Path.GetDirectoryName(input.Path)!, "h.db");
        Assert.Equal(0, (await CliRun.RunAsync("history", "import", "--path", history, input.Path)).ExitCode);

        // When
        var listed = await CliRun.RunAsync("history", "--path", history);
        var summary = await CliRun.RunAsync("history", "--path", history, "--format", "markdown");

        // Then
        Assert.Contains(BidiShown, listed.Output);
        AssertNoInvisibles(listed.Output);
        AssertNoInvisibles(summary.Output);
        Microsoft.Data.Sqlite.SqliteConnection.ClearAllPools();
    }

    [Theory]
    [InlineData("\u202A\u202B\u202C\u202D\u202E", "\\u202A\\u202B\\u202C\\u202D\\u202E")]
    [InlineData("\u2066\u2067\u2068\u2069", "\\u2066\\u2067\\u2068\\u2069")]
    [InlineData("\u200B\u200E\u200F\u061C\uFEFF\u00AD", "\\u200B\\u200E\\u200F\\u061C\\uFEFF\\u00AD")]
    [InlineData("\u2028\u2029", "\\u2028\\u2029")]
    [InlineData("\U000E0041", "\\U000E0041")]
    [InlineData("Caf\u00E9 \u65E5\u672C \U0001F600", "Caf\u00E9 \u65E5\u672C \U0001F600")]
    public void Each_invisible_format_character_is_shown_as_its_code_and_visible_text_is_kept(string text, string shown)
    {
        Assert.Equal(shown, Core.Rendering.TerminalText.Line(text));
        Assert.Equal(shown, Core.Rendering.TerminalText.Block(text));
    }

    [Fact]
    public async Task Given_an_event_with_a_bidi_override_when_listed_as_json_lines_then_it_is_escaped_and_its_value_kept()
    {
        // Given an XE event whose database name holds a right-to-left override
        const string name = "Sa\u202Eles \u00E9";
        var xml = "<events><event name=\"backup_restore_progress_trace\" package=\"sqlserver\" timestamp=\"2024-05-01T01:30:00.120Z\">"
            + $"<data name=\"operation_type\"><value>0</value></data><data name=\"database_name\"><value>{name}</value></data>"
            + "<data name=\"trace_message\"><value>BACKUP DATABASE started</value></data></event></events>\n";
        using var input = TempInput.WithText(xml, new UTF8Encoding(false), "bidi.xml");

        // When
        var run = await CliRun.RunAsync("events", input.Path, "--format", "jsonl");

        // Then
        Assert.Equal(0, run.ExitCode);
        Assert.DoesNotContain("\u202E", run.Output, StringComparison.Ordinal);
        Assert.Contains("Sa\\u202Eles", run.Output, StringComparison.Ordinal);
        using var line = System.Text.Json.JsonDocument.Parse(run.Output.Split('\n')[0]);
        Assert.Equal(name, line.RootElement.GetProperty("fields").GetProperty("database_name").GetString());
    }

    [Fact]
    public void A_lone_surrogate_is_shown_as_its_code()
        => Assert.Equal("a\\uD800b\\uDC00", Core.Rendering.TerminalText.Line("a" + (char)0xD800 + "b" + (char)0xDC00));

    private const string BidiName = "Sales\u202Ekab.exe\u2066x\u2069\u200B\uFEFF\u2028\U000E0041";

    private const string BidiShown = "Sales\\u202Ekab.exe\\u2066x\\u2069\\u200B\\uFEFF\\u2028\\U000E0041";

    private static void AssertNoInvisibles(string output)
    {
        foreach (var invisible in new[] { "\u202E", "\u2066", "\u2069", "\u200B", "\uFEFF", "\u2028", "\U000E0041" })
        {
            Assert.False(output.Contains(invisible, StringComparison.Ordinal), $"U+{char.ConvertToUtf32(invisible, 0):X4} from the input in the output:\n{output}");
        }
    }

    private static string Output(string name = Hostile) => new OlaJobOutput()
        .Command(new DateTime(2024, 6, 1, 1, 0, 0), TimeSpan.FromSeconds(5), $"BACKUP DATABASE [{name}] TO DISK = N'X:\\F.bak'", pages: 1000, engineSeconds: 4)
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
