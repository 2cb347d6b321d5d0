using Xunit;

namespace BackupXe.Tests.Architecture;

/// <summary>
/// The core's namespaces depend on each other one way (docs/development.md, "Layout"; the cycle test holds every
/// project, <see cref="NamespaceCycleTests"/>): the report records are a leaf that the analysis fills and the writers
/// read, and the formatting of figures depends on nothing.
/// </summary>
public sealed class CoreNamespaceTests
{
    [Fact]
    public void Events_know_nothing_of_how_messages_are_parsed()
    {
        var used = Dependencies()["Events"];

        Assert.DoesNotContain("Parsing", used);
    }

    [Theory]
    [InlineData("Formatting", new string[0])]
    [InlineData("Reporting", new[] { "Events", "Formatting", "Parsing" })]
    public void A_leaf_namespace_uses_only_what_is_below_it(string leaf, string[] allowed)
    {
        var used = Dependencies().GetValueOrDefault(leaf, []);

        Assert.Empty(used.Except(allowed));
    }

    [Fact]
    public void The_writers_are_used_by_no_other_core_namespace()
    {
        var users = Dependencies().Where(pair => pair.Value.Contains("Rendering")).Select(pair => pair.Key);

        Assert.Empty(users);
    }

    private static Dictionary<string, HashSet<string>> Dependencies() => NamespaceGraph.Of("BackupXe.Core");
}
