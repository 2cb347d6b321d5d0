using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Architecture;

/// <summary>
/// A product file is one a reader can hold: none is over <see cref="MostLines"/> lines. A type that grows past it
/// is split by what its parts answer (the tuner's searches, the parser's message families), not cut at a line.
/// </summary>
public sealed class SourceFileSizeTests
{
    private const int MostLines = 800;

    [Fact]
    public void No_product_source_file_is_over_800_lines()
    {
        var src = Path.Combine(Repository.Root, "src");
        var tooLong = Directory.EnumerateFiles(src, "*.cs", SearchOption.AllDirectories)
            .Select(file => Path.GetRelativePath(src, file).Replace('\\', '/'))
            .Where(path => !path.Split('/').Any(part => part is "bin" or "obj"))
            .Select(path => (Path: path, Lines: File.ReadLines(Path.Combine(src, path)).Count()))
            .Where(file => file.Lines > MostLines)
            .Select(file => $"{file.Path}: {file.Lines} lines");

        Assert.Empty(tooLong);
    }
}
