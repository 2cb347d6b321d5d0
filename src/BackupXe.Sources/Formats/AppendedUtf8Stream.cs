using System.Runtime.InteropServices;
using System.Text;
using BackupXe.Core.Events;
using BackupXe.Sources.IO;

namespace BackupXe.Sources.Formats;

/// <summary>
/// UTF-16LE text with UTF-8 text appended to it, as Windows PowerShell 5 leaves a file that one command wrote with
/// <c>&gt;</c> (UTF-16LE) and another extended in UTF-8. Read as UTF-16 the appended part is one line of CJK-looking
/// characters that no reader recognises, so it was lost without a word. This stream hands on the UTF-16 part as it is
/// and the appended part transcoded to UTF-16LE, so every text reader reads both, and reports where the switch is.
/// </summary>
/// <remarks>
/// ASCII text in UTF-16LE has a zero in every odd byte; ASCII text read two bytes at a time has none. A run of
/// <see cref="RunPairs"/> byte pairs that are both ASCII text (tab, CR, LF, space to '~') marks the switch: as UTF-16
/// each pair is a character from U+0900 to U+7E7E, and real text in those scripts would need every one of 8 characters
/// in a row to have a low byte that is ASCII text too. One vectorised search finds such characters, so a log of
/// UTF-16 ASCII costs one scan of its bytes.
/// </remarks>
internal sealed class AppendedUtf8Stream : ForwardReadStream
{
    /// <summary>Pairs of ASCII bytes in a row that mark the switch; fewer are enough when they run to the end.</summary>
    private const int RunPairs = 8;

    private const int MinRunPairsAtEnd = 2;

    private readonly SourceStatus _status;
    // As large as the raw ERRORLOG's reads (128 KB), which a file stream then hands straight to the file.
    private readonly byte[] _buffer = new byte[128 * 1024];
    private readonly Decoder _utf8 = new UTF8Encoding(encoderShouldEmitUTF8Identifier: false).GetDecoder();
    private char[] _chars = [];
    private int _start;
    private int _end;
    private int _scan;
    private int _runStart = -1;
    private long _bufferOffset;
    private bool _ended;
    private bool _switched;
    private int _outStart;
    private int _outEnd;

    private AppendedUtf8Stream(Stream inner, SourceStatus status)
        : base(inner)
    {
        _status = status;
    }

    /// <summary>
    /// <paramref name="stream"/> as it is, unless its text is UTF-16LE (its BOM says so, or it has none and
    /// <paramref name="encodingWithoutBom"/> is UTF-16LE): then watched for appended UTF-8 text.
    /// </summary>
    public static Stream Over(Stream stream, Encoding encodingWithoutBom, SourceStatus status)
    {
        var head = StreamHead.Read(stream, 3);
        var read = head.Span;
        var littleEndian = read is [0xFF, 0xFE, ..]
            || (encodingWithoutBom is UnicodeEncoding && encodingWithoutBom.CodePage == 1200
                && read is not ([0xEF, 0xBB, 0xBF, ..] or [0xFE, 0xFF, ..]));
        var replayed = new PrefixedStream(head, stream);
        return littleEndian ? new AppendedUtf8Stream(replayed, status) : replayed;
    }

    public override int Read(Span<byte> destination)
    {
        if (destination.IsEmpty)
        {
            return 0;
        }

        if (!_switched && !_ended && _start == _end && _runStart < 0 && ReadDirect(destination) is var direct and > 0)
        {
            return direct;
        }

        while (true)
        {
            if (_switched)
            {
                return ReadTranscoded(destination);
            }

            Scan();
            if (_switched)
            {
                continue;
            }

            // Bytes before the frontier are UTF-16 for sure (but for the head of a UTF-8 BOM just before it); at the end
            // of the input every byte left is.
            var frontier = _runStart >= 0 ? _runStart : _scan;
            var safe = _ended ? _end : Math.Max(_start, frontier - HoldBack(frontier));
            if (safe > _start)
            {
                var count = Math.Min(destination.Length, safe - _start);
                _buffer.AsSpan(_start, count).CopyTo(destination);
                _start += count;
                return count;
            }

            if (_ended)
            {
                return 0;
            }

            Fill();
        }
    }

    // The usual read: straight into the caller's buffer, handed on when no character in it is U+0900 or above (UTF-16
    // ASCII, the text of a log, never is); else what follows the first such character is kept for the careful path.
    private int ReadDirect(Span<byte> destination)
    {
        _bufferOffset += _end;
        _start = _end = _scan = 0;
        // No more than the buffer can keep when the careful path needs the rest.
        var read = Inner.Read(destination[..Math.Min(destination.Length, _buffer.Length)]);
        if (read == 0)
        {
            _ended = true;
            return 0;
        }

        var even = read & ~1;
        var found = MemoryMarshal.Cast<byte, ushort>(destination[..even]).IndexOfAnyInRange((ushort)0x0900, ushort.MaxValue);
        var handed = found < 0 ? even : found * 2;
        destination[handed..read].CopyTo(_buffer);
        _end = read - handed;
        _bufferOffset += handed;
        return handed;
    }

    // How many bytes before the frontier may be the head of a UTF-8 BOM (EF BB, or EF BB BF) written before a run.
    private int HoldBack(int frontier)
    {
        if (frontier - 4 >= _start && _buffer[frontier - 4] == 0xEF && _buffer[frontier - 3] == 0xBB && _buffer[frontier - 2] == 0xBF)
        {
            return 4;
        }

        return frontier - 2 >= _start && _buffer[frontier - 2] == 0xEF && _buffer[frontier - 1] == 0xBB ? 2 : 0;
    }

    // Looks at the pairs between _scan and _end: a run long enough switches the encoding where it starts.
    private void Scan()
    {
        while (_scan + 1 < _end)
        {
            if (_runStart < 0)
            {
                // Only a character whose both bytes are ASCII text can start a run: U+0900 to U+7E7E.
                var pairs = MemoryMarshal.Cast<byte, ushort>(_buffer.AsSpan(_scan, (_end - _scan) & ~1));
                var candidate = pairs.IndexOfAnyInRange((ushort)0x0900, (ushort)0x7E7E);
                if (candidate < 0)
                {
                    _scan += pairs.Length * 2;
                    break;
                }

                _scan += candidate * 2;
            }

            if (IsText(_buffer[_scan]) && IsText(_buffer[_scan + 1]))
            {
                if (_runStart < 0)
                {
                    _runStart = _scan;
                }

                _scan += 2;
                if ((_scan - _runStart) / 2 >= RunPairs)
                {
                    Switch();
                    return;
                }
            }
            else
            {
                _runStart = -1;
                _scan += 2;
            }
        }

        if (_ended && _runStart >= 0 && (_end - _runStart) / 2 >= MinRunPairsAtEnd)
        {
            Switch();
        }
    }

    private static bool IsText(byte b) => b is (>= 0x20 and <= 0x7E) or 0x09 or 0x0A or 0x0D;

    private void Switch()
    {
        _utf16End = _utf8Start = _runStart;

        // A UTF-8 BOM written before the appended text: EF BB | BF and the text's first byte.
        var at = _runStart;
        if (at - 4 >= _start && _buffer[at - 4] == 0xEF && _buffer[at - 3] == 0xBB && _buffer[at - 2] == 0xBF)
        {
            _utf16End = at - 4;
            _utf8Start = at - 1;
        }

        _status.Report(
            string.Create(System.Globalization.CultureInfo.InvariantCulture, $"offset {_bufferOffset + _utf16End}"),
            "UTF-8 text appended to UTF-16 text (as PowerShell 5 leaves a file extended in another encoding); read as UTF-8 from here");
        _switched = true;
    }

    // The UTF-16 part ends at _utf16End and the UTF-8 bytes start at _utf8Start (after a BOM, if any), in the buffer.
    private int _utf16End;
    private int _utf8Start;

    // Before the switch is handed on, the bytes before it; after it, the UTF-8 bytes as UTF-16LE.
    private int ReadTranscoded(Span<byte> destination)
    {
        if (_start < _utf16End)
        {
            var count = Math.Min(destination.Length, _utf16End - _start);
            _buffer.AsSpan(_start, count).CopyTo(destination);
            _start += count;
            return count;
        }

        while (_outStart == _outEnd)
        {
            ReadOnlySpan<byte> raw;
            if (_utf8Start < _end)
            {
                raw = _buffer.AsSpan(_utf8Start, _end - _utf8Start);
                _utf8Start = _end;
            }
            else if (_ended)
            {
                raw = [];
            }
            else
            {
                var read = Inner.Read(_buffer);
                _start = _utf16End = _utf8Start = _end = 0;
                raw = _buffer.AsSpan(0, read);
                _ended = read == 0;
            }

            if (_chars.Length < raw.Length + 4)
            {
                _chars = new char[raw.Length + 4];
            }

            var chars = _utf8.GetChars(raw, _chars, flush: _ended);
            _outStart = 0;
            _outEnd = chars * 2;
            if (_ended && chars == 0)
            {
                return 0;
            }
        }

        var bytes = MemoryMarshal.AsBytes(_chars.AsSpan()).Slice(_outStart, Math.Min(destination.Length, _outEnd - _outStart));
        bytes.CopyTo(destination);
        _outStart += bytes.Length;
        return bytes.Length;
    }

    // Keeps the unread bytes (at most a run and the held-back bytes: a few dozen) at the front, an even shift so that
    // pairs stay aligned, and reads more behind them.
    private void Fill()
    {
        var shift = _start & ~1;
        if (shift > 0)
        {
            _buffer.AsSpan(shift, _end - shift).CopyTo(_buffer);
            _start -= shift;
            _end -= shift;
            _scan -= shift;
            _runStart = _runStart >= 0 ? _runStart - shift : -1;
            _bufferOffset += shift;
        }

        var read = Inner.Read(_buffer.AsSpan(_end));
        _end += read;
        _ended = read == 0;
    }

}
