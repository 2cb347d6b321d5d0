using System.Text;

namespace BackupXe.Core.Parsing;

internal enum SqlTokenKind
{
    Word,
    String,
    Number,
    Variable,
    Symbol,
}

/// <summary>One token of T-SQL: a word (keyword or name, brackets removed), a string literal (quotes removed, '' undone), a number, an @variable or one symbol.</summary>
internal readonly record struct SqlToken(SqlTokenKind Kind, string Text)
{
    public bool Is(string word) => Kind == SqlTokenKind.Word && Text.Equals(word, StringComparison.OrdinalIgnoreCase);

    public bool IsSymbol(char symbol) => Kind == SqlTokenKind.Symbol && Text.Length == 1 && Text[0] == symbol;
}

/// <summary>
/// Splits T-SQL into tokens, skipping -- and (nested) /* */ comments. Linear in the text; an unterminated
/// string or comment ends the token list where it starts, so a cut-off command yields what came before it.
/// </summary>
internal static class SqlTokenizer
{
    public static List<SqlToken> Tokenize(string sql) => Tokenize(sql, out _);

    /// <param name="cut">True when the text ends inside a string literal or a quoted name (its closing quote is missing).</param>
    public static List<SqlToken> Tokenize(string sql, out bool cut)
    {
        cut = false;
        var tokens = new List<SqlToken>();
        var i = 0;
        while (i < sql.Length)
        {
            var c = sql[i];
            if (char.IsWhiteSpace(c))
            {
                i++;
            }
            else if (c == '-' && At(sql, i + 1) == '-')
            {
                while (i < sql.Length && sql[i] != '\n')
                {
                    i++;
                }
            }
            else if (c == '/' && At(sql, i + 1) == '*')
            {
                // T-SQL block comments nest.
                var depth = 0;
                do
                {
                    if (sql[i] == '/' && At(sql, i + 1) == '*')
                    {
                        depth++;
                        i += 2;
                    }
                    else if (sql[i] == '*' && At(sql, i + 1) == '/')
                    {
                        depth--;
                        i += 2;
                    }
                    else
                    {
                        i++;
                    }
                }
                while (depth > 0 && i < sql.Length);
            }
            else if (c == '\'' || ((c == 'N' || c == 'n') && At(sql, i + 1) == '\''))
            {
                var start = c == '\'' ? i : i + 1;
                if (ReadQuoted(sql, start, '\'', out var text, out var next))
                {
                    tokens.Add(new SqlToken(SqlTokenKind.String, text));
                    i = next;
                }
                else
                {
                    cut = true;
                    return tokens;
                }
            }
            else if (c == '[' || c == '"')
            {
                if (ReadQuoted(sql, i, c == '[' ? ']' : '"', out var text, out var next))
                {
                    tokens.Add(new SqlToken(SqlTokenKind.Word, text));
                    i = next;
                }
                else
                {
                    cut = true;
                    return tokens;
                }
            }
            else if (c == '@')
            {
                var end = i + 1;
                while (end < sql.Length && IsNamePart(sql[end]))
                {
                    end++;
                }

                tokens.Add(new SqlToken(SqlTokenKind.Variable, sql[i..end]));
                i = end;
            }
            else if (char.IsAsciiDigit(c))
            {
                var end = NumberEnd(sql, i);
                tokens.Add(new SqlToken(SqlTokenKind.Number, sql[i..end]));
                i = end;
            }
            else if (IsNamePart(c))
            {
                var end = i;
                while (end < sql.Length && IsNamePart(sql[end]))
                {
                    end++;
                }

                tokens.Add(new SqlToken(SqlTokenKind.Word, sql[i..end]));
                i = end;
            }
            else
            {
                tokens.Add(new SqlToken(SqlTokenKind.Symbol, c.ToString()));
                i++;
            }
        }

        return tokens;
    }

    /// <summary>
    /// Where the numeric constant at <paramref name="start"/> ends, as SQL Server reads constants: 0x and hexadecimal
    /// digits (binary), digits with one decimal point (integer, decimal), then E, a sign and digits (float), so that
    /// 1e30 is one float and never the integer 1 followed by a word.
    /// </summary>
    private static int NumberEnd(string sql, int start)
    {
        var end = start;
        if (sql[start] == '0' && At(sql, start + 1) is 'x' or 'X')
        {
            end += 2;
            while (end < sql.Length && char.IsAsciiHexDigit(sql[end]))
            {
                end++;
            }

            return end;
        }

        var point = false;
        while (end < sql.Length && (char.IsAsciiDigit(sql[end]) || (sql[end] == '.' && !point)))
        {
            point |= sql[end] == '.';
            end++;
        }

        if (At(sql, end) is 'e' or 'E')
        {
            var exponent = end + 1;
            if (At(sql, exponent) is '+' or '-')
            {
                exponent++;
            }

            if (char.IsAsciiDigit(At(sql, exponent)))
            {
                end = exponent;
                while (end < sql.Length && char.IsAsciiDigit(sql[end]))
                {
                    end++;
                }
            }
        }

        return end;
    }

    private static char At(string sql, int index) => index < sql.Length ? sql[index] : '\0';

    private static bool IsNamePart(char c) => char.IsLetterOrDigit(c) || c is '_' or '#' or '$' or '@';

    /// <summary>Reads a quoted run starting at the opening quote; a doubled closing quote stands for one.</summary>
    private static bool ReadQuoted(string sql, int open, char close, out string text, out int next)
    {
        var builder = new StringBuilder();
        var i = open + 1;
        while (i < sql.Length)
        {
            if (sql[i] == close)
            {
                if (At(sql, i + 1) == close)
                {
                    builder.Append(close);
                    i += 2;
                    continue;
                }

                text = builder.ToString();
                next = i + 1;
                return true;
            }

            builder.Append(sql[i]);
            i++;
        }

        text = string.Empty;
        next = sql.Length;
        return false;
    }
}
