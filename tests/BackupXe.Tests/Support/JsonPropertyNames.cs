using System.Text.Json;

namespace BackupXe.Tests.Support;

/// <summary>Every property name a JSON document writes, at any depth: what the JSON contract tests hold against the docs.</summary>
internal static class JsonPropertyNames
{
    public static void AddTo(ISet<string> names, string json)
    {
        using var document = JsonDocument.Parse(json);
        Walk(names, document.RootElement);
    }

    private static void Walk(ISet<string> names, JsonElement element)
    {
        if (element.ValueKind == JsonValueKind.Object)
        {
            foreach (var property in element.EnumerateObject())
            {
                names.Add(property.Name);
                Walk(names, property.Value);
            }
        }
        else if (element.ValueKind == JsonValueKind.Array)
        {
            foreach (var item in element.EnumerateArray())
            {
                Walk(names, item);
            }
        }
    }
}
