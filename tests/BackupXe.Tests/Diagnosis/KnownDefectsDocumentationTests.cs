using BackupXe.Core.Diagnosis;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Diagnosis;

/// <summary>docs/known-issues.md and the catalog in code are one list: the same ids, each with its fixed build and its page.</summary>
public sealed class KnownDefectsDocumentationTests
{
    private static List<string[]> Rows() =>
    [
        .. File.ReadLines(Path.Combine(Repository.Root, "docs", "known-issues.md"))
            .Where(line => line.StartsWith("| `", StringComparison.Ordinal))
            .Select(line => line.Trim('|').Split(" | ").Select(cell => cell.Trim()).ToArray()),
    ];

    [Fact]
    public void The_document_and_the_catalog_hold_the_same_defects_in_the_same_order()
    {
        Assert.Equal(KnownDefects.All.Select(d => $"`{d.Id}`"), Rows().Select(r => r[0]));
    }

    [Fact]
    public void Each_row_names_the_catalogs_page_and_fixed_update()
    {
        // Given the rows, by id
        var rows = Rows().ToDictionary(r => r[0].Trim('`'));

        // Then each names the page's KB number (or its title) and, where the catalog names a build, that build
        Assert.All(KnownDefects.All, defect =>
        {
            var row = rows[defect.Id];
            Assert.Contains(defect.Page.Split(',')[0].Split(" (")[0], row[5], StringComparison.Ordinal);
            if (defect.FixedBuild is { } build && defect.Id != "tde-compressed-2017-cu16")
            {
                Assert.Contains($"{defect.Major}.{defect.Minor}.{build}", row[2], StringComparison.Ordinal);
                Assert.Contains($"to before {defect.Major}.{defect.Minor}.{build}", row[1], StringComparison.Ordinal);
            }
        });
    }

    [Fact]
    public void Every_row_rests_on_a_microsoft_page()
    {
        Assert.All(Rows(), row => Assert.Matches(@"KB\d{7}|Microsoft SQL Server blog|Microsoft support article", row[5]));
    }
}
