using System.Text.RegularExpressions;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Architecture;

/// <summary>
/// A skipped test that says nothing looks like a pass to whoever reads the run at 3 a.m.: every skip goes through
/// <see cref="Skipped"/>, which makes it say why and how to run it.
/// </summary>
public sealed partial class SkipReasonTests
{
    [Fact]
    public void Every_skip_in_the_tests_goes_through_the_helper_that_says_why_and_how_to_run_it()
    {
        // Given every test source but the helper
        var tests = Path.Combine(Repository.Root, "tests");
        var files = Directory.EnumerateFiles(tests, "*.cs", SearchOption.AllDirectories)
            .Where(file => !Path.GetRelativePath(tests, file).Replace('\\', '/').Split('/').Any(part => part is "bin" or "obj"))
            .Where(file => Path.GetFileName(file) != "Skipped.cs")
            .ToList();

        // When each line is searched for xunit's own ways of skipping
        var offenders = files
            .SelectMany(file => File.ReadLines(file).Select((line, index) => (File: file, Number: index + 1, Line: line)))
            .Where(x => DirectSkip().IsMatch(x.Line) && !x.Line.TrimStart().StartsWith("//", StringComparison.Ordinal))
            .Select(x => $"{Path.GetRelativePath(tests, x.File)}:{x.Number}: {x.Line.Trim()}")
            .ToList();

        // Then there is none (this file's own pattern aside)
        Assert.NotEmpty(files);
        Assert.DoesNotContain(offenders, o => !o.Contains(nameof(SkipReasonTests), StringComparison.Ordinal));
    }

    [Theory]
    [InlineData("", "set X")]
    [InlineData("no server", " ")]
    public void A_skip_without_a_reason_or_a_way_to_run_it_is_refused(string why, string howToRun) =>
        Assert.Throws<ArgumentException>(() => Skipped.Reason(why, howToRun));

    [Fact]
    public void A_skip_reason_says_why_then_how_to_run_it() =>
        Assert.Equal("no server; to run it: set BACKUPXE_TEST_SQL", Skipped.Reason("no server", "set BACKUPXE_TEST_SQL"));


    // Assert.Skip, Assert.SkipUnless, Assert.SkipWhen, and a [Fact(Skip = ...)] / [Theory(Skip = ...)] attribute.
    [GeneratedRegex(@"\bAssert\.Skip(Unless|When)?\s*\(|\b(Skip|SkipUnless|SkipWhen)\s*=\s*")]
    private static partial Regex DirectSkip();
}
