using BackupXe.Sources.IO;
namespace BackupXe.Sources.XeXml;

/// <summary>
/// XML text with every CDATA section longer than <see cref="HeldChars"/> handed on as escaped character data instead
/// (<c>&lt;</c>, <c>&gt;</c> and <c>&amp;</c> escaped, the same value). <see cref="System.Xml.XmlReader"/> builds a
/// CDATA section whole in its buffer before it hands out any of it (a 90 MB trace_message took 396 MiB), while it
/// hands out character data in chunks, which the event parser reads with <c>ReadValueChunk</c> and cuts at its bound.
/// A section up to <see cref="HeldChars"/> is handed on as it was, so every usual document reads as before; only the
/// line positions inside a long section's line change, its line numbers do not. Comments and processing
/// instructions are passed through untouched, so a <c>&lt;![CDATA[</c> inside them is not taken for a section.
/// </summary>
/// <typeparam name="T">A code unit: <see cref="char"/> for decoded text, <see cref="byte"/> for UTF-8, whose markers and escaped characters are ASCII bytes.</typeparam>
internal sealed class BoundedCData<T>(Func<Span<T>, int> inner, Func<string, T[]> units)
    where T : unmanaged, IEquatable<T>
{
    /// <summary>A section this long or shorter stays a CDATA section: the longest field value kept, and one more.</summary>
    public const int HeldChars = XeEventParser.MaxFieldChars + 1;

    private const int MarkerLength = 9;

    private readonly T[] _cdataOpen = units("<![CDATA[");
    private readonly T[] _cdataClose = units("]]>");
    private readonly T[] _commentOpen = units("<!--");
    private readonly T[] _commentClose = units("-->");
    private readonly T[] _instructionOpen = units("<?");
    private readonly T[] _instructionClose = units("?>");
    private readonly T[] _lt = units("&lt;");
    private readonly T[] _gt = units("&gt;");
    private readonly T[] _amp = units("&amp;");
    private readonly T _less = units("<")[0];
    private readonly T _greater = units(">")[0];
    private readonly T _ampersand = units("&")[0];
    private readonly T _bang = units("!")[0];
    private readonly T _question = units("?")[0];

    // Room for a block and the look-ahead a marker needs.
    private readonly T[] _in = new T[16 * 1024 + 16];
    private readonly T[] _held = new T[HeldChars];
    private T[] _out = new T[64 * 1024];
    private int _inStart;
    private int _inEnd;
    private bool _ended;
    private int _outStart;
    private int _outEnd;
    private int _heldLength;
    private State _state;

    private enum State
    {
        Markup,
        Comment,
        Instruction,

        /// <summary>Inside a CDATA section, not yet longer than <see cref="HeldChars"/>: held back.</summary>
        HeldSection,

        /// <summary>Inside a CDATA section found too long: escaped as it goes.</summary>
        EscapedSection,
    }

    public int Read(Span<T> buffer)
    {
        while (_outStart == _outEnd)
        {
            _outStart = _outEnd = 0;
            if (!Produce())
            {
                return 0;
            }
        }

        var count = Math.Min(buffer.Length, _outEnd - _outStart);
        _out.AsSpan(_outStart, count).CopyTo(buffer);
        _outStart += count;
        return count;
    }

    // Moves at least one input character on (or ends); false at the end of the input with nothing left to hand on.
    private bool Produce()
    {
        // A marker is at most 9 characters: enough look-ahead that none is split by a refill.
        if (!_ended && _inEnd - _inStart < MarkerLength)
        {
            Fill();
        }

        var input = _in.AsSpan(_inStart, _inEnd - _inStart);
        if (input.IsEmpty)
        {
            if (_state == State.HeldSection)
            {
                // The input ends inside a section: hand on what it held, as it was, for the XML reader to report.
                Emit(_cdataOpen);
                Emit(_held.AsSpan(0, _heldLength));
                _heldLength = 0;
                _state = State.Markup;
                return true;
            }

            return false;
        }

        // Up to where a marker could start and still be wholly in view.
        var sure = _ended ? input.Length : input.Length - (MarkerLength - 1);
        switch (_state)
        {
            case State.Markup:
            {
                var at = MarkupStart(input, sure);
                if (at != 0)
                {
                    Take(at < 0 ? sure : at, escape: false);
                    return true;
                }

                if (input.StartsWith(_cdataOpen))
                {
                    Skip(_cdataOpen.Length);
                    _state = State.HeldSection;
                }
                else if (input.StartsWith(_commentOpen))
                {
                    Take(_commentOpen.Length, escape: false);
                    _state = State.Comment;
                }
                else if (input.StartsWith(_instructionOpen))
                {
                    Take(_instructionOpen.Length, escape: false);
                    _state = State.Instruction;
                }
                else
                {
                    Take(1, escape: false);
                }

                return true;
            }

            case State.Comment:
                return PassUntil(input, sure, _commentClose);
            case State.Instruction:
                return PassUntil(input, sure, _instructionClose);
            case State.HeldSection:
            {
                var close = input.IndexOf(_cdataClose);
                var length = close < 0 ? sure : close;
                var room = _held.Length - _heldLength;
                if (length > room)
                {
                    // Too long to stay a section: what was held, and the rest as it comes, as escaped text.
                    EmitEscaped(_held.AsSpan(0, _heldLength));
                    _heldLength = 0;
                    _state = State.EscapedSection;
                    return true;
                }

                input[..length].CopyTo(_held.AsSpan(_heldLength));
                _heldLength += length;
                Skip(length);
                if (close >= 0)
                {
                    Emit(_cdataOpen);
                    Emit(_held.AsSpan(0, _heldLength));
                    Emit(_cdataClose);
                    _heldLength = 0;
                    Skip(_cdataClose.Length);
                    _state = State.Markup;
                }

                return true;
            }

            default:
            {
                var close = input.IndexOf(_cdataClose);
                Take(close < 0 ? sure : close, escape: true);
                if (close >= 0)
                {
                    Skip(_cdataClose.Length);
                    _state = State.Markup;
                }

                return true;
            }
        }
    }

    // Where the first "<!" or "<?" starts before `sure`, or -1. Elements are most of XML's '<', so the search is for
    // the rarer '!' and '?', each then checked for the '<' before it: one vectorised scan between markers.
    private int MarkupStart(ReadOnlySpan<T> input, int sure)
    {
        var limit = Math.Min(sure + 1, input.Length);
        var from = 1;
        while (from < limit)
        {
            var hit = input[from..limit].IndexOfAny(_bang, _question);
            if (hit < 0)
            {
                return -1;
            }

            var at = from + hit - 1;
            if (input[at].Equals(_less))
            {
                return at;
            }

            from += hit + 1;
        }

        return -1;
    }

    private bool PassUntil(ReadOnlySpan<T> input, int sure, T[] close)
    {
        // Searched in all the look-ahead: a closing marker that starts before `sure` lies wholly in it.
        var end = input.IndexOf(close);
        if (end < 0)
        {
            Take(sure, escape: false);
        }
        else
        {
            Take(end + close.Length, escape: false);
            _state = State.Markup;
        }

        return true;
    }

    private void Take(int count, bool escape)
    {
        var chars = _in.AsSpan(_inStart, count);
        if (escape)
        {
            EmitEscaped(chars);
        }
        else
        {
            Emit(chars);
        }

        _inStart += count;
    }

    private void Skip(int count) => _inStart += count;

    private void Emit(ReadOnlySpan<T> chars)
    {
        Reserve(chars.Length);
        chars.CopyTo(_out.AsSpan(_outEnd));
        _outEnd += chars.Length;
    }

    private void EmitEscaped(ReadOnlySpan<T> chars)
    {
        while (!chars.IsEmpty)
        {
            var special = chars.IndexOfAny(_less, _greater, _ampersand);
            var plain = special < 0 ? chars : chars[..special];
            Emit(plain);
            if (special < 0)
            {
                return;
            }

            Emit(chars[special].Equals(_less) ? _lt : chars[special].Equals(_greater) ? _gt : _amp);
            chars = chars[(special + 1)..];
        }
    }

    private void Reserve(int more)
    {
        if (_outEnd + more > _out.Length)
        {
            Array.Resize(ref _out, Math.Max(_out.Length * 2, _outEnd + more));
        }
    }

    private void Fill()
    {
        var left = _inEnd - _inStart;
        _in.AsSpan(_inStart, left).CopyTo(_in);
        _inStart = 0;
        _inEnd = left;
        while (!_ended && _inEnd < MarkerLength)
        {
            var read = inner(_in.AsSpan(_inEnd));
            _inEnd += read;
            _ended = read == 0;
        }

        if (!_ended && _inEnd < _in.Length)
        {
            // One more read when there is room, so that blocks are not handed on a few characters at a time.
            var read = inner(_in.AsSpan(_inEnd));
            _inEnd += read;
            _ended = read == 0;
        }
    }
}

/// <summary>Decoded XML text with long CDATA sections handed on as character data (<see cref="BoundedCData{T}"/>).</summary>
internal sealed class BoundedCDataReader : TextReader
{
    private readonly TextReader _inner;
    private readonly BoundedCData<char> _text;

    public BoundedCDataReader(TextReader inner)
    {
        _inner = inner;
        _text = new BoundedCData<char>(Decoded, static text => text.ToCharArray());
    }

    public override int Read(char[] buffer, int index, int count) => _text.Read(buffer.AsSpan(index, count));

    public override int Read(Span<char> buffer) => _text.Read(buffer);

    public override int Peek() => throw new NotSupportedException("read in blocks only");

    public override int Read()
    {
        Span<char> one = stackalloc char[1];
        return _text.Read(one) == 0 ? -1 : one[0];
    }

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            _inner.Dispose();
        }

        base.Dispose(disposing);
    }

    // Bytes that are no UTF-16 (a lone surrogate, an odd last byte) are damage the XML reader reports where it is.
    private int Decoded(Span<char> buffer)
    {
        try
        {
            return _inner.Read(buffer);
        }
        catch (System.Text.DecoderFallbackException e)
        {
            throw new System.Xml.XmlException($"Invalid character in the given encoding ({e.Message})", e);
        }
    }
}

/// <summary>UTF-8 XML with long CDATA sections handed on as character data (<see cref="BoundedCData{T}"/>).</summary>
internal sealed class BoundedCDataStream(Stream inner) : ForwardReadStream(inner)
{
    private readonly BoundedCData<byte> _bytes = new(inner.Read, static text => System.Text.Encoding.ASCII.GetBytes(text));

    public override int Read(Span<byte> buffer) => _bytes.Read(buffer);
}
