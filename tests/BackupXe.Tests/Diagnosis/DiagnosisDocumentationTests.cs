using System.Reflection;
using BackupXe.Core.Diagnosis;
using Xunit;

namespace BackupXe.Tests.Diagnosis;

/// <summary>docs/diagnosis.md is what a DBA reads: it fails here when it drifts from the code.</summary>
public class DiagnosisDocumentationTests
{
    private static string Documentation()
    {
        var directory = new DirectoryInfo(AppContext.BaseDirectory);
        while (directory is not null && !File.Exists(Path.Combine(directory.FullName, "BackupXe.sln")))
        {
            directory = directory.Parent;
        }

        Assert.NotNull(directory);
        return File.ReadAllText(Path.Combine(directory.FullName, "docs", "diagnosis.md"));
    }

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
