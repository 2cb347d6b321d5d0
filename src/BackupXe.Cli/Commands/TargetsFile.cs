using System.Text.Json;
using BackupXe.Core.Fleet;

namespace BackupXe.Cli.Commands;

/// <summary>The RPO and RTO targets of a daemon's settings file, for <c>backupxe fleet --settings</c>.</summary>
internal static class TargetsFile
{
    /// <summary>
    /// BackupXe:Targets of a daemon's settings file, checked as the daemon checks them (the same lines); null and the
    /// problems when it cannot be read or is wrong. A file without the section gives the standard targets.
    /// </summary>
    internal static (RecoveryTargets? Targets, IReadOnlyList<string> Problems) Read(string path)
    {
        JsonDocument document;
        try
        {
            document = JsonDocument.Parse(File.ReadAllText(path), new JsonDocumentOptions { CommentHandling = JsonCommentHandling.Skip, AllowTrailingCommas = true });
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException or JsonException)
        {
            return (null, [$"cannot be read: {exception.Message}"]);
        }

        using (document)
        {
            if (!Find(document.RootElement, "BackupXe", out var section) || !Find(section, "Targets", out var targets))
            {
                return (RecoveryTargets.Standard, []);
            }

            const string Key = "BackupXe:Targets";
            var problems = new List<string>();
            var rpo = Number(targets, "RpoMinutes", Key, problems) ?? RecoveryTargets.StandardRpo.TotalMinutes;
            var rto = Number(targets, "RtoMinutes", Key, problems) ?? 0;
            var rules = new List<(string?, string?, string?, double, double)>();
            if (Find(targets, "Rules", out var list))
            {
                if (list.ValueKind != JsonValueKind.Array)
                {
                    problems.Add($"{Key}:Rules must be an array.");
                }
                else
                {
                    var index = 0;
                    foreach (var rule in list.EnumerateArray())
                    {
                        var at = $"{Key}:Rules:{index++}";
                        rules.Add((Text(rule, "Instance", at, problems), Text(rule, "Database", at, problems), Text(rule, "RecoveryModel", at, problems),
                            Number(rule, "RpoMinutes", at, problems) ?? 0, Number(rule, "RtoMinutes", at, problems) ?? 0));
                    }
                }
            }

            problems.AddRange(RecoveryTargets.Problems(Key, rpo, rto, rules));
            return problems.Count > 0 ? (null, problems) : (RecoveryTargets.FromMinutes(rpo, rto, rules), []);
        }
    }

    // Configuration keys are case-insensitive, as the daemon's binder reads them.
    private static bool Find(JsonElement element, string name, out JsonElement value)
    {
        if (element.ValueKind == JsonValueKind.Object)
        {
            foreach (var property in element.EnumerateObject())
            {
                if (string.Equals(property.Name, name, StringComparison.OrdinalIgnoreCase))
                {
                    value = property.Value;
                    return true;
                }
            }
        }

        value = default;
        return false;
    }

    private static double? Number(JsonElement element, string name, string at, List<string> problems)
    {
        if (!Find(element, name, out var value) || value.ValueKind == JsonValueKind.Null)
        {
            return null;
        }

        if (value.ValueKind == JsonValueKind.Number && value.TryGetDouble(out var number))
        {
            return number;
        }

        problems.Add($"{at}:{name} must be a number of minutes.");
        return null;
    }

    private static string? Text(JsonElement element, string name, string at, List<string> problems)
    {
        if (!Find(element, name, out var value) || value.ValueKind == JsonValueKind.Null)
        {
            return null;
        }

        if (value.ValueKind == JsonValueKind.String)
        {
            return value.GetString();
        }

        problems.Add($"{at}:{name} must be a string.");
        return null;
    }
}
