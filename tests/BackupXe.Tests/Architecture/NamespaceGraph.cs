using System.Text.RegularExpressions;
using BackupXe.Tests.Support;

namespace BackupXe.Tests.Architecture;

/// <summary>
/// A project's namespaces, one per folder under the project, and which of them each uses: a <c>using</c> of
/// another, a name qualified by one (from the project's root namespace, <c>global::</c> included, or from the folder
/// alone, which the parent namespace lets code write), in code only (comments do not count). A sub-folder counts as
/// its folder; the project's root namespace, which every folder sees without a <c>using</c>, is left out.
/// </summary>
internal static partial class NamespaceGraph
{
    public static Dictionary<string, HashSet<string>> Of(string project)
    {
        var root = Path.Combine(Repository.Root, "src", project);
        var namespaces = Directory.EnumerateDirectories(root)
            .Select(Path.GetFileName)
            .OfType<string>()
            .Where(name => name is not ("bin" or "obj"))
            .ToList();
        var graph = namespaces.ToDictionary(name => name, _ => new HashSet<string>(StringComparer.Ordinal));
        if (namespaces.Count == 0)
        {
            return graph;
        }

        foreach (var name in namespaces)
        {
            foreach (var file in Directory.EnumerateFiles(Path.Combine(root, name), "*.cs", SearchOption.AllDirectories))
            {
                graph[name].UnionWith(Used(project, name, namespaces, File.ReadAllText(file)));
            }
        }

        return graph;
    }

    /// <summary>The namespaces among <paramref name="namespaces"/>, other than its own, that one file's code uses.</summary>
    public static IEnumerable<string> Used(string project, string own, IReadOnlyCollection<string> namespaces, string text)
    {
        var code = Comments().Replace(text, string.Empty);
        var body = code[(code.IndexOf("namespace ", StringComparison.Ordinal) + 1)..];
        var fromRoot = new Regex(Regex.Escape(project) + @"\.(\w+)");
        var fromFolder = new Regex(@"(?<![\w.])(" + string.Join('|', namespaces) + @")\.[A-Z]");
        return fromRoot.Matches(code).Select(match => match.Groups[1].Value)
            .Concat(fromFolder.Matches(body).Select(match => match.Groups[1].Value))
            .Where(used => used != own && namespaces.Contains(used))
            .Distinct(StringComparer.Ordinal);
    }

    /// <summary>Each set of two or more namespaces that reach each other, its names in order, joined by " &lt;-&gt; ".</summary>
    public static IReadOnlyList<string> Cycles(Dictionary<string, HashSet<string>> graph) =>
        [.. StronglyConnected(graph).Where(component => component.Count > 1).Select(component => string.Join(" <-> ", component.Order(StringComparer.Ordinal)))];

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
}
