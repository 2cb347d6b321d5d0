using System.Collections.Immutable;

namespace BackupXe.Core.Parsing;

/// <summary>
/// The device, file or URL an engine error names: "Cannot open backup device 'X'" (3201), "on backup device 'X'" (18204,
/// 18210), "Read on \"X\" failed" (3203), "Write on \"X\" failed" (3202), "on file \"X:\"" (3271), "on file \"X\"" (5159),
/// "The file name \"X\" is invalid as a backup device name" (3078).
/// </summary>
internal static class MessageTarget
{
    // Each lead is followed by the quote that opens the name.
    private static readonly ImmutableArray<(string Lead, char Quote)> Leads =
    [
        ("backup device '", '\''), ("Read on \"", '"'), ("Write on \"", '"'), ("on file \"", '"'), ("in file '", '\''), ("The file name \"", '"'),
    ];

    /// <summary>The name <paramref name="text"/> gives; null when it gives none.</summary>
    public static string? In(string? text)
    {
        if (string.IsNullOrEmpty(text))
        {
            return null;
        }

        // As written first; then as a page rendered it (wrapped, spaces doubled, quotes set typographic), which only a
        // text the leads missed pays for.
        if (Find(text) is { } named)
        {
            return named;
        }

        var plain = EngineMessageCatalog.Normalised(text);
        return plain.SequenceEqual(text) ? null : Find(plain.ToString());
    }

    private static string? Find(string text)
    {
        foreach (var (lead, quote) in Leads)
        {
            var at = text.IndexOf(lead, StringComparison.OrdinalIgnoreCase);
            if (at < 0)
            {
                continue;
            }

            var start = at + lead.Length;
            var end = text.IndexOf(quote, start);
            if (end > start)
            {
                // 3271 writes the name with a colon before its closing quote: "on file \"D:\x.bak:\"".
                return text[start..end].TrimEnd(':');
            }
        }

        return null;
    }
}
