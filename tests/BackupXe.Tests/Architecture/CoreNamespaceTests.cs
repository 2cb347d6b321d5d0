using System.Text.RegularExpressions;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Architecture;

/// <summary>
/// The core's namespaces depend on each other one way (docs/development.md, "Layout"): the report records are a leaf
/// that the analysis fills and the writers read, and the formatting of figures depends on nothing. A dependency is a
/// <c>using</c> of another core namespace or a name qualified by one, in code (comments do not count).
/// </summary>
public sealed partial class CoreNamespaceTests
{
    [Fact]
    public void Core_namespaces_form_no_cycle()
    {
        var cycles = StronglyConnected(Dependencies())
            .Where(component => component.Count > 1)
            .Select(component => string.Join(" <-> ", component.Order(StringComparer.Ordinal)));

        Assert.Empty(cycles);
    }

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

    private static Dictionary<string, HashSet<string>> Dependencies()
    {
        var core = Path.Combine(Repository.Root, "src", "BackupXe.Core");
        var namespaces = Directory.EnumerateDirectories(core)
            .Select(Path.GetFileName)
            .OfType<string>()
            .Where(name => name is not ("bin" or "obj"))
            .ToList();
        var qualified = new Regex(@"(?<![\w.])(" + string.Join('|', namespaces) + @")\.[A-Z]");
        var graph = namespaces.ToDictionary(name => name, _ => new HashSet<string>(StringComparer.Ordinal));
        foreach (var name in namespaces)
        {
            foreach (var file in Directory.EnumerateFiles(Path.Combine(core, name), "*.cs", SearchOption.AllDirectories))
            {
                var code = Comments().Replace(File.ReadAllText(file), string.Empty);
                var body = code[(code.IndexOf("namespace ", StringComparison.Ordinal) + 1)..];
                var used = Usings().Matches(code).Select(match => match.Groups[1].Value)
                    .Concat(qualified.Matches(body).Select(match => match.Groups[1].Value));
                graph[name].UnionWith(used.Where(other => other != name && graph.ContainsKey(other)));
            }
        }

        return graph;
    }

    /// <summary>Tarjan's strongly connected components: each set of namespaces that reach each other.</summary>
    private static List<List<string>> StronglyConnected(Dictionary<string, HashSet<string>> graph)
    {
        var index = new Dictionary<string, int>();
        var low = new Dictionary<string, int>();
        var stack = new Stack<string>();
        var components = new List<List<string>>();

        void Visit(string node)
        {
            index[node] = low[node] = index.Count;
            stack.Push(node);
            foreach (var next in graph[node])
            {
                if (!index.ContainsKey(next))
                {
                    Visit(next);
                    low[node] = Math.Min(low[node], low[next]);
                }
                else if (stack.Contains(next))
                {
                    low[node] = Math.Min(low[node], index[next]);
                }
            }

            if (low[node] == index[node])
            {
                var component = new List<string>();
                string member;
                do
                {
                    member = stack.Pop();
                    component.Add(member);
                }
                while (member != node);
                components.Add(component);
            }
        }

        foreach (var node in graph.Keys.Where(node => !index.ContainsKey(node)))
        {
            Visit(node);
        }

        return components;
    }

    [GeneratedRegex(@"//[^\n]*|/\*.*?\*/", RegexOptions.Singleline)]
    private static partial Regex Comments();

    [GeneratedRegex(@"^using (?:static )?(?:\w+ = )?BackupXe\.Core\.(\w+)", RegexOptions.Multiline)]
    private static partial Regex Usings();
}
