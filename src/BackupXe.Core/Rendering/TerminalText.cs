using System.Buffers;
using System.Globalization;
using System.Text;

namespace BackupXe.Core.Rendering;

/// <summary>
/// Text from an input made safe for a terminal or a log line: a database name or a message holding ESC, BEL, BS,
/// CR or a C1 control (U+0080-U+009F, which some terminals obey as ESC sequences) could clear the screen, move the
/// cursor or forge a line, and an invisible format character (a bidi embedding, override or isolate such as U+202E,
/// a zero-width one, a line or paragraph separator) reorders or hides what the reader sees. Each C0 control is shown
/// by its Unicode control picture (␛, ␇, ␈, ␍, ␊), C1 and DEL as <c>\x9B</c>, a format or separator character as
/// <c>\u202E</c> (<c>\U000E0041</c> beyond the BMP), a lone surrogate as <c>\uD800</c>: the text stays readable
/// and the damage visible. JSON and HTML escape on their own.
/// </summary>
public static class TerminalText
{
    private static readonly SearchValues<char> AnyControl = SearchValues.Create(Controls(keepLineBreaks: false));
    private static readonly SearchValues<char> ControlInLine = SearchValues.Create(Controls(keepLineBreaks: true));

    /// <summary>For one line (a name, a log property): every control character is shown, line breaks and tabs included.</summary>
    public static string Line(string? text) => Neutralise(text, AnyControl);

    /// <summary>For a block of lines (evidence, T-SQL, a report): line feeds and tabs are kept, every other control shown.</summary>
    public static string Block(string? text) => Neutralise(text, ControlInLine);

    // Format and separator characters alone, with the high surrogates of the planes that hold format characters
    // (U+110BD, U+13430, U+1BCA0, U+1D173, the tags at U+E0000): what an encoder that escapes controls leaves raw.
    private static readonly SearchValues<char> Invisible = SearchValues.Create(
        Controls(keepLineBreaks: true).Where(c => c > 0x9F && !char.IsSurrogate(c)).Concat(['\uD804', '\uD80D', '\uD82F', '\uD834', '\uDB40']).ToArray());

    /// <summary>
    /// True when <paramref name="text"/> may hold an invisible format or separator character (a bidi override, a
    /// zero-width space, a tag): for writers whose own escaping already takes care of control characters (JSON).
    /// </summary>
    public static bool HasInvisible(ReadOnlySpan<char> text) => text.IndexOfAny(Invisible) >= 0;

    private static string Neutralise(string? text, SearchValues<char> controls)
    {
        if (string.IsNullOrEmpty(text) || text.AsSpan().IndexOfAny(controls) < 0)
        {
            return text ?? string.Empty;
        }

        var safe = new StringBuilder(text.Length + 8);
        for (var i = 0; i < text.Length; i++)
        {
            var c = text[i];
            if (char.IsHighSurrogate(c) && i + 1 < text.Length && char.IsLowSurrogate(text[i + 1]))
            {
                // A pair is one character: only a format character beyond the BMP (the tag characters) is shown.
                var rune = new Rune(c, text[i + 1]);
                if (Rune.GetUnicodeCategory(rune) == UnicodeCategory.Format)
                {
                    safe.Append("\\U").Append(rune.Value.ToString("X8", CultureInfo.InvariantCulture));
                }
                else
                {
                    safe.Append(c).Append(text[i + 1]);
                }

                i++;
            }
            else if (!controls.Contains(c))
            {
                safe.Append(c);
            }
            else if (c < 0x20)
            {
                safe.Append((char)(0x2400 + c));
            }
            else if (c <= 0x9F)
            {
                safe.Append("\\x").Append(((int)c).ToString("X2", CultureInfo.InvariantCulture));
            }
            else
            {
                safe.Append("\\u").Append(((int)c).ToString("X4", CultureInfo.InvariantCulture));
            }
        }

        return safe.ToString();
    }

    /// <summary>
    /// C0, DEL and C1; every BMP character of category Cf (format), Zl and Zp; and the surrogates, so that a text
    /// holding one takes the careful path, where a pair is judged whole and a lone one shown.
    /// </summary>
    private static string Controls(bool keepLineBreaks)
    {
        var controls = new StringBuilder();
        for (var code = 0; code <= 0xFFFF; code++)
        {
            var c = (char)code;
            var control = code < 0x20 || code is >= 0x7F and <= 0x9F;
            var invisible = code > 0x9F && (char.IsSurrogate(c) || char.GetUnicodeCategory(c)
                is UnicodeCategory.Format or UnicodeCategory.LineSeparator or UnicodeCategory.ParagraphSeparator);
            if ((control && !(keepLineBreaks && c is '\n' or '\t')) || invisible)
            {
                controls.Append(c);
            }
        }

        return controls.ToString();
    }
}
