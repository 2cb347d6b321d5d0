using System.Text.RegularExpressions;
using BackupXe.Cli;
using Xunit;

namespace BackupXe.Tests.Cli;

/// <summary>
/// Each verb has one page in docs/commands/ and one row in README's command table that links to it, and every
/// relative link of the README and of those pages leads to a file of the repository.
/// </summary>
public sealed partial class CommandDocumentationTests
{
    private static readonly string Root = Path.GetDirectoryName(Path.GetDirectoryName(CliRun.Sample("x")))!;

    [Fact]
    public void Every_verb_has_a_page_and_a_row_in_the_readme_that_links_to_it()
    {
        // Given the README's command table
        var rows = File.ReadLines(Path.Combine(Root, "README.md")).Where(line => line.StartsWith("| [`", StringComparison.Ordinal)).ToList();

        // When each verb of the CLI is looked for
        var missing = Program.BuildRoot().Subcommands
            .Select(verb => $"docs/commands/{verb.Name}.md")
            .Where(page => !File.Exists(Path.Combine(Root, page)) || !rows.Any(row => row.Contains($"]({page})", StringComparison.Ordinal)))
            .ToList();

        // Then each has its page, linked from a row
        Assert.NotEmpty(rows);
        Assert.Empty(missing);
    }

    [Fact]
    public void Every_relative_link_of_the_readme_and_the_command_pages_leads_to_a_file()
    {
        // Given the README and the command pages
        var pages = Directory.EnumerateFiles(Path.Combine(Root, "docs", "commands"), "*.md").Append(Path.Combine(Root, "README.md")).ToList();

        // When each Markdown link that is not a URL or an anchor is resolved against its page's folder
        var broken = pages
            .SelectMany(page => MarkdownLink().Matches(File.ReadAllText(page)).Select(m => (Page: page, Target: m.Groups[1].Value)))
            .Where(link => !link.Target.Contains("://", StringComparison.Ordinal) && !link.Target.StartsWith('#'))
            .Where(link => !File.Exists(Path.Combine(Path.GetDirectoryName(link.Page)!, link.Target.Split('#')[0])))
            .Select(link => $"{Path.GetRelativePath(Root, link.Page)}: {link.Target}")
            .ToList();

        // Then none is broken
        Assert.Empty(broken);
    }

    [GeneratedRegex(@"\]\(([^)\s]+)\)")]
    private static partial Regex MarkdownLink();
}
