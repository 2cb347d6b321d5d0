using System.Buffers;
using System.Text;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Rendering;

/// <summary>
/// Text from an input made safe for a terminal or a log line: a database name or a message holding ESC, BEL, BS,
/// CR or a C1 control (U+0080-U+009F, which some terminals obey as ESC sequences) could clear the screen, move the
/// cursor or forge a line. Each such character is shown by its Unicode control picture (␛, ␇, ␈, ␍, ␊) or, for C1
/// and DEL, as <c>\x9B</c>, so the text stays readable and the damage visible. JSON and HTML escape on their own.
/// </summary>
public static class TerminalText
{
    private static readonly SearchValues<char> AnyControl = SearchValues.Create(Controls(keepLineBreaks: false));
    private static readonly SearchValues<char> ControlInLine = SearchValues.Create(Controls(keepLineBreaks: true));

    /// <summary>For one line (a name, a log property): every control character is shown, line breaks and tabs included.</summary>
    public static string Line(string? text) => Neutralise(text, AnyControl);

    /// <summary>For a block of lines (evidence, T-SQL, a report): line feeds and tabs are kept, every other control shown.</summary>
    public static string Block(string? text) => Neutralise(text, ControlInLine);

    private static string Neutralise(string? text, SearchValues<char> controls)
    {
        if (string.IsNullOrEmpty(text) || text.AsSpan().IndexOfAny(controls) < 0)
        {
            return text ?? string.Empty;
        }

        var safe = new StringBuilder(text.Length + 8);
        foreach (var c in text)
        {
            if (!controls.Contains(c))
            {
                safe.Append(c);
            }
            else if (c < 0x20)
            {
                safe.Append((char)(0x2400 + c));
            }
            else
            {
                safe.Append("\\x").Append(((int)c).ToString("X2", System.Globalization.CultureInfo.InvariantCulture));
            }
        }

        return safe.ToString();
    }

    private static string Controls(bool keepLineBreaks)
    {
        var controls = new StringBuilder();
        for (var c = '\0'; c <= '\u009F'; c++)
        {
            if ((c < 0x20 || c >= 0x7F) && !(keepLineBreaks && c is '\n' or '\t'))
            {
                controls.Append(c);
            }
        }

        return controls.ToString();
    }
}
