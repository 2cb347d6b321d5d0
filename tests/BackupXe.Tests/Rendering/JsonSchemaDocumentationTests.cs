using System.Text.Json;
using System.Text.RegularExpressions;
using BackupXe.Core.Rendering;
using BackupXe.Core.Reporting;
using BackupXe.Tests.Rendering.Support;
using BackupXe.Tests.Support;
using Xunit;

namespace BackupXe.Tests.Rendering;

/// <summary>
/// docs/json-schema.md against the contract the serializer defines: every field a report writes is documented, and
/// every field the page lists in its tables and inline objects is one a report writes.
/// </summary>
public sealed partial class JsonSchemaDocumentationTests
{
    // The document's own keys, written around the report records by the streaming writer.
    private static readonly string[] DocumentKeys = ["schemaVersion", "operations", "runsCompared", "findings", "inputs", "summary"];

    [Fact]
    public void Every_field_of_the_report_is_documented()
    {
        // Given the report's section of the page and every property name a fully set report writes
        var documented = BacktickedNames(ReportSection());
        var written = WrittenNames();

        // Then each written name is named on the page
        var undocumented = written.Where(name => !documented.Contains(name)).ToList();
        Assert.True(undocumented.Count == 0, $"docs/json-schema.md does not document {string.Join(", ", undocumented)}");
    }

    [Fact]
    public void Every_field_the_page_lists_is_written_by_the_report()
    {
        // Given the names in the first column of the page's tables and in its inline objects ({a, b})
        var section = ReportSection();
        var listed = new SortedSet<string>(StringComparer.Ordinal);
        foreach (Match row in TableFirstColumn().Matches(section))
        {
            listed.UnionWith(BacktickedNames(row.Groups[1].Value));
        }

        foreach (Match inline in InlineObject().Matches(section))
        {
            listed.UnionWith(inline.Groups[1].Value.Split(',', StringSplitOptions.TrimEntries));
        }

        // Then each is a property some report writes
        var written = WrittenNames().Concat(DocumentKeys).ToHashSet(StringComparer.Ordinal);
        var stale = listed.Where(name => !written.Contains(name)).ToList();
        Assert.True(stale.Count == 0, $"docs/json-schema.md lists {string.Join(", ", stale)}, which no report writes");
    }

    /// <summary>From the top level to "Other verbs": the part of the page about schema version 1's report.</summary>
    private static string ReportSection()
    {
        var page = File.ReadAllText(Path.Combine(Repository.Root, "docs", "json-schema.md"));
        var start = page.IndexOf("## Top level", StringComparison.Ordinal);
        var end = page.IndexOf("## Other verbs", StringComparison.Ordinal);
        Assert.True(start >= 0 && end > start, "docs/json-schema.md has lost its 'Top level' or 'Other verbs' heading");
        return page[start..end];
    }

    private static SortedSet<string> WrittenNames()
    {
        var names = new SortedSet<string>(StringComparer.Ordinal);
        Collect(SerializerOracle.Serialize(FullyPopulated.Of<OperationReport>(), indented: false));
        Collect(SerializerOracle.Serialize(FullyPopulated.Of<IReadOnlyList<InputReport>>(), indented: false));
        Collect(SerializerOracle.Serialize(FullyPopulated.Of<SummaryReport>(), indented: false));
        Collect(SerializerOracle.Serialize(FullyPopulated.Of<IReadOnlyList<RunsComparedReport>>(), indented: false));
        Collect(SerializerOracle.Serialize(FullyPopulated.Of<IReadOnlyList<InputFindingReport>>(), indented: false));
        return names;

        void Collect(string json) => JsonPropertyNames.AddTo(names, json);
    }

    private static HashSet<string> BacktickedNames(string text)
    {
        var names = new HashSet<string>(StringComparer.Ordinal);
        foreach (Match match in Backticked().Matches(text))
        {
            names.Add(match.Groups[1].Value);
        }

        foreach (Match inline in InlineObject().Matches(text))
        {
            names.UnionWith(inline.Groups[1].Value.Split(',', StringSplitOptions.TrimEntries));
        }

        return names;
    }

    [GeneratedRegex(@"`([A-Za-z][A-Za-z0-9]*)`")]
    private static partial Regex Backticked();

    [GeneratedRegex(@"^\| ([^|]+) \|", RegexOptions.Multiline)]
    private static partial Regex TableFirstColumn();

    [GeneratedRegex(@"\{([A-Za-z][A-Za-z0-9]*(?:,\s+[A-Za-z][A-Za-z0-9]*)*)\}")]
    private static partial Regex InlineObject();
}
