using System.Buffers;
using System.Text.Json;
using BackupXe.Core.Parsing;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Rendering;

/// <summary>
/// Long texts of a report that recur from operation to operation (the verdict's evidence, the recommendations and
/// their T-SQL), kept already escaped for one run's JSON writer. Each operation of a 1M-line ERRORLOG carries about
/// 2 KB of such text, most of it the same for every operation and full of characters the contract escapes
/// (apostrophes, '+', new lines); escaping it again for each of 6,712 operations was the JSON writer's largest
/// cost after the progress points (docs/performance.md).
/// </summary>
/// <remarks>
/// Bounded: past <see cref="MaxEntries"/> texts or <see cref="MaxChars"/> characters the cache starts again, so
/// texts that never recur cost one lookup each and memory stays flat. The escaping is
/// <see cref="JsonEncodedText.Encode(string, System.Text.Encodings.Web.JavaScriptEncoder?)"/> with the contract's
/// encoder, the same the writer applies to a plain string (tests hold the two to the same bytes).
/// </remarks>
internal sealed class EscapedJsonCache
{
    /// <summary>Shorter texts are escaped where they are written: for them a lookup costs about what escaping does.</summary>
    public const int MinChars = 64;

    private const int MaxEntries = 1024;

    private const int MaxChars = 1 << 20;

    // A text with a surrogate is escaped where it is written (see Escaped); CharRange says why not ContainsAnyInRange.
    private static readonly SearchValues<char> Surrogates = CharRange.Of('\uD800', '\uDFFF');

    private readonly Dictionary<string, JsonEncodedText> _encoded = new(StringComparer.Ordinal);
    private int _chars;

    /// <summary>
    /// <paramref name="value"/> already escaped, to write in its place; null when the writer should escape it itself:
    /// null, shorter than <see cref="MinChars"/>, or with surrogates (a lone one is not valid UTF-16, and the writer's
    /// own path then does with it whatever it does with any such string; pairs go that way too, being rare here).
    /// </summary>
    public JsonEncodedText? Escaped(string? value)
    {
        if (value is null || value.Length < MinChars)
        {
            return null;
        }

        if (_encoded.TryGetValue(value, out var encoded))
        {
            return encoded;
        }

        if (value.AsSpan().ContainsAny(Surrogates))
        {
            return null;
        }

        if (_encoded.Count == MaxEntries || _chars + value.Length > MaxChars)
        {
            _encoded.Clear();
            _chars = 0;
        }

        encoded = JsonEncodedText.Encode(value, ReportJsonFields.Encoder);
        _encoded.Add(value, encoded);
        _chars += value.Length;
        return encoded;
    }
}
