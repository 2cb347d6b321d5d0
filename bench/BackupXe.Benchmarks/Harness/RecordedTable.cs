namespace BackupXe.Benchmarks.Harness;

/// <summary>
/// A speed guard's table in docs/performance.md: the lines between its begin and end markers, read by the check and
/// rewritten whole by <c>--update</c>.
/// </summary>
internal sealed record RecordedTable(string Begin, string End)
{
    /// <summary>The text between the markers; null when the document has no such section.</summary>
    public string? Body(string text) => Bounds(text) is { } at ? text[at.Start..at.End] : null;

    /// <summary>The document with the section's lines replaced by <paramref name="lines"/>; null when it has no such section.</summary>
    public string? Replace(string text, IEnumerable<string> lines)
        => Bounds(text) is { } at ? text[..at.Start] + string.Join('\n', [Begin, .. lines, End]) + text[(at.End + End.Length)..] : null;

    private (int Start, int End)? Bounds(string text)
    {
        var start = text.IndexOf(Begin, StringComparison.Ordinal);
        var end = text.IndexOf(End, StringComparison.Ordinal);
        return start >= 0 && end > start ? (start, end) : null;
    }
}
