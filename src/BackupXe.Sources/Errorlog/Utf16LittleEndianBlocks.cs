using System.Buffers;
using System.Runtime.InteropServices;
using BackupXe.Core.Parsing;

namespace BackupXe.Sources.Errorlog;

/// <summary>
/// UTF-16LE text, the encoding of a raw ERRORLOG, read from its stream straight into the block: on a little-endian
/// machine its bytes are the characters' own. The two things a decoder would still do are done in place: a
/// surrogate without its partner becomes U+FFFD, and so does an odd last byte, as <see cref="System.Text.Encoding.Unicode"/>
/// decodes them. Tests hold the blocks to a <see cref="StreamReader"/>'s text for any bytes, read in any sizes.
/// </summary>
/// <remarks>
/// The decoder and the copy out of a <see cref="StreamReader"/>'s buffer were 8 % of the instructions of the thread
/// that reads a 1M-line ERRORLOG (callgrind, issue 10); one vectorised search for surrogates costs about a tenth of that.
/// </remarks>
internal sealed class Utf16LittleEndianBlocks : CharBlocks
{
    // 128 KB a read: a FileStream hands a read at least as large as its own 64 KB buffer straight to the file,
    // instead of copying it through that buffer.
    private const int BlockChars = 64 * 1024;

    private const char Replacement = '\uFFFD';

    private static readonly SearchValues<char> Surrogates = CharRange.Of('\uD800', '\uDFFF');

    private readonly Stream _stream;
    private readonly char[] _chars = new char[BlockChars];

    // Bytes read but not handed out: an odd byte, or a high surrogate whose partner is in the next read (3 at most).
    // They stay where they were read until the next call, when the block handed out before is no longer in use.
    private int _carriedAt;
    private int _carried;
    private bool _ended;

    /// <param name="stream">The text, read past its BOM.</param>
    /// <param name="read">Bytes already read after the BOM.</param>
    public Utf16LittleEndianBlocks(Stream stream, ReadOnlySpan<byte> read)
    {
        if (!BitConverter.IsLittleEndian)
        {
            throw new PlatformNotSupportedException("UTF-16LE text is read as the machine's own characters only on a little-endian machine.");
        }

        _stream = stream;
        read.CopyTo(MemoryMarshal.AsBytes(_chars.AsSpan()));
        _carried = read.Length;
    }

    /// <summary>
    /// True when <paramref name="head"/>, the first bytes of a text (four, or all it has), is a UTF-16LE BOM that is
    /// not the start of a UTF-32LE one (FF FE 00 00), told apart as <see cref="StreamReader"/> tells them, and the
    /// machine is little-endian.
    /// </summary>
    public static bool StartsWithBom(ReadOnlySpan<byte> head) =>
        BitConverter.IsLittleEndian && head is [0xFF, 0xFE, ..] && head is not [_, _, 0, 0];

    public override ArraySegment<char> Next()
    {
        if (_ended)
        {
            return new(_chars, 0, 0);
        }

        var bytes = MemoryMarshal.AsBytes(_chars.AsSpan());
        bytes.Slice(_carriedAt, _carried).CopyTo(bytes);
        var total = _carried;
        while (true)
        {
            var read = _stream.Read(bytes[total..]);
            if (read == 0)
            {
                return Last(total);
            }

            total += read;
            var count = total / 2;

            // A high surrogate at the end waits for the next read to tell whether its partner follows.
            var ready = count > 0 && char.IsHighSurrogate(_chars[count - 1]) ? count - 1 : count;
            if (ready > 0)
            {
                ReplaceLoneSurrogates(_chars.AsSpan(0, ready));
                _carriedAt = ready * 2;
                _carried = total - _carriedAt;
                return new(_chars, 0, ready);
            }
        }
    }

    public override void Dispose() => _stream.Dispose();

    private ArraySegment<char> Last(int total)
    {
        _ended = true;
        var count = total / 2;
        ReplaceLoneSurrogates(_chars.AsSpan(0, count));
        if (total % 2 == 1)
        {
            // The odd byte lies in the first byte of this character, which it no longer needs.
            _chars[count++] = Replacement;
        }

        return new(_chars, 0, count);
    }

    private static void ReplaceLoneSurrogates(Span<char> chars)
    {
        var at = chars.IndexOfAny(Surrogates);
        while (at >= 0)
        {
            if (char.IsHighSurrogate(chars[at]) && at + 1 < chars.Length && char.IsLowSurrogate(chars[at + 1]))
            {
                at += 2;
            }
            else
            {
                chars[at++] = Replacement;
            }

            var next = at < chars.Length ? chars[at..].IndexOfAny(Surrogates) : -1;
            at = next < 0 ? -1 : at + next;
        }
    }
}
