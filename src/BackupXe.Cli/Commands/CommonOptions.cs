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
            Description = "console (default), json (schema in docs/json-schema.md) or markdown.",
            DefaultValueFactory = _ => "console",
        };
        option.AcceptOnlyFromAmong("console", "json", "markdown");
        return option;
    }

    public static Option<string?> Output() => new("--output", "-o") { Description = "Write the report to this file instead of standard output." };

    public static Option<int?> MemoryBudget()
        => new("--memory-budget-mb") { Description = "Largest buffer memory (BUFFERCOUNT x MAXTRANSFERSIZE) a recommendation may propose, in MB." };

    public static Option<bool> NoColor() => new("--no-color") { Description = "Plain text, no colours." };

    public static long? BudgetBytes(int? megabytes) => megabytes is { } mb ? mb * 1_048_576L : null;

    public static IReportRenderer Renderer(string format, bool verbose, bool color) => format switch
    {
        "json" => new JsonReportRenderer(),
        "markdown" => new MarkdownReportRenderer(),
        _ => ConsoleRenderer(verbose, color),
    };

    public static ConsoleReportRenderer ConsoleRenderer(bool verbose, bool color)
        => new(verbose, color && !Console.IsOutputRedirected && Environment.GetEnvironmentVariable("NO_COLOR") is null);

    /// <summary>Standard output, or the file named by <c>--output</c> (created or truncated).</summary>
    public static TextWriter OpenOutput(string? path) => path is null ? Console.Out : new StreamWriter(path, append: false);
}
