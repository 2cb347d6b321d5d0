using BackupXe.Core.Reporting;

namespace BackupXe.Core.Rendering.Html;

/// <summary>
/// A section of text and tables for a page that is not an operation's (the restore estimate, the restore chain):
/// the caller gives plain text, <see cref="HtmlReportWriter.WriteTextSection"/> escapes every piece of it.
/// </summary>
/// <param name="Id">The section's element id, from the caller's own vocabulary (never input text).</param>
public sealed record HtmlTextSection(string Id, string Title, IReadOnlyList<string> Lines, IReadOnlyList<HtmlTextBlock> Blocks);

/// <summary>One item of a section (a database): its heading, its lines, and a table when it has one.</summary>
public sealed record HtmlTextBlock(string Heading, IReadOnlyList<string> Lines, HtmlTable? Table, IReadOnlyList<string> Notes)
{
    /// <summary>The table's figures drawn as bars, after it; null for none.</summary>
    public HtmlBarChart? Chart { get; init; }
}

/// <summary>
/// Horizontal bars drawn as inline SVG (no script, so the page's policy needs nothing more): one per item, its length its
/// value's share of the largest. <paramref name="Label"/> says what the bars measure, for a screen reader.
/// </summary>
public sealed record HtmlBarChart(string Label, IReadOnlyList<HtmlBar> Bars);

/// <summary>One bar: its label, its value (0 or more) and the text shown after it.</summary>
public sealed record HtmlBar(string Label, double Value, string Text);

/// <summary>A table; <paramref name="Field"/> names what it holds (data-table), each column's name is its header text.</summary>
public sealed record HtmlTable(string Field, IReadOnlyList<HtmlColumn> Columns, IReadOnlyList<IReadOnlyList<HtmlCell>> Rows);

/// <summary>A column: its header, and its field (data-field of its cells) when it is numeric.</summary>
public sealed record HtmlColumn(string Header, string? NumericField = null);

/// <summary>A cell's text for people and, in a numeric column, its raw value for tools (data-value; empty when null).</summary>
public sealed record HtmlCell(string Text, double? Value = null);
