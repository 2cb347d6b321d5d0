using System.CommandLine;
using BackupXe.Cli.Rendering;

namespace BackupXe.Cli.Commands;

/// <summary>Options that several verbs share, spelled the same everywhere.</summary>
internal static class CommonOptions
{
    public static Option<string> Format()
    {
        var option = new Option<string>("--format", "-f")
        {
            Description = "console (default), json (schema in docs/json-schema.md), markdown or html (one self-contained file with charts; docs/html-report.md).",
            DefaultValueFactory = _ => "console",
        };
        Choices.OneOf(option, "console", "json", "markdown", "html");
        return option;
    }

    public static Option<string?> Output() => new("--output", "-o") { Description = "Write the report to this file instead of standard output." };

    public static Option<int?> MemoryBudget()
    {
        var option = new Option<int?>("--memory-budget-mb")
        {
            Description = "Largest buffer memory (BUFFERCOUNT x MAXTRANSFERSIZE) a recommendation may propose, in MB.",

            // Parsed here so that a value too large for an int is named in words, not as the type System.Nullable`1.
            CustomParser = result =>
            {
                var text = result.Tokens.Count > 0 ? result.Tokens[^1].Value : string.Empty;
                if (int.TryParse(text, System.Globalization.NumberStyles.AllowLeadingSign, System.Globalization.CultureInfo.InvariantCulture, out var mb) && mb >= 1)
                {
                    return mb;
                }

                result.AddError(int.TryParse(text, System.Globalization.NumberStyles.AllowLeadingSign, System.Globalization.CultureInfo.InvariantCulture, out var low)
                    ? $"--memory-budget-mb must be at least 1; it is {low}."
                    : $"--memory-budget-mb must be a whole number of MB from 1 to {int.MaxValue}; it is '{text}'.");
                return null;
            },
        };
        return option;
    }

    /// <summary>
    /// A file argument spelled like an option ("--verbos", "-x") is a mistyped option, not a file name: said as
    /// a usage error instead of "cannot be opened". A lone "-" is left to the input rules.
    /// </summary>
    public static void RejectUnknownOptions(Argument<string[]> files)
    {
        files.Validators.Add(result =>
        {
            foreach (var token in result.Tokens)
            {
                if (token.Value.Length > 1 && token.Value[0] == '-' && !File.Exists(token.Value))
                {
                    var near = result.Parent is System.CommandLine.Parsing.CommandResult command
                        ? UsageErrors.DidYouMean(token.Value, UsageErrors.OptionNames(command.Command))
                        : string.Empty;
                    result.AddError(near.Length > 0
                        ? $"unknown option '{token.Value}'{near}"
                        : $"unknown option '{token.Value}'; a file whose name starts with '-' is named as ./{token.Value}");
                }
            }
        });
    }

    /// <summary>
    /// Refuses <c>--format html</c> without <c>--output</c> when standard output is a terminal: hundreds of lines of
    /// markup are no use there. Piped or redirected, the document goes out as asked (<c>| gzip</c>, <c>&gt; r.html</c>).
    /// </summary>
    public static void RefuseHtmlToTerminal(CliConsole console, Command command, Option<string> format, Option<string?> output)
        => command.Validators.Add(result =>
        {
            if (HtmlToTerminal(result.GetValue(format), result.GetValue(output), outputIsTerminal: !console.IsOutputRedirected) is { } problem)
            {
                result.AddError(problem);
            }
        });

    /// <summary>The problem <see cref="RefuseHtmlToTerminal"/> says, or null.</summary>
    public static string? HtmlToTerminal(string? format, string? output, bool outputIsTerminal)
        => format == "html" && output is null && outputIsTerminal
            ? "--format html writes a whole HTML document, not for reading on a terminal: name a file with -o report.html (or pipe it)"
            : null;

    /// <summary><c>--limit</c>/<c>-n</c> of a listing: the most recent rows, 50 unless given, at least 1.</summary>
    public static Option<int> Limit(string description)
    {
        var limit = new Option<int>("--limit", "-n") { Description = description, DefaultValueFactory = _ => 50 };
        limit.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<int>() < 1)
            {
                result.AddError($"--limit must be at least 1; it is {result.GetValueOrDefault<int>()}.");
            }
        });
        return limit;
    }

    public static Option<bool> NoColor() => new("--no-color") { Description = "No colours (also when NO_COLOR is set, or the output is not a terminal); accepted by every verb." };

    public static long? BudgetBytes(int? megabytes) => megabytes is { } mb ? mb * 1_048_576L : null;

    /// <param name="toFile">The report goes to a file (<c>--output</c>): no colour, and the default width.</param>
    public static IReportRenderer Renderer(CliConsole console, string format, bool verbose, bool noColor, bool toFile, long? memoryBudgetBytes = null) => format switch
    {
        "json" => new JsonReportRenderer(),
        "html" => new HtmlReportRenderer(memoryBudgetBytes),
        "markdown" => new MarkdownReportRenderer(),
        _ => ConsoleRenderer(console, verbose, noColor, toFile),
    };

    public static ConsoleReportRenderer ConsoleRenderer(CliConsole console, bool verbose, bool noColor, bool toFile = false)
        => new(verbose, Terminal.UsesColor(console, noColor, toFile), Terminal.Width(console, toFile));

    /// <summary>Standard output, or the file named by <c>--output</c> (created or truncated).</summary>
    public static TextWriter OpenOutput(CliConsole console, string? path) => path is null ? console.Out : new StreamWriter(path, append: false);

    /// <summary>
    /// Runs <paramref name="write"/> against standard output or the file named by <c>--output</c>, then flushes it
    /// (and closes the file, never the console).
    /// </summary>
    public static async Task<T> WriteAsync<T>(CliConsole console, string? path, Func<TextWriter, Task<T>> write, CancellationToken cancellationToken)
    {
        var writer = OpenOutput(console, path);
        try
        {
            var result = await write(writer);
            await writer.FlushAsync(cancellationToken);
            return result;
        }
        finally
        {
            if (path is not null)
            {
                await writer.DisposeAsync();
            }
        }
    }

    /// <summary>
    /// Runs <paramref name="write"/> against standard output or the file named by <c>--output</c>, as text or as bytes
    /// as the report's renderer takes it, then flushes it and closes the file (and its own handle on standard output).
    /// </summary>
    public static async Task<T> WriteReportAsync<T>(CliConsole console, string? path, Func<ReportOutput, Task<T>> write, CancellationToken cancellationToken)
    {
        await using var output = new ReportOutput(path, console);
        var result = await write(output);
        await output.FlushAsync(cancellationToken);
        return result;
    }

    /// <summary>Writes a whole document to standard output or the file named by <c>--output</c>.</summary>
    public static Task WriteAsync(CliConsole console, string? path, Action<TextWriter> write, CancellationToken cancellationToken)
        => WriteAsync(console, path, writer =>
        {
            write(writer);
            return Task.FromResult(true);
        }, cancellationToken);
}
