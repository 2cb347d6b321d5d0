using System.Reflection;
using System.Text.RegularExpressions;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Architecture;

/// <summary>
/// The tests are a map of the code: a test file named after a product type (FooTests.cs for Foo) sits in the folder
/// that mirrors Foo's namespace, as most already did. The core's folders sit at the test project's root, another
/// project's under its name without "BackupXe." (BackupXe.Sources.Xel: Sources/Xel). A file named after no type, or
/// after a name several namespaces declare, tells a behaviour and sits with its theme. There are no exceptions: a test
/// of the rules behind a record is named after the rules' type (BottleneckRulesTests, not BottleneckTests).
/// </summary>
public sealed partial class TestMirrorTests
{
    [Fact]
    public void Every_type_named_test_file_sits_in_its_types_mirror_folder()
    {
        var misplaced = TypeNamedTestFiles()
            .Where(file => file.Folder != file.Mirror)
            .Select(file => $"{file.Path}: expected in {file.Mirror}/");

        Assert.Empty(misplaced);
    }

    [Theory]
    [InlineData("BackupXe.Core.Diagnosis", "Diagnosis")]
    [InlineData("BackupXe.Core.Rendering.Html", "Rendering/Html")]
    [InlineData("BackupXe.Sources", "Sources")]
    [InlineData("BackupXe.SqlServer.Live.EventFile", "SqlServer/Live/EventFile")]
    [InlineData("BackupXe.History", "History")]
    public void A_namespace_mirrors_to_its_test_folder(string productNamespace, string folder) =>
        Assert.Equal(folder, Mirror(productNamespace));

    private static string Mirror(string productNamespace)
    {
        var parts = productNamespace.Split('.')[1..];
        return string.Join('/', parts[0] == "Core" ? parts[1..] : parts);
    }

    private static IEnumerable<(string Path, string Folder, string Mirror)> TypeNamedTestFiles()
    {
        var homes = ProductTypes()
            .GroupBy(type => type.Name.Split('`')[0], StringComparer.Ordinal)
            .Where(group => group.Select(type => type.Namespace).Distinct().Count() == 1)
            .ToDictionary(group => group.Key, group => group.First().Namespace!, StringComparer.Ordinal);
        var tests = Path.Combine(Repository.Root, "tests", "BackupXe.Tests");
        foreach (var file in Directory.EnumerateFiles(tests, "*Tests*.cs", SearchOption.AllDirectories))
        {
            var path = Path.GetRelativePath(tests, file).Replace('\\', '/');
            if (path.Split('/')[0] is "bin" or "obj" || TestFileName().Match(Path.GetFileName(file)) is not { Success: true } name
                || !homes.TryGetValue(name.Groups[1].Value, out var home))
            {
                continue;
            }

            yield return (path, path.Contains('/') ? path[..path.LastIndexOf('/')] : string.Empty, Mirror(home));
        }
    }

    /// <summary>The product's own types, by simple name: nested and compiler-made types are not a file's name.</summary>
    private static IEnumerable<Type> ProductTypes() =>
        new[] { "BackupXe.Core", "BackupXe.Sources", "BackupXe.SqlServer", "BackupXe.History", "backupxe", "BackupXe.Worker" }
            .Select(name => Assembly.Load(new AssemblyName(name)))
            .SelectMany(assembly => assembly.GetTypes())
            .Where(type => !type.IsNested && !type.Name.Contains('<', StringComparison.Ordinal)
                && type.Namespace?.StartsWith("BackupXe.", StringComparison.Ordinal) == true);

    [GeneratedRegex(@"^(\w+?)Tests(?:\.\w+)?\.cs$")]
    private static partial Regex TestFileName();
}
