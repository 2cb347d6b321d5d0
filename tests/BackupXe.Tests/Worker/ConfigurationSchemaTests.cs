using System.Collections;
using System.Reflection;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.RegularExpressions;
using BackupXe.Tests.Support;
using BackupXe.Worker.Configuration;
using Json.Schema;
using Xunit;

namespace BackupXe.Tests.Worker;

/// <summary>
/// src/BackupXe.Worker/appsettings.schema.json, which editors use to complete and check appsettings.json, is held to
/// the options types (every setting, no other, each with its JSON type and its code default) and accepts the
/// bundled and documented configurations.
/// </summary>
public sealed partial class ConfigurationSchemaTests
{
    private static readonly string RepositoryRoot = Repository.Root;
    private static readonly string SchemaPath = Path.Combine(RepositoryRoot, "src", "BackupXe.Worker", "appsettings.schema.json");

    [Fact]
    public void The_schema_has_every_setting_of_the_options_types_and_no_other_with_its_type_and_default()
    {
        var schema = JsonNode.Parse(File.ReadAllText(SchemaPath))!;
        var problems = new List<string>();

        Compare(typeof(BackupXeOptions), new BackupXeOptions(), schema["properties"]!["BackupXe"]!, "BackupXe", problems);

        Assert.Empty(problems);
    }

    [Fact]
    public void The_bundled_appsettings_points_editors_at_the_schema()
    {
        var settings = JsonNode.Parse(File.ReadAllText(Path.Combine(RepositoryRoot, "src", "BackupXe.Worker", "appsettings.json")))!;

        Assert.Equal("appsettings.schema.json", (string?)settings["$schema"]);
    }

    [Fact]
    public void The_bundled_and_documented_configurations_satisfy_the_schema()
    {
        var schema = JsonSchema.FromText(File.ReadAllText(SchemaPath));
        var examples = new List<(string Where, string Json)>
        {
            ("src/BackupXe.Worker/appsettings.json", File.ReadAllText(Path.Combine(RepositoryRoot, "src", "BackupXe.Worker", "appsettings.json"))),
            ("deploy/demo/appsettings.json", File.ReadAllText(Path.Combine(RepositoryRoot, "deploy", "demo", "appsettings.json"))),
        };
        foreach (var page in new[] { "configuration.md", "deploy.md" })
        {
            examples.AddRange(JsonBlock().Matches(File.ReadAllText(Path.Combine(RepositoryRoot, "docs", page)))
                .Select(match => match.Groups[1].Value)
                .Where(json => json.Contains("\"BackupXe\"", StringComparison.Ordinal))
                .Select((json, index) => ($"docs/{page} example {index + 1}", json)));
        }

        Assert.True(examples.Count >= 3);
        Assert.All(examples, example =>
        {
            using var document = JsonDocument.Parse(example.Json);
            var result = schema.Evaluate(document.RootElement, new EvaluationOptions { OutputFormat = OutputFormat.List });
            Assert.True(result.IsValid, $"{example.Where}: {JsonSerializer.Serialize(result)}");
        });
    }

    [Fact]
    public void The_schema_refuses_a_misspelt_key_and_a_value_out_of_range()
    {
        var schema = JsonSchema.FromText(File.ReadAllText(SchemaPath));

        Assert.False(IsValid(schema, """{ "BackupXe": { "Instances": [ { "Name": "a", "ReplayPth": "a.xml" } ] } }"""));
        Assert.False(IsValid(schema, """{ "BackupXe": { "Instances": [ { "Name": "a" } ], "RetryDelaySeconds": 0 } }"""));
        Assert.True(IsValid(schema, """{ "BackupXe": { "Instances": [ { "Name": "a", "ReplayPath": "a.xml" } ] } }"""));
    }

    private static bool IsValid(JsonSchema schema, string json)
    {
        using var document = JsonDocument.Parse(json);
        return schema.Evaluate(document.RootElement).IsValid;
    }

    private static void Compare(Type type, object defaults, JsonNode schema, string path, List<string> problems)
    {
        var properties = schema["properties"]!.AsObject();
        var settable = type.GetProperties(BindingFlags.Public | BindingFlags.Instance).Where(p => p.SetMethod?.IsPublic == true).ToList();
        foreach (var missing in settable.Select(p => p.Name).Except(properties.Select(p => p.Key)))
        {
            problems.Add($"{path}:{missing} is a setting the schema lacks");
        }

        foreach (var extra in properties.Select(p => p.Key).Except(settable.Select(p => p.Name)))
        {
            problems.Add($"{path}:{extra} is in the schema but not a setting");
        }

        if ((bool?)schema["additionalProperties"] != false)
        {
            problems.Add($"{path} must refuse unknown keys (additionalProperties: false), as the worker does");
        }

        foreach (var property in settable.Where(p => properties.ContainsKey(p.Name)))
        {
            var node = properties[property.Name]!;
            var key = $"{path}:{property.Name}";
            var expected = JsonType(property.PropertyType);
            if ((string?)node["type"] != expected)
            {
                problems.Add($"{key} is {(string?)node["type"]} in the schema, {expected} in the code");
                continue;
            }

            var value = property.GetValue(defaults);
            if (expected == "object")
            {
                Compare(property.PropertyType, value!, node, key, problems);
            }
            else if (expected == "array")
            {
                var itemType = property.PropertyType.GetGenericArguments()[0];
                if (itemType == typeof(string))
                {
                    // A list of names: its items are strings, with nothing inside to compare.
                    if ((string?)node["items"]?["type"] != "string")
                    {
                        problems.Add($"{key}:N is {(string?)node["items"]?["type"]} in the schema, string in the code");
                    }
                }
                else
                {
                    Compare(itemType, Activator.CreateInstance(itemType)!, node["items"]!, $"{key}:N", problems);
                }
            }
            else if (value is not null && !Equals(node["default"]?.ToJsonString(), JsonSerializer.Serialize(value)))
            {
                problems.Add($"{key}: default {node["default"]?.ToJsonString() ?? "none"} in the schema, {JsonSerializer.Serialize(value)} in the code");
            }
        }
    }

    private static string JsonType(Type type) => type switch
    {
        _ when type == typeof(string) => "string",
        _ when type == typeof(bool) => "boolean",
        _ when type == typeof(int) || type == typeof(long) => "integer",
        _ when type == typeof(double) => "number",
        _ when typeof(IEnumerable).IsAssignableFrom(type) => "array",
        _ => "object",
    };

    [GeneratedRegex(@"```json\n(.*?)\n```", RegexOptions.Singleline)]
    private static partial Regex JsonBlock();
}
