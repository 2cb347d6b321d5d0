using System.Text;

namespace BackupXe.Sources.Formats;

/// <summary>
/// The first bytes of one input, read once and shared by every format's recogniser. The same bytes are then
/// replayed in front of the rest of the stream, so standard input and pipes are read only once.
/// </summary>
public sealed class InputPrefix
{
    /// <summary>
    /// How much is looked at: enough for many ERRORLOG lines or XE events, so that a damaged first line or a
    /// stray control byte does not decide the format on its own.
    /// </summary>
    public const int Length = 64 * 1024;

    private TextPrefix? _text;

    public InputPrefix(ReadOnlyMemory<byte> bytes, bool isWholeInput)
    {
        Bytes = bytes;
        IsWholeInput = isWholeInput;
    }

    public ReadOnlyMemory<byte> Bytes { get; }

    /// <summary>True when the input ended within the prefix, so its last line is complete.</summary>
    public bool IsWholeInput { get; }

    /// <summary>The prefix decoded as text (decoded on first use, once per input).</summary>
    public TextPrefix Text => _text ??= TextPrefix.Decode(Bytes.Span, IsWholeInput);

    /// <summary>
    /// How far the prefix grows past a line longer than <see cref="Length"/> near the top (a pasted blob, a path gone
    /// wrong), so that the lines after it decide the format instead of the one line refusing the whole input.
    /// </summary>
    public const int MaxLength = 1024 * 1024;

    // Line breaks (CR or LF bytes, in UTF-8 and UTF-16 alike) that leave a few whole lines to judge.
    private const int BreaksWanted = 16;

    /// <summary>Reads <see cref="Length"/> bytes from <paramref name="stream"/>, and on to <see cref="MaxLength"/> while they hold only a few lines.</summary>
    public static InputPrefix Read(Stream stream)
    {
        var buffer = new byte[Length];
        var read = stream.ReadAtLeast(buffer, buffer.Length, throwOnEndOfStream: false);
        while (read == buffer.Length && buffer.Length < MaxLength && Breaks(buffer) < BreaksWanted)
        {
            Array.Resize(ref buffer, buffer.Length * 2);
            read += stream.ReadAtLeast(buffer.AsSpan(read), buffer.Length - read, throwOnEndOfStream: false);
        }

        return new InputPrefix(buffer.AsMemory(0, read), isWholeInput: read < buffer.Length);
    }

    private static int Breaks(ReadOnlySpan<byte> bytes) => bytes.Count((byte)'\n') + bytes.Count((byte)'\r');
}

/// <summary>A prefix as text: the encoding it was found in and its complete lines.</summary>
/// <param name="Encoding">From the BOM; else UTF-16LE or BE when ASCII text shows a zero in every odd or even byte; else UTF-8.</param>
/// <param name="Content">The decoded text without the BOM, cut after its last complete line unless the input ended.</param>
public sealed record TextPrefix(Encoding Encoding, string Content)
{
    public bool IsBlank => string.IsNullOrWhiteSpace(Content);

    /// <summary>
    /// The complete lines of the prefix, at most <paramref name="limit"/>. Line ends are CR LF, LF or CR, as the
    /// readers of every text format take them (an editor or a classic Mac tool may save CR alone).
    /// </summary>
    public IReadOnlyList<string> Lines(int limit)
    {
        var lines = new List<string>();
        var rest = Content.AsSpan();
        while (lines.Count < limit)
        {
            var end = rest.IndexOfAny('\r', '\n');
            if (end < 0)
            {
                lines.Add(rest.ToString());
                break;
            }

            lines.Add(rest[..end].ToString());
            rest = rest[(rest[end] == '\r' && end + 1 < rest.Length && rest[end + 1] == '\n' ? end + 2 : end + 1)..];
        }

        return lines;
    }

    public static TextPrefix Decode(ReadOnlySpan<byte> head, bool isWholeInput)
    {
        var (encoding, bomLength) = SniffEncoding(head);
        var bytes = head[bomLength..];
        var chars = new char[encoding.GetMaxCharCount(bytes.Length)];
        // Without a flush a character split by the cut stays undecoded instead of becoming U+FFFD; so does one split
        // by the end of the input (an odd last byte of UTF-16), which the reader reports at its line: judged here, it
        // would make a two-line log look half binary and refuse it whole.
        var text = chars.AsSpan(0, encoding.GetDecoder().GetChars(bytes, chars, flush: false));
        if (!isWholeInput && text.LastIndexOfAny('\r', '\n') is var lastBreak and >= 0)
        {
            // The CR of a last CR LF goes too, or it would end one more, empty, line.
            text = text[..(lastBreak > 0 && text[lastBreak] == '\n' && text[lastBreak - 1] == '\r' ? lastBreak - 1 : lastBreak)];
        }

        return new TextPrefix(encoding, text.ToString());
    }

    private static (Encoding Encoding, int BomLength) SniffEncoding(ReadOnlySpan<byte> head)
    {
        if (head.StartsWith((ReadOnlySpan<byte>)[0xEF, 0xBB, 0xBF]))
        {
            return (Encoding.UTF8, 3);
        }

        if (head.StartsWith((ReadOnlySpan<byte>)[0xFF, 0xFE]))
        {
            return (Encoding.Unicode, 2);
        }

        if (head.StartsWith((ReadOnlySpan<byte>)[0xFE, 0xFF]))
        {
            return (Encoding.BigEndianUnicode, 2);
        }

        // An ERRORLOG or XML copied without its BOM is still UTF-16: ASCII text then shows a zero in every odd byte
        // (little-endian) or every even one (big-endian).
        if (head.Length >= 2 && head[0] != 0 && head[1] == 0)
        {
            return (Encoding.Unicode, 0);
        }

        if (head.Length >= 2 && head[0] == 0 && head[1] != 0)
        {
            return (Encoding.BigEndianUnicode, 0);
        }

        return (new UTF8Encoding(encoderShouldEmitUTF8Identifier: false), 0);
    }
}
