using System.CommandLine;
using System.CommandLine.Invocation;

namespace BackupXe.Cli.Commands;

/// <summary>
/// How a command line the parser refused is answered: one line per error, a misspelt verb, option or value followed
/// by the nearest one that exists, and the last line pointing at the verb's help. The help itself is not printed: at
/// 22 to 37 lines it scrolled the error off a 24-line terminal.
/// </summary>
internal static class UsageErrors
{
    /// <summary>The name a user types: the root command's own name is the host's (a test runner's, dotnet's).</summary>
    private const string Executable = "backupxe";

    /// <summary>True when the parser refused the command line and no other action (--help, --version) takes over.</summary>
    public static bool Refused(ParseResult parse) => parse.Action is ParseErrorAction && parse.Tokens.Count > 0;

    /// <summary>The lines to write to standard error, each starting with "backupxe: ".</summary>
    public static IReadOnlyList<string> Lines(ParseResult parse)
    {
        var command = parse.CommandResult.Command;
        var messages = new List<string>();
        var unmatched = parse.UnmatchedTokens;
        var unknownCommand = false;
        if (unmatched.Count > 0)
        {
            var token = unmatched[0];
            unknownCommand = !(token.Length > 1 && token[0] == '-') && command.Subcommands.Count > 0;
            messages.Add(token.Length > 1 && token[0] == '-'
                ? $"unknown option '{token}'{DidYouMean(token, OptionNames(command))}"
                : unknownCommand
                    ? $"unknown command '{token}'{DidYouMean(token, CommandNames(command))}"
                    : $"unexpected argument '{token}'");
        }

        // After a verb that does not exist the rest of the line means nothing ("Required command was not provided").
        foreach (var error in unknownCommand ? [] : parse.Errors)
        {
            // The parser's own line for an unmatched token is said above, with a suggestion.
            if (unmatched.Any(token => error.Message.Contains($"'{token}'", StringComparison.Ordinal)))
            {
                continue;
            }

            var line = OneLine(error.Message);
            if (!messages.Contains(line, StringComparer.Ordinal))
            {
                messages.Add(line);
            }
        }

        var help = $"see `{string.Join(' ', [Executable, .. Path(parse.CommandResult)])} --help`";
        var lines = messages.Select(message => $"{Executable}: {message.TrimEnd('.')}").ToList();
        if (lines.Count == 0)
        {
            return [$"{Executable}: the command line is incomplete ({help})"];
        }

        lines[^1] += $" ({help})";
        return lines;
    }

    /// <summary>"; did you mean '--format'?" when one name is near <paramref name="typed"/>, else nothing.</summary>
    public static string DidYouMean(string typed, IEnumerable<string> names)
    {
        // Near: at most a third of the word changed, so "analyse" finds "analyze" and "xyz" finds nothing.
        var limit = Math.Max(1, typed.TrimStart('-').Length / 3);
        var best = names
            .Select(name => (Name: name, Distance: Distance(typed.ToLowerInvariant(), name.ToLowerInvariant())))
            .Where(candidate => candidate.Distance <= limit)
            .OrderBy(candidate => candidate.Distance)
            .ThenBy(candidate => candidate.Name, StringComparer.Ordinal)
            .FirstOrDefault();
        return best.Name is null ? string.Empty : $"; did you mean '{best.Name}'?";
    }

    /// <summary>The option names and aliases <paramref name="command"/> accepts, its parents' recursive ones included.</summary>
    public static IEnumerable<string> OptionNames(Command command)
    {
        IEnumerable<Option> options = command.Options;
        foreach (var parent in Ancestors(command))
        {
            options = options.Concat(parent.Options.Where(option => option.Recursive));
        }

        return options.SelectMany(option => option.Aliases.Prepend(option.Name)).Where(name => name.StartsWith("--", StringComparison.Ordinal));
    }

    private static IEnumerable<string> CommandNames(Command command)
        => command.Subcommands.SelectMany(sub => sub.Aliases.Prepend(sub.Name));

    private static IEnumerable<Command> Ancestors(Command command)
    {
        foreach (var parent in command.Parents)
        {
            if (parent is Command owner)
            {
                yield return owner;
                foreach (var above in Ancestors(owner))
                {
                    yield return above;
                }
            }
        }
    }

    /// <summary>The verbs from the root down to the command parsed: "history", "import".</summary>
    private static IEnumerable<string> Path(System.CommandLine.Parsing.CommandResult result)
    {
        var names = new Stack<string>();
        for (var current = result; current.Parent is System.CommandLine.Parsing.CommandResult parent; current = parent)
        {
            names.Push(current.Command.Name);
        }

        return names;
    }

    /// <summary>A message of several lines (the parser lists allowed values one a line) folded into one.</summary>
    private static string OneLine(string message)
        => string.Join(' ', message.Split(['\r', '\n', '\t'], StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries));

    /// <summary>Edits (insert, delete, replace, swap of neighbours) between two words: optimal string alignment.</summary>
    private static int Distance(string a, string b)
    {
        var d = new int[a.Length + 1, b.Length + 1];
        for (var i = 0; i <= a.Length; i++)
        {
            d[i, 0] = i;
        }

        for (var j = 0; j <= b.Length; j++)
        {
            d[0, j] = j;
        }

        for (var i = 1; i <= a.Length; i++)
        {
            for (var j = 1; j <= b.Length; j++)
            {
                var cost = a[i - 1] == b[j - 1] ? 0 : 1;
                d[i, j] = Math.Min(Math.Min(d[i - 1, j] + 1, d[i, j - 1] + 1), d[i - 1, j - 1] + cost);
                if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                {
                    d[i, j] = Math.Min(d[i, j], d[i - 2, j - 2] + 1);
                }
            }
        }

        return d[a.Length, b.Length];
    }
}
