using System.Reflection;
using System.Xml.Linq;
using BackupXe.Core.Reporting;
using BackupXe.History;
using BackupXe.Sources;
using BackupXe.SqlServer.Requirements;
using Xunit;

namespace BackupXe.Tests.Architecture;

/// <summary>
/// The libraries' public types are what the CLI and the daemon build on: each one carries a summary in the XML
/// documentation the build generates.
/// </summary>
public sealed class ApiDocumentationTests
{
    public static TheoryData<string> Libraries =>
    [
        typeof(OperationReport).Assembly.GetName().Name!,
        typeof(InputSources).Assembly.GetName().Name!,
        typeof(ServerFacts).Assembly.GetName().Name!,
        typeof(IHistoryStore).Assembly.GetName().Name!,
    ];

    [Theory]
    [MemberData(nameof(Libraries))]
    public void Every_public_type_has_a_summary(string library)
    {
        // Given the library and the documentation file generated beside it
        var assembly = Assembly.Load(library);
        var file = Path.ChangeExtension(assembly.Location, ".xml");
        Assert.True(File.Exists(file), $"{Path.GetFileName(file)} was not generated: GenerateDocumentationFile is off for {library}");
        var summaries = XDocument.Load(file).Descendants("member")
            .Where(member => !string.IsNullOrWhiteSpace(member.Element("summary")?.Value))
            .Select(member => (string)member.Attribute("name")!)
            .ToHashSet(StringComparer.Ordinal);

        // Then every exported type, nested ones included, has one
        var missing = assembly.GetExportedTypes()
            .Select(type => "T:" + type.FullName!.Replace('+', '.'))
            .Where(id => !summaries.Contains(id))
            .Order(StringComparer.Ordinal)
            .ToList();
        Assert.True(missing.Count == 0, $"{library}: public types without a <summary>: {string.Join(", ", missing)}");
    }
}
