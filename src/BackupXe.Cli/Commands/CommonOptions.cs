using System.CommandLine;
using BackupXe.Cli.Rendering;

namespace BackupXe.Cli.Commands;

/// <summary>Options that several verbs share, spelled the same everywhere.</summary>
public static class CommonOptions
{
    public static Option<string> Format()
    {
        var option = new Option<string>("--format", "-f")
        {
            Description = "console (default), json (schema in docs/json-schema.md), markdown or html (one self-contained file with charts; docs/html-report.md).",
            DefaultValueFactory = _ => "console",
        };
        option.AcceptOnlyFromAmong("console", "json", "markdown", "html");
        return option;
    }

    public static Option<string?> Output() => new("--output", "-o") { Description = "Write the report to this file instead of standard output." };

    public static Option<int?> MemoryBudget()
        => new("--memory-budget-mb") { Description = "Largest buffer memory (BUFFERCOUNT x MAXTRANSFERSIZE) a recommendation may propose, in MB." };

    public static Option<bool> NoColor() => new("--no-color") { Description = "Plain text, no colours." };

    public static long? BudgetBytes(int? megabytes) => megabytes is { } mb ? mb * 1_048_576L : null;

    public static IReportRenderer Renderer(string format, bool verbose, bool color, long? memoryBudgetBytes = null) => format switch
    {
        "json" => new JsonReportRenderer(),
        "html" => new HtmlReportRenderer(memoryBudgetBytes),
        "markdown" => new MarkdownReportRenderer(),
        _ => new ConsoleReportRenderer(verbose, color && !Console.IsOutputRedirected && Environment.GetEnvironmentVariable("NO_COLOR") is null),
    };

    public static async Task WriteAsync(string? path, Action<TextWriter> write, CancellationToken cancellationToken)
    {
        if (path is null)
        {
            write(Console.Out);
            await Console.Out.FlushAsync(cancellationToken);
            return;
        }

        await using var file = new StreamWriter(path, append: false);
        write(file);
    }
}
