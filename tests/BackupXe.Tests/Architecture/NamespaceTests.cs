using System.Text.RegularExpressions;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Architecture;

/// <summary>A type is found where its namespace says: every source file's namespace is its project and folders.</summary>
public sealed partial class NamespaceTests
{
    [Fact]
    public void Every_product_file_declares_the_namespace_of_its_folder()
    {
        var src = Path.Combine(Repository.Root, "src");
        var wrong = new List<string>();
        foreach (var file in Directory.EnumerateFiles(src, "*.cs", SearchOption.AllDirectories))
        {
            var relative = Path.GetRelativePath(src, file).Replace('\\', '/');
            var folders = relative.Split('/')[..^1];
            if (folders.Any(part => part is "bin" or "obj"))
            {
                continue;
            }

            var expected = string.Join('.', folders);
            var declared = FileScopedNamespace().Match(File.ReadAllText(file)) is { Success: true } match ? match.Groups[1].Value : "(none)";
            if (declared != expected)
            {
                wrong.Add($"{relative}: {declared}, expected {expected}");
            }
        }

        Assert.Empty(wrong);
    }

    [GeneratedRegex(@"^namespace ([\w.]+);", RegexOptions.Multiline)]
    private static partial Regex FileScopedNamespace();
}
