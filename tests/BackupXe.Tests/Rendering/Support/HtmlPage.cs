using System.Text.Json;
using System.Text.RegularExpressions;
using System.Xml.Linq;

namespace BackupXe.Tests.Rendering.Support;

/// <summary>
/// A generated report read back: its markup as XML (the writer emits well-formed markup outside its script and
/// style elements), its JSON data blocks, and its executable scripts.
/// </summary>
internal sealed partial class HtmlPage
{
    private HtmlPage(string html, XDocument markup, IReadOnlyDictionary<string, JsonDocument> data, IReadOnlyList<string> scripts)
    {
        Html = html;
        Markup = markup;
        Data = data;
        Scripts = scripts;
    }

    public string Html { get; }

    public XDocument Markup { get; }

    /// <summary>The application/json blocks by id.</summary>
    public IReadOnlyDictionary<string, JsonDocument> Data { get; }

    /// <summary>The text of every script element without a type: what the browser would run.</summary>
    public IReadOnlyList<string> Scripts { get; }

    public static HtmlPage Parse(string html)
    {
        var data = DataBlock().Matches(html).ToDictionary(m => m.Groups["id"].Value, m => JsonDocument.Parse(m.Groups["json"].Value));
        var scripts = Script().Matches(html).Select(m => m.Groups["code"].Value).ToList();
        var markup = DataBlock().Replace(html, string.Empty);
        markup = Script().Replace(markup, string.Empty);
        markup = Style().Replace(markup, string.Empty);
        markup = markup.Replace("<!DOCTYPE html>", string.Empty, StringComparison.Ordinal);
        return new HtmlPage(html, XDocument.Parse(markup), data, scripts);
    }

    public IEnumerable<XElement> All(string name) => Markup.Descendants(name);

    public IEnumerable<XElement> WithAttribute(string attribute, string value)
        => Markup.Descendants().Where(e => (string?)e.Attribute(attribute) == value);

    public XElement Section(string id) => Markup.Descendants("section").Single(e => (string?)e.Attribute("id") == id);

    /// <summary>The raw values of a table's column, by its cells' data-field.</summary>
    public static IReadOnlyList<string> Column(XElement table, string field)
        => table.Descendants("td").Where(td => (string?)td.Attribute("data-field") == field).Select(td => (string)td.Attribute("data-value")!).ToList();

    public static XElement Table(XElement scope, string name)
        => scope.Descendants("table").Single(t => (string?)t.Attribute("data-table") == name);

    [GeneratedRegex("<script type=\"application/json\" id=\"(?<id>[^\"]+)\">(?<json>.*?)</script>", RegexOptions.Singleline)]
    private static partial Regex DataBlock();

    [GeneratedRegex("<script>(?<code>.*?)</script>", RegexOptions.Singleline)]
    private static partial Regex Script();

    [GeneratedRegex("<style>.*?</style>", RegexOptions.Singleline)]
    private static partial Regex Style();
}
