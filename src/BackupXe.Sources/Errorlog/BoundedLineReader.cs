using System.Buffers;
using BackupXe.Core.Parsing;

namespace BackupXe.Sources.Errorlog;

/// <summary>
/// Lines of text, each cut at <see cref="MaxLineChars"/>: <see cref="TextReader.ReadLine"/> would build a 200 MB
/// line whole (and a console renderer would copy it again), so the rest of an over-long line is read and dropped
/// in fixed chunks. Line ends are CR LF, LF or CR; the last line needs none.
/// </summary>
internal sealed class BoundedLineReader(CharBlocks blocks)
{
    /// <summary>
    /// The longest message line kept. ERRORLOG messages are a few hundred characters; paths run to 32,767.
    /// </summary>
    public const int MaxLineChars = 65_536;

    /// <summary>The problem a cut line is reported as, in every text format.</summary>
    public static string CutProblem(long lineLength)
        => string.Create(System.Globalization.CultureInfo.InvariantCulture, $"{lineLength} characters long; only the first {MaxLineChars} are kept");

    // What a line of a raw ERRORLOG is made of. One search for anything else finds its end (CR or LF) and tells
    // whether it holds only these, which a line then needs no check for binary content to prove: two searches of
    // the line in one (docs/performance.md).
    private static readonly SearchValues<char> PrintableAscii = CharRange.Of(' ', '~');

    private ArraySegment<char> _block = new([], 0, 0);

    // Only a line that straddles two reads of the buffer is copied here; grown on demand up to MaxLineChars.
    private char[] _line = new char[256];
    private int _lineLength;
    private int _position;
    private int _length;
    private bool _pendingCr;

    // The first character dropped from a cut line: CompleteLine needs it to tell whether a high surrogate that ends
    // the kept part had its partner. -1 when the line was not cut.
    private int _firstDropped;

    /// <summary>True when the last line returned was cut at <see cref="MaxLineChars"/>.</summary>
    public bool Truncated { get; private set; }

    /// <summary>
    /// False when the last line returned ran to the end of the text without a line end: the last line of an export
    /// saved without one, or a line cut short with the file.
    /// </summary>
    public bool LastLineEnded { get; private set; }

    /// <summary>Characters the last line really had, cut or not.</summary>
    public long LastLineLength { get; private set; }

    /// <summary>
    /// True when the last line was seen to hold only printable ASCII (' ' to '~'), so no control character and no
    /// U+FFFD; false says nothing either way.
    /// </summary>
    public bool LastLineIsPrintableAscii { get; private set; }

    public BoundedLineReader(TextReader reader)
        : this(CharBlocks.Of(reader))
    {
    }

    /// <summary>The next line as a string, or null at the end of the text.</summary>
    public string? ReadLine() => ReadLine(out var line) ? line.ToString() : null;

    /// <summary>
    /// The next line, without allocating: <paramref name="line"/> points into this reader's buffers and is valid
    /// until the next call. False at the end of the text.
    /// </summary>
    // Synchronous: ReadAsync per block doubled the cost of reading a line (docs/performance.md, "Choices in the code
    // and the figures behind them"), and a file or a pipe has its next block ready nearly every time. A line that lies whole in the
    // block (nearly every ERRORLOG line: they are ~100 characters, a block 16K or 64K) is handed out where it lies.
    public bool ReadLine(out ReadOnlySpan<char> line)
    {
        _lineLength = 0;
        Truncated = false;
        LastLineLength = 0;
        LastLineIsPrintableAscii = true;
        _firstDropped = -1;
        var any = false;
        Span<char> kept;
        while (true)
        {
            if (_position == _length)
            {
                _block = blocks.Next();
                _length = _block.Count;
                _position = 0;
                if (_length == 0)
                {
                    LastLineEnded = false;
                    line = Complete(_line.AsSpan(0, _lineLength));
                    return any;
                }
            }

            var buffer = _block.AsSpan();
            if (_pendingCr)
            {
                // The LF of a CR LF split across two reads belongs to the line already returned.
                _pendingCr = false;
                if (buffer[_position] == '\n')
                {
                    _position++;
                    continue;
                }
            }

            Span<char> span = buffer[_position.._length];
            var end = span.IndexOfAnyExcept(PrintableAscii);
            if (end >= 0 && span[end] is not ('\r' or '\n'))
            {
                LastLineIsPrintableAscii = false;
                var rest = span[end..].IndexOfAny('\r', '\n');
                end = rest < 0 ? -1 : end + rest;
            }

            var take = end < 0 ? span.Length : end;
            if (end >= 0 && !any)
            {
                // The whole line is in the block.
                LastLineLength = take;
                Truncated = take > MaxLineChars;
                _firstDropped = Truncated ? span[MaxLineChars] : -1;
                kept = span[..Math.Min(take, MaxLineChars)];
            }
            else
            {
                Append(span[..take]);
                kept = default;
            }

            any = true;
            _position += take;
            if (end < 0)
            {
                continue;
            }

            LastLineEnded = true;
            var terminator = buffer[_position++];
            if (terminator == '\r')
            {
                if (_position < _length)
                {
                    if (buffer[_position] == '\n')
                    {
                        _position++;
                    }
                }
                else
                {
                    _pendingCr = true;
                }
            }

            if (kept.IsEmpty)
            {
                kept = _line.AsSpan(0, _lineLength);
            }

            line = Complete(kept);
            return true;
        }
    }

    // Only a line with something besides printable ASCII can hold a surrogate at all.
    private ReadOnlySpan<char> Complete(Span<char> kept)
    {
        if (!LastLineIsPrintableAscii)
        {
            blocks.CompleteLine(kept, _firstDropped);
        }

        return kept;
    }

    private void Append(ReadOnlySpan<char> chars)
    {
        LastLineLength += chars.Length;
        var room = MaxLineChars - _lineLength;
        if (chars.Length > room)
        {
            if (!Truncated)
            {
                _firstDropped = chars[room];
            }

            Truncated = true;
            chars = chars[..room];
        }

        if (_lineLength + chars.Length > _line.Length)
        {
            Array.Resize(ref _line, Math.Min(MaxLineChars, Math.Max(_line.Length * 2, _lineLength + chars.Length)));
        }

        chars.CopyTo(_line.AsSpan(_lineLength));
        _lineLength += chars.Length;
    }
}
