using System.Reflection;
using BackupXe.Core.Diagnosis;
using Xunit;
using BackupXe.Tests.Support;

namespace BackupXe.Tests.Diagnosis;

/// <summary>docs/diagnosis.md is what a DBA reads: it fails here when it drifts from the code.</summary>
public class DiagnosisDocumentationTests
{
    private static string Documentation() => File.ReadAllText(Path.Combine(Repository.Root, "docs", "diagnosis.md"));

    [Fact]
    public void Every_recommendation_id_is_documented()
    {
        // Given
        var ids = typeof(RecommendationIds).GetFields(BindingFlags.Public | BindingFlags.Static).Select(f => (string)f.GetValue(null)!);

        // When
        var documentation = Documentation();

        // Then
        Assert.All(ids, id => Assert.Contains($"`{id}`", documentation));
    }

    [Fact]
    public void Every_setting_is_documented()
    {
        // Given
        var settings = typeof(DiagnosisSettings).GetProperties(BindingFlags.Public | BindingFlags.Instance).Select(p => p.Name);

        // When
        var documentation = Documentation();

        // Then
        Assert.All(settings, name => Assert.Contains($"| {name} |", documentation));
    }
}
