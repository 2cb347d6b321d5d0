using BackupXe.Cli.Rendering;
using Spectre.Console;
using Spectre.Console.Rendering;
using Xunit;

namespace BackupXe.Tests.Cli.Rendering;

public sealed class MergedSegmentsTests
{
    public static TheoryData<string> Texts => new()
    {
        "- The read ceiling of the source is unknown: run a COPY_ONLY backup to NUL and compare its throughput with this one.",
        "  indented first line that wraps onto the next one because it is far longer than the panel is wide",
        "a_single_word_longer_than_the_panel_is_wide_so_that_it_has_to_be_folded_over_several_lines and then words",
        "wide characters 日本語のデータベース名 and then   three spaces and a trailing space ",
        "a tab\tinside a line that is long enough to wrap in a panel this narrow, twice over if it can",
        "line one\nline two, which is long enough to wrap at least once inside a panel this narrow\n\nafter a blank line",
        "",
    };

    [Theory]
    [MemberData(nameof(Texts))]
    public void A_panel_writes_the_same_characters_and_styles_whether_its_contents_are_merged_or_not(string text)
    {
        // Given a panel of plain and styled paragraphs, as the console report draws them
        IRenderable Contents() => new Rows(new Text(text), new Text(text, new Style(Color.Aqua)), new Markup("[bold]bold[/] and plain " + Markup.Escape(text)));

        // When drawn in colour at a narrow width, once as Spectre gives it and once merged
        var plain = Draw(new Panel(Contents()).Header("Verdict: [bold]x[/]").Border(BoxBorder.Rounded).Expand());
        var merged = Draw(new Panel(new MergedSegments(Contents())).Header("Verdict: [bold]x[/]").Border(BoxBorder.Rounded).Expand());

        // Then
        Assert.Equal(plain, merged);
        Assert.Contains("\u001b[", merged, StringComparison.Ordinal);
    }

    private static string Draw(IRenderable renderable)
    {
        var output = new StringWriter();
        var console = AnsiConsole.Create(new AnsiConsoleSettings
        {
            Out = new AnsiConsoleOutput(output),
            Ansi = AnsiSupport.Yes,
            ColorSystem = ColorSystemSupport.TrueColor,
            Interactive = InteractionSupport.No,
        });
        console.Profile.Width = 48;
        console.Write(renderable);
        return output.ToString();
    }
}
