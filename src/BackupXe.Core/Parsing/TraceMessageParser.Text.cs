using System.Globalization;

namespace BackupXe.Core.Parsing;

// How the message parser reads text: phrase matching with white space and ASCII case folded, and the cursor over a span.
public sealed partial class TraceMessageParser
{
    /// <summary>
    /// Length of <paramref name="text"/> that <paramref name="phrase"/> covers, or -1. Case-insensitive; a space in
    /// the phrase stands for any run of white space; a phrase ending in a letter or digit must end a word.
    /// </summary>
    private static int MatchPhrase(ReadOnlySpan<char> text, string phrase)
    {
        int t;
        if (text.StartsWith(phrase))
        {
            // The server's own wording, case and single spaces: one comparison of the whole phrase instead of a
            // test per character. Any other case or spacing is read below as before.
            t = phrase.Length;
        }
        else
        {
            t = 0;
            foreach (var p in phrase)
            {
                if (p == ' ')
                {
                    if (t >= text.Length || !char.IsWhiteSpace(text[t]))
                    {
                        return -1;
                    }

                    t = SkipWhiteSpace(text, t);
                    continue;
                }

                if (t >= text.Length || !SameAsciiLetter(text[t], p))
                {
                    return -1;
                }

                t++;
            }
        }

        if (t < text.Length && char.IsLetterOrDigit(phrase[^1]) && char.IsLetterOrDigit(text[t]))
        {
            return -1;
        }

        return t;
    }

    // Phrases are ASCII, so ordinal ignore-case reduces to folding the 0x20 bit of letters.
    private static bool SameAsciiLetter(char c, char phraseChar)
    {
        if (c == phraseChar)
        {
            return true;
        }

        var folded = (uint)(c | 0x20);
        return folded - 'a' <= 'z' - 'a' && folded == (uint)(phraseChar | 0x20);
    }

    // Nothing left but an optional period, or a parenthesised detail such as "(elapsed = 90 ms)".
    private static bool IsEnd(ReadOnlySpan<char> rest)
    {
        rest = rest.Trim();
        if (rest.EndsWith('.'))
        {
            rest = rest[..^1].TrimEnd();
        }

        return rest.IsEmpty || (rest[0] == '(' && rest[^1] == ')');
    }

    private static bool SameLabel(ReadOnlySpan<char> text, string label) => MatchPhrase(text, label) == text.Length;

    private static ReadOnlySpan<char> TrimEnd(ReadOnlySpan<char> text)
    {
        text = text.Trim();
        return text.EndsWith('.') ? text[..^1].TrimEnd() : text;
    }

    private static bool EndsWithWord(ReadOnlySpan<char> text, string word, out ReadOnlySpan<char> head)
    {
        head = default;
        if (!text.EndsWith(word, StringComparison.OrdinalIgnoreCase))
        {
            return false;
        }

        head = text[..^word.Length];
        return head.IsEmpty || char.IsWhiteSpace(head[^1]);
    }

    private static int IndexOfIgnoreCase(ReadOnlySpan<char> text, string value) =>
        text.IndexOf(value, StringComparison.OrdinalIgnoreCase);

    private static int LastIndexOfIgnoreCase(ReadOnlySpan<char> text, string value) =>
        text.LastIndexOf(value, StringComparison.OrdinalIgnoreCase);

    // char.IsWhiteSpace is false for every character from '!' up to U+0084 (the next white space is U+0085).
    private static bool MayBeWhiteSpace(char c) => (uint)(c - '!') >= 0x85 - '!';

    private static int SkipWhiteSpace(ReadOnlySpan<char> text, int i)
    {
        while (i < text.Length && char.IsWhiteSpace(text[i]))
        {
            i++;
        }

        return i;
    }

    /// <summary>The message after any "Backup(db): " prefix, as a window on the original string.</summary>
    private readonly ref struct Body(string source, int start, int length)
    {
        public ReadOnlySpan<char> Span => source.AsSpan(start, length);

        public string ToText() => start == 0 && length == source.Length ? source : source.Substring(start, length);
    }

    /// <summary>Reads words, punctuation and numbers off a span, skipping white space before each.</summary>
    private ref struct Cursor(ReadOnlySpan<char> text)
    {
        private ReadOnlySpan<char> rest = text;

        public readonly ReadOnlySpan<char> Rest => rest;

        public void SkipWhiteSpace()
        {
            // Most calls find a word or a digit, not a space: test for that before TrimStart's loop.
            if (!rest.IsEmpty && !MayBeWhiteSpace(rest[0]))
            {
                return;
            }

            rest = rest.TrimStart();
        }

        public bool Char(char c)
        {
            SkipWhiteSpace();
            if (rest.IsEmpty || rest[0] != c)
            {
                return false;
            }

            rest = rest[1..];
            return true;
        }

        public bool Word(string word)
        {
            SkipWhiteSpace();
            var consumed = MatchPhrase(rest, word);
            if (consumed < 0)
            {
                return false;
            }

            rest = rest[consumed..];
            return true;
        }

        public readonly bool PeekWord(string word) => MatchPhrase(rest, word) >= 0;

        // 'name': a quoted name as the client messages print it (no doubling inside, the server writes it raw).
        public string? Quoted()
        {
            SkipWhiteSpace();
            if (rest.IsEmpty || rest[0] != '\'')
            {
                return null;
            }

            var close = rest[1..].IndexOf('\'');
            if (close < 0)
            {
                return null;
            }

            var name = rest.Slice(1, close).ToString();
            rest = rest[(close + 2)..];
            return name;
        }

        public long? Long()
        {
            SkipWhiteSpace();
            var value = Digits(rest, out var digits);
            if (digits == 0)
            {
                return null;
            }

            rest = rest[digits..];
            return value;
        }

        public double? Double()
        {
            SkipWhiteSpace();
            var length = 0;
            while (length < rest.Length && (char.IsAsciiDigit(rest[length]) || rest[length] == '.'))
            {
                length++;
            }

            if (length == 0
                || !double.TryParse(rest[..length], NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out var value))
            {
                return null;
            }

            rest = rest[length..];
            return value;
        }

        // A number with an optional unit: "2300 MB", "3325MB", "1024 KB", "95303680 bytes"; no unit = as is.
        public long? Size()
        {
            if (Long() is not { } number)
            {
                return null;
            }

            var unit = rest.TrimStart();
            long scale;
            int length;
            if (StartsUnit(unit, "bytes"))
            {
                (scale, length) = (1, 5);
            }
            else if (StartsUnit(unit, "KB"))
            {
                (scale, length) = (1024, 2);
            }
            else if (StartsUnit(unit, "MB"))
            {
                (scale, length) = (1024 * 1024, 2);
            }
            else if (StartsUnit(unit, "GB"))
            {
                (scale, length) = (1024 * 1024 * 1024, 2);
            }
            else
            {
                return number;
            }

            rest = unit[length..];
            return number > long.MaxValue / scale ? long.MaxValue : number * scale;
        }

        private static bool StartsUnit(ReadOnlySpan<char> text, string unit) =>
            text.StartsWith(unit, StringComparison.OrdinalIgnoreCase)
            && (text.Length == unit.Length || !char.IsLetterOrDigit(text[unit.Length]));
    }
}
