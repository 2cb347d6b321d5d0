using System.Text;
using BackupXe.Sources.Formats;
using BackupXe.Sources.IO;

namespace BackupXe.Sources.Errorlog;

/// <summary>
/// A text as successive blocks of characters, each valid until the next call: what <see cref="BoundedLineReader"/>
/// cuts into lines. A source that can hand out its own buffer (<see cref="Utf16LittleEndianBlocks"/>) spares the
/// copy a <see cref="TextReader"/> makes into the caller's.
/// </summary>
internal abstract class CharBlocks : IDisposable
{
    /// <summary>The next block; empty only at the end of the text.</summary>
    public abstract ArraySegment<char> Next();

    public abstract void Dispose();

    /// <summary>
    /// Gives <paramref name="line"/>, cut from these blocks at line ends or at a length limit, the characters a
    /// decoder would have given it. A <see cref="TextReader"/>'s text is decoded already; UTF-16LE read straight is
    /// not, and its lone surrogates become U+FFFD here, where a line that holds nothing but printable ASCII (nearly
    /// every line of a log) need not be searched for them.
    /// </summary>
    /// <param name="line">The line's characters, repaired in place.</param>
    /// <param name="next">The character that followed the line's last one, when the line was cut at a length limit; else -1.</param>
    public virtual void CompleteLine(Span<char> line, int next)
    {
    }

    /// <summary>The blocks of <paramref name="reader"/>, read into a buffer of this object's own.</summary>
    public static CharBlocks Of(TextReader reader) => new TextReaderBlocks(reader);

    /// <summary>
    /// The text of <paramref name="stream"/>, decoded as a <see cref="StreamReader"/> with BOM detection decodes it
    /// (<paramref name="encodingWithoutBom"/> when there is no BOM), or, when it starts with a UTF-16LE BOM (a raw
    /// ERRORLOG), read straight into the blocks with no decoder at all.
    /// </summary>
    /// <param name="streamReaderBufferBytes">The byte buffer of the <see cref="StreamReader"/>, when one is used.</param>
    public static CharBlocks Open(Stream stream, Encoding encodingWithoutBom, int streamReaderBufferBytes)
    {
        // Enough to tell UTF-16LE's BOM from UTF-32LE's, as StreamReader does. A stream cannot be assumed to seek back
        // (inputs come through PrefixedStream), so the bytes are handed on to whichever reader is chosen.
        var head = StreamHead.Read(stream, 4);
        if (Utf16LittleEndianBlocks.StartsWithBom(head.Span))
        {
            return new Utf16LittleEndianBlocks(stream, head.Span[2..]);
        }

        return Of(new StreamReader(new PrefixedStream(head, stream), encodingWithoutBom, detectEncodingFromByteOrderMarks: true, streamReaderBufferBytes));
    }

    private sealed class TextReaderBlocks(TextReader reader) : CharBlocks
    {
        private readonly char[] _buffer = new char[16 * 1024];

        public override ArraySegment<char> Next() => new(_buffer, 0, reader.Read(_buffer.AsSpan()));

        public override void Dispose() => reader.Dispose();
    }
}
