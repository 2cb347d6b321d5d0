using System.Buffers;
using System.Runtime.InteropServices;
using BackupXe.Core.Parsing;

namespace BackupXe.Sources.Errorlog;

/// <summary>
/// UTF-16LE text, the encoding of a raw ERRORLOG, read from its stream straight into the block: on a little-endian
/// machine its bytes are the characters' own. What a decoder would still do is done for it: an odd last byte
/// becomes U+FFFD here, and a surrogate without its partner becomes U+FFFD in <see cref="CompleteLine"/>, so
/// that the lines cut from these blocks are those a <see cref="StreamReader"/>'s text gives (tests hold the two
/// to the same lines for any bytes, read in any sizes).
/// </summary>
/// <remarks>
/// Why: a decoder and the copy out of a <see cref="StreamReader"/>'s buffer are work on every character of the thread
/// that reads a log (docs/performance.md, "ERRORLOG decisions"). Surrogates are looked for only in lines the line search
/// did not prove printable ASCII, since those cannot hold one and a search of every block would cost most of what the
/// decoder did.
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

    // An odd byte read but not handed out. It stays where it was read until the next call, when the block handed
    // out before is no longer in use.
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
            if (count > 0)
            {
                _carriedAt = count * 2;
                _carried = total - _carriedAt;
                return new(_chars, 0, count);
            }
        }
    }

    public override void CompleteLine(Span<char> line, int next)
    {
        var at = line.IndexOfAny(Surrogates);
        while (at >= 0)
        {
            var partner = at + 1 < line.Length ? line[at + 1] : next;
            if (char.IsHighSurrogate(line[at]) && partner >= 0 && char.IsLowSurrogate((char)partner))
            {
                at += 2;
            }
            else
            {
                line[at++] = Replacement;
            }

            var more = at < line.Length ? line[at..].IndexOfAny(Surrogates) : -1;
            at = more < 0 ? -1 : at + more;
        }
    }

    public override void Dispose() => _stream.Dispose();

    private ArraySegment<char> Last(int total)
    {
        _ended = true;
        var count = total / 2;
        if (total % 2 == 1)
        {
            // The odd byte lies in the first byte of this character, which it no longer needs.
            _chars[count++] = Replacement;
        }

        return new(_chars, 0, count);
    }
}
