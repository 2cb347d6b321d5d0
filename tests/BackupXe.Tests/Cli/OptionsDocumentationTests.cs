using System.CommandLine;
using BackupXe.Cli;
using Xunit;

namespace BackupXe.Tests.Cli;

/// <summary>docs/options.md lists every option of every verb, with its short form, and nothing else.</summary>
public sealed class OptionsDocumentationTests
{
    [Fact]
    public void The_options_table_matches_every_verbs_options()
    {
        // Given
        var documented = DocumentedOptions();

        // When
        var actual = new SortedSet<string>(StringComparer.Ordinal);
        foreach (var verb in Program.BuildRoot().Subcommands)
        {
            Walk(verb, verb.Name, actual);
        }

        // Then
        Assert.Equal(string.Join('\n', documented), string.Join('\n', actual));
    }

    [Fact]
    public void No_short_form_means_two_options()
    {
        // Given every short form in use
        var shorts = new Dictionary<string, HashSet<string>>(StringComparer.Ordinal);
        foreach (var verb in Program.BuildRoot().Subcommands)
        {
            var found = new SortedSet<string>(StringComparer.Ordinal);
            Walk(verb, verb.Name, found);
            foreach (var row in found)
            {
                var parts = row.Split(" | ");
                if (parts[2].Length > 0)
                {
                    (shorts.TryGetValue(parts[2], out var names) ? names : shorts[parts[2]] = []).Add(parts[1]);
                }
            }
        }

        // Then
        Assert.All(shorts, pair => Assert.True(pair.Value.Count == 1, $"{pair.Key}: {string.Join(", ", pair.Value)}"));
    }

    private static void Walk(Command command, string path, SortedSet<string> into)
    {
        foreach (var option in command.Options)
        {
            if (option.Name is "--help" or "--version")
            {
                continue;
            }

            into.Add($"{path} | {option.Name} | {string.Join(",", option.Aliases.Where(a => a is not ("-h" or "-?" or "/?" or "/h")))}");
        }

        foreach (var sub in command.Subcommands)
        {
            Walk(sub, $"{path} {sub.Name}", into);
        }
    }

    private static SortedSet<string> DocumentedOptions()
    {
        var page = File.ReadAllLines(Path.Combine(Path.GetDirectoryName(Path.GetDirectoryName(CliRun.Sample("x")))!, "docs", "options.md"));
        var rows = new SortedSet<string>(StringComparer.Ordinal);
        foreach (var line in page.Where(l => l.StartsWith("| `--", StringComparison.Ordinal)))
        {
            var cells = line.Trim('|').Split('|').Select(c => c.Trim().Trim('`')).ToArray();
            foreach (var verb in cells[3].Split(',', StringSplitOptions.TrimEntries))
            {
                rows.Add($"{verb} | {cells[0]} | {cells[1]}");
            }
        }

        return rows;
    }
}
