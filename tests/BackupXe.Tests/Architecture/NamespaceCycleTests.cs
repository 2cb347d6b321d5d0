using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Architecture;

/// <summary>
/// In every project the folders' namespaces depend on each other one way (docs/development.md, "Layout"), a name
/// written qualified counted as a <c>using</c> (<see cref="NamespaceGraph"/>). A cycle that cannot be broken yet is
/// listed with why; one that is gone leaves the list.
/// </summary>
public sealed class NamespaceCycleTests
{
    private static readonly Dictionary<string, string> KnownCycles = new(StringComparer.Ordinal)
    {
    };

    public static TheoryData<string> Projects() => [.. ProjectNames()];

    [Theory]
    [MemberData(nameof(Projects))]
    public void Namespaces_form_no_cycle_but_the_known_ones(string project)
    {
        var cycles = NamespaceGraph.Cycles(NamespaceGraph.Of(project)).Select(cycle => $"{project}: {cycle}");

        Assert.DoesNotContain(cycles, cycle => !KnownCycles.ContainsKey(cycle));
    }

    [Fact]
    public void Every_known_cycle_still_exists()
    {
        var cycles = ProjectNames().SelectMany(project => NamespaceGraph.Cycles(NamespaceGraph.Of(project)).Select(cycle => $"{project}: {cycle}"));

        Assert.Empty(KnownCycles.Keys.Except(cycles));
    }

    [Fact]
    public void A_name_written_qualified_is_a_dependency_and_a_comment_is_not()
    {
        const string code = """
            using System.Globalization;
            using BackupXe.Worker.Logging;

            namespace BackupXe.Worker.Configuration;

            // Monitoring.CaptureSchedule is read below, not here: Telemetry.Meter neither.
            internal static class Check
            {
                public static object Schedule() => Monitoring.CaptureSchedule.From(null!, "key");

                public static object Host() => global::BackupXe.Worker.Hosting.ServiceHost.Name;

                /* Telemetry.BackupXeMetrics.Create() */
            }
            """;

        var used = NamespaceGraph.Used("BackupXe.Worker", "Configuration", ["Configuration", "Hosting", "Logging", "Monitoring", "Telemetry"], code);

        Assert.Equal(["Hosting", "Logging", "Monitoring"], used.Order(StringComparer.Ordinal));
    }

    private static IEnumerable<string> ProjectNames() =>
        Directory.EnumerateDirectories(Path.Combine(Repository.Root, "src")).Select(Path.GetFileName).OfType<string>().Order(StringComparer.Ordinal);
}
