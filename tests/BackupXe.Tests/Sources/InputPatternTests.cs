using BackupXe.Sources;
using BackupXe.Sources.Xel;
using BackupXe.Tests.Sources.Support;
using Xunit;

namespace BackupXe.Tests.Sources;

public sealed class InputPatternTests
{
    [Fact]
    public void Expands_a_rollover_set_in_the_order_the_files_were_written()
    {
        // Given event_file names whose counters differ in digit count
        using var input = TempInput.WithBytes([1], "BackupXe_0_133600000000000009.xel");
        var folder = Path.GetDirectoryName(input.Path)!;
        foreach (var name in new[] { "BackupXe_0_133600000000000010.xel", "BackupXe_0_133599999999999999.xel", "other.xel" })
        {
            File.WriteAllBytes(Path.Combine(folder, name), [1]);
        }

        // When
        var files = InputPattern.Expand(Path.Combine(folder, "BackupXe_0_*.xel"));

        // Then
        Assert.Equal(
            ["BackupXe_0_133599999999999999.xel", "BackupXe_0_133600000000000009.xel", "BackupXe_0_133600000000000010.xel"],
            files.Select(Path.GetFileName));
    }

    [Theory]
    [InlineData("/var/xe/trace_0_*.xel", true)]
    [InlineData("/var/xe/trace_?.xel", true)]
    [InlineData("/var/xe/trace_0_1.xel", false)]
    public void Only_wildcards_in_the_file_name_make_a_pattern(string path, bool expected)
    {
        Assert.Equal(expected, InputPattern.IsPattern(path));
    }

    [Fact]
    public async Task A_pattern_of_xel_files_is_one_source_reading_each_file_with_its_own_metadata()
    {
        // Given two copies of the fixture
        using var input = TempInput.WithBytes(File.ReadAllBytes(Fixture.TestXel), "s_0_1.xel");
        File.Copy(Fixture.TestXel, Path.Combine(Path.GetDirectoryName(input.Path)!, "s_0_2.xel"));

        // When
        var source = InputSources.Open(Path.Combine(Path.GetDirectoryName(input.Path)!, "s_0_*.xel"));
        var run = await SourceRun.ReadAsync(source);

        // Then
        Assert.IsType<XelFileSource>(source);
        Assert.Equal(298, run.Status.Events);
        Assert.Empty(run.Status.Problems);
    }

    [Fact]
    public async Task A_pattern_matching_nothing_says_so()
    {
        // Given
        using var nowhere = TempInput.Nowhere();

        // When
        var run = await SourceRun.ReadAsync(InputSources.Open(Path.Combine(Path.GetDirectoryName(nowhere.Path)!, "none_*.xel")));

        // Then
        Assert.True(run.Status.Unusable);
        Assert.Equal("no file matches this pattern", Assert.Single(run.Status.Problems).Message);
    }
}
