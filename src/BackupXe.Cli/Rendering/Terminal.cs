using System.Globalization;
using System.Text;
using Spectre.Console;

namespace BackupXe.Cli.Rendering;

/// <summary>
/// How text for a person is laid out, in every verb alike: as wide as the terminal, colour only on a terminal that
/// was not told otherwise, and no line ending in padding.
/// </summary>
internal static class Terminal
{
    /// <summary>The width when the output is not a terminal and <c>COLUMNS</c> does not say.</summary>
    public const int DefaultWidth = 120;

    private const int MinimumWidth = 40;
    private const int MaximumWidth = 400;

    /// <summary>
    /// <c>COLUMNS</c> when set (what shells export, and how a script asks for a width), else the terminal's width, else
    /// <see cref="DefaultWidth"/> for a file or a pipe.
    /// </summary>
    public static int Width(CliConsole console, bool toFile)
    {
        if (int.TryParse(console.Columns, NumberStyles.None, CultureInfo.InvariantCulture, out var columns))
        {
            return Math.Clamp(columns, MinimumWidth, MaximumWidth);
        }

        if (!toFile && !console.IsOutputRedirected)
        {
            try
            {
                return Math.Clamp(console.WindowWidth(), MinimumWidth, MaximumWidth);
            }
            catch (IOException)
            {
                // No console attached after all.
            }
        }

        return DefaultWidth;
    }

    /// <summary>Colour on a terminal only, and never with <c>--no-color</c> or a non-empty <c>NO_COLOR</c> (no-color.org).</summary>
    public static bool UsesColor(CliConsole console, bool noColorOption, bool toFile) =>
        !noColorOption && !toFile && !console.IsOutputRedirected
        && string.IsNullOrEmpty(Environment.GetEnvironmentVariable("NO_COLOR"));

    /// <summary>A Spectre.Console surface over <paramref name="output"/> that never writes a line's trailing padding.</summary>
    public static IAnsiConsole On(TextWriter output, bool color, int width)
    {
        var console = AnsiConsole.Create(new AnsiConsoleSettings
        {
            // Without colour Spectre still styles, and its legacy (non-ANSI) mode does so through System.Console, which on a
            // terminal writes reset codes past this writer: so it writes ANSI into the writer, and the writer drops the styles.
            Out = new AnsiConsoleOutput(new TrailingSpaceTrimmer(output, stripStyles: !color)),
            Ansi = color ? AnsiSupport.Detect : AnsiSupport.Yes,
            ColorSystem = color ? ColorSystemSupport.Detect : ColorSystemSupport.NoColors,
            Interactive = InteractionSupport.No,
        });
        console.Profile.Width = width;
        return console;
    }
}

/// <summary>
/// Passes text on line by line without the spaces that end a line (table and panel padding), also when colour codes
/// follow them; with <paramref name="stripStyles"/>, without the styles (SGR codes) either. Does not own the writer it wraps.
/// </summary>
internal sealed class TrailingSpaceTrimmer(TextWriter inner, bool stripStyles = false) : TextWriter
{
    private readonly StringBuilder _line = new();

    public override Encoding Encoding => inner.Encoding;

    public override IFormatProvider FormatProvider => inner.FormatProvider;

    public override void Write(char value)
    {
        if (value == '\n')
        {
            WriteLineOut();
            return;
        }

        _line.Append(value);
    }

    public override void Write(string? value)
    {
        if (value is null)
        {
            return;
        }

        var rest = value.AsSpan();
        int newline;
        while ((newline = rest.IndexOf('\n')) >= 0)
        {
            _line.Append(rest[..newline]);
            WriteLineOut();
            rest = rest[(newline + 1)..];
        }

        _line.Append(rest);
    }

    public override void Write(char[] buffer, int index, int count) => Write(new string(buffer, index, count));

    public override void Flush()
    {
        // What is written so far goes out, except spaces that may yet end the line.
        StripStyles();
        var keep = ContentEnd();
        inner.Write(_line.ToString(0, keep));
        _line.Remove(0, keep);
        inner.Flush();
    }

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            Flush();
        }

        base.Dispose(disposing);
    }

    private void WriteLineOut()
    {
        StripStyles();
        var end = _line.Length;
        var carriageReturn = end > 0 && _line[end - 1] == '\r';
        if (carriageReturn)
        {
            end--;
        }

        // Spaces among trailing colour codes are padding as well: drop them, keep the codes in their order.
        var codes = new List<string>();
        var content = end;
        while (true)
        {
            while (content > 0 && _line[content - 1] == ' ')
            {
                content--;
            }

            if (EscapeStart(content) is not { } start)
            {
                break;
            }

            codes.Add(_line.ToString(start, content - start));
            content = start;
        }

        inner.Write(_line.ToString(0, content));
        for (var i = codes.Count - 1; i >= 0; i--)
        {
            inner.Write(codes[i]);
        }

        inner.Write(carriageReturn ? "\r\n" : "\n");
        _line.Clear();
    }

    /// <summary>Removes every complete SGR sequence (ESC [ digits and semicolons m) from the line, when styles are not wanted.</summary>
    private void StripStyles()
    {
        if (!stripStyles)
        {
            return;
        }

        var kept = 0;
        for (var i = 0; i < _line.Length; i++)
        {
            if (_line[i] == '\u001b' && i + 1 < _line.Length && _line[i + 1] == '[')
            {
                var j = i + 2;
                while (j < _line.Length && _line[j] is >= '0' and <= '9' or ';')
                {
                    j++;
                }

                if (j < _line.Length && _line[j] == 'm')
                {
                    i = j;
                    continue;
                }
            }

            _line[kept++] = _line[i];
        }

        _line.Length = kept;
    }

    /// <summary>Where an ANSI SGR sequence (ESC [ ... m) ending at <paramref name="end"/> starts, if one does.</summary>
    private int? EscapeStart(int end)
    {
        if (end < 3 || _line[end - 1] != 'm')
        {
            return null;
        }

        for (var i = end - 2; i >= 1; i--)
        {
            var c = _line[i];
            if (c == '[' && _line[i - 1] == '\u001b')
            {
                return i - 1;
            }

            if (c is not (>= '0' and <= '9' or ';'))
            {
                return null;
            }
        }

        return null;
    }

    private int ContentEnd()
    {
        var end = _line.Length;
        while (end > 0 && _line[end - 1] == ' ')
        {
            end--;
        }

        return end;
    }
}
