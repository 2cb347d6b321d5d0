using System.Text;
using System.Text.RegularExpressions;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Architecture;

/// <summary>
/// A clone is all a newcomer has: every source a rule, a comment or a report cites must be a page of this
/// repository (docs/backup-internals.md, docs/xel-format.md, ...), never a private brief or an issue tracker, and
/// every anchor, heading or section it cites must exist in the page it names.
/// </summary>
public sealed partial class RepositoryReferencesTests
{
    private static readonly string Root = Repository.Root;

    private static readonly string[] TextExtensions = [".cs", ".md", ".sql", ".csproj", ".props", ".targets", ".json", ".txt", ".js", ".css", ".html", ".xml", ".yml", ".yaml"];

    [Fact]
    public void No_file_of_the_product_or_its_docs_cites_a_document_or_tracker_outside_the_repository()
    {
        // Given every text file under src/, docs/, sessions/ and the README
        var files = TextFiles("src", "docs", "sessions").Append(Path.Combine(Root, "README.md"));

        // When each line is searched for a private brief, a path out of the repository or a tracker's issue number
        var offenders = files
            .SelectMany(file => File.ReadLines(file).Select((line, index) => (File: file, Number: index + 1, Line: line)))
            .Where(x => OutsideReference().IsMatch(x.Line))
            .Select(x => $"{Relative(x.File)}:{x.Number}: {x.Line.Trim()}")
            .ToList();

        // Then there is none
        Assert.Empty(offenders);
    }

    [Fact]
    public void Every_backup_internals_anchor_cited_exists()
    {
        // Given the anchors GitHub gives the headings of docs/backup-internals.md
        var anchors = Anchors("backup-internals.md");

        // When every docs/backup-internals.md#anchor cited in the code, the tests, the bench and the docs is collected
        var cited = Citations(BackupInternalsAnchor()).Select(x => (x.Where, Anchor: x.Match.Groups[1].Value)).ToList();

        // Then each is a heading of the page
        Assert.NotEmpty(cited);
        Assert.Empty(cited.Where(x => !anchors.Contains(x.Anchor)).Select(x => $"{x.Where}: #{x.Anchor}"));
    }

    [Fact]
    public void Every_backup_internals_heading_cited_in_report_text_exists()
    {
        // Given the headings of docs/backup-internals.md
        var headings = Headings("backup-internals.md").Select(h => h.Text).ToHashSet(StringComparer.Ordinal);

        // When every "docs/backup-internals.md, 'Heading'" citation (the form evidence and remedies print) is collected
        var cited = Citations(BackupInternalsHeading()).Select(x => (x.Where, Heading: x.Match.Groups[1].Value)).ToList();

        // Then each names a heading of the page, word for word
        Assert.NotEmpty(cited);
        Assert.Empty(cited.Where(x => !headings.Contains(x.Heading)).Select(x => $"{x.Where}: '{x.Heading}'"));
    }

    [Fact]
    public void Every_xel_format_section_cited_exists()
    {
        // Given the numbered sections of docs/xel-format.md ("### 4. Metadata buffer: package chunks")
        var sections = Headings("xel-format.md")
            .Select(h => NumberedSection().Match(h.Text))
            .Where(m => m.Success)
            .Select(m => int.Parse(m.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture))
            .ToHashSet();

        // When every "docs/xel-format.md section N" or "sections N-M" cited is collected
        var cited = Citations(XelFormatSection())
            .SelectMany(x => SectionRange(x.Match).Select(number => (x.Where, Number: number)))
            .ToList();

        // Then each section exists
        Assert.NotEmpty(cited);
        Assert.Empty(cited.Where(x => !sections.Contains(x.Number)).Select(x => $"{x.Where}: section {x.Number}"));
    }

    [Theory]
    [InlineData("backup-internals.md")]
    [InlineData("xel-format.md")]
    public void Every_link_inside_a_domain_page_points_to_one_of_its_headings(string page)
    {
        // Given the page's anchors
        var anchors = Anchors(page);

        // When its own links (#anchor) are collected
        var links = PageLink().Matches(File.ReadAllText(Path.Combine(Root, "docs", page))).Select(m => m.Groups[1].Value).ToList();

        // Then each resolves
        Assert.All(links, link => Assert.Contains(link, anchors));
    }

    [Theory]
    [InlineData("Data path: readers, buffers, writers", "data-path-readers-buffers-writers")]
    [InlineData("A 10 GB database on a SAN", "a-10-gb-database-on-a-san")]
    [InlineData("Striping on a 96-core server", "striping-on-a-96-core-server")]
    [InlineData("1. File layout", "1-file-layout")]
    [InlineData("The `.xel` file format, as BackupXe's decoder reads it", "the-xel-file-format-as-backupxes-decoder-reads-it")]
    public void Anchors_are_computed_as_GitHub_computes_them(string heading, string anchor)
    {
        // When / Then: lower case, punctuation dropped except '-', spaces to '-'
        Assert.Equal(anchor, Slug(heading));
    }

    [Theory]
    [InlineData("// see domain.md section 4")]
    [InlineData("(../shared/docs/xel-format.md sections 1-5)")]
    [InlineData("the goals of issue 10")]
    [InlineData("as measured in Issue #9")]
    public void A_reference_outside_the_repository_is_recognised(string line)
    {
        Assert.Matches(OutsideReference(), line);
    }

    [Theory]
    [InlineData("docs/backup-internals.md#wait-types")]
    [InlineData("docs/xel-format.md section 6")]
    [InlineData("a known design issue of the driver")]
    public void A_reference_inside_the_repository_is_not_taken_for_one_outside(string line)
    {
        Assert.DoesNotMatch(OutsideReference(), line);
    }

    /// <summary>Every citation of <paramref name="pattern"/> in src/, docs/, bench/ and tests/ (this file aside), with where it is.</summary>
    private static IEnumerable<(string Where, Match Match)> Citations(Regex pattern) =>
        TextFiles("src", "docs", "bench", "tests")
            .Where(file => !file.EndsWith(nameof(RepositoryReferencesTests) + ".cs", StringComparison.Ordinal))
            .SelectMany(file => File.ReadLines(file).Select((line, index) => (Where: $"{Relative(file)}:{index + 1}", Line: line)))
            .SelectMany(x => pattern.Matches(x.Line).Select(match => (x.Where, match)));

    private static IEnumerable<int> SectionRange(Match match)
    {
        var first = int.Parse(match.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture);
        var last = match.Groups[2].Success ? int.Parse(match.Groups[2].Value, System.Globalization.CultureInfo.InvariantCulture) : first;
        return Enumerable.Range(first, Math.Max(1, last - first + 1));
    }

    private static HashSet<string> Anchors(string page)
    {
        // GitHub numbers a repeated anchor: the second "x" becomes "x-1".
        var anchors = new HashSet<string>(StringComparer.Ordinal);
        foreach (var heading in Headings(page))
        {
            var slug = Slug(heading.Text);
            var candidate = slug;
            for (var n = 1; !anchors.Add(candidate); n++)
            {
                candidate = $"{slug}-{n}";
            }
        }

        return anchors;
    }

    private static List<(int Level, string Text)> Headings(string page)
    {
        var headings = new List<(int, string)>();
        var fenced = false;
        foreach (var line in File.ReadLines(Path.Combine(Root, "docs", page)))
        {
            if (line.StartsWith("```", StringComparison.Ordinal))
            {
                fenced = !fenced;
                continue;
            }

            var match = Heading().Match(line);
            if (!fenced && match.Success)
            {
                headings.Add((match.Groups[1].Length, match.Groups[2].Value.Trim()));
            }
        }

        return headings;
    }

    /// <summary>GitHub's anchor for a heading: lower case, letters, digits, '-' and '_' kept, spaces to '-', the rest dropped.</summary>
    private static string Slug(string heading)
    {
        var slug = new StringBuilder(heading.Length);
        foreach (var c in heading.ToLowerInvariant())
        {
            if (char.IsLetterOrDigit(c) || c is '-' or '_')
            {
                slug.Append(c);
            }
            else if (c == ' ')
            {
                slug.Append('-');
            }
        }

        return slug.ToString();
    }

    private static IEnumerable<string> TextFiles(params string[] folders) =>
        folders
            .Select(folder => Path.Combine(Root, folder))
            .Where(Directory.Exists)
            .SelectMany(folder => Directory.EnumerateFiles(folder, "*", SearchOption.AllDirectories))
            .Where(file => TextExtensions.Contains(Path.GetExtension(file), StringComparer.OrdinalIgnoreCase))
            .Where(file => !Relative(file).Split('/').Any(part => part is "bin" or "obj"));

    private static string Relative(string file) => Path.GetRelativePath(Root, file).Replace('\\', '/');


    [GeneratedRegex(@"domain\.md|\.\./shared|shared/docs|\bissues?\s+#?\d+", RegexOptions.IgnoreCase)]
    private static partial Regex OutsideReference();

    [GeneratedRegex(@"docs/backup-internals\.md#([A-Za-z0-9_-]+)")]
    private static partial Regex BackupInternalsAnchor();

    [GeneratedRegex(@"docs/backup-internals\.md, '([^']+)'")]
    private static partial Regex BackupInternalsHeading();

    [GeneratedRegex(@"docs/xel-format\.md,? sections? (\d+)(?:\s*(?:-|and|to)\s*(\d+))?")]
    private static partial Regex XelFormatSection();

    [GeneratedRegex(@"^(\d+)\.\s")]
    private static partial Regex NumberedSection();

    [GeneratedRegex(@"^(#{1,6})\s+(.+)$")]
    private static partial Regex Heading();

    [GeneratedRegex(@"\]\(#([A-Za-z0-9_-]+)\)")]
    private static partial Regex PageLink();
}
