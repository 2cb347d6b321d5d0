using System.Text;
using BackupXe.Sources.Errorlog;
using BackupXe.Sources.Xel;

namespace BackupXe.Sources.Detection;

/// <summary>
/// Tells a .xel, XE XML and an ERRORLOG apart by their first bytes: users rename files, and SSMS saves XE XML
/// and log exports under whatever extension they type.
/// </summary>
public static class InputFormatDetector
{
    /// <summary>How much of a file is looked at: enough for a BOM, an XML start or a first log line.</summary>
    public const int SniffLength = 4096;

    public const string FileNotFound = "file not found";
    public const string EmptyFile = "empty file";
    public const string NotRecognised = "not a recognised format (expected .xel, XE XML or an ERRORLOG)";

    public static InputDetection Detect(string path)
    {
        if (Directory.Exists(path))
        {
            return new InputDetection(InputFormat.Unreadable, Problem: "is a folder, not a file");
        }

        if (!File.Exists(path))
        {
            return new InputDetection(InputFormat.Missing, Problem: FileNotFound);
        }

        Span<byte> head = stackalloc byte[SniffLength];
        int length;
        try
        {
            using var stream = InputFile.OpenRead(path);
            length = stream.ReadAtLeast(head, head.Length, throwOnEndOfStream: false);
        }
        catch (FileNotFoundException)
        {
            return new InputDetection(InputFormat.Missing, Problem: FileNotFound);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return new InputDetection(InputFormat.Unreadable, Problem: $"cannot be opened: {e.Message}");
        }

        return Detect(head[..length], isWholeFile: length < SniffLength);
    }

    /// <param name="head">The first bytes of the input (up to <see cref="SniffLength"/>).</param>
    /// <param name="isWholeFile">False when <paramref name="head"/> was cut off, so its last line may be partial.</param>
    public static InputDetection Detect(ReadOnlySpan<byte> head, bool isWholeFile)
    {
        if (head.IsEmpty)
        {
            return new InputDetection(InputFormat.Empty, Problem: EmptyFile);
        }

        if (XelFileDetector.IsXel(head))
        {
            return new InputDetection(InputFormat.Xel);
        }

        var (encoding, bomLength) = SniffEncoding(head);
        // Decoding without a flush leaves a character split by the cut undecoded instead of turning it into U+FFFD.
        var bytes = head[bomLength..];
        var chars = new char[encoding.GetMaxCharCount(bytes.Length)];
        var text = chars.AsSpan(0, encoding.GetDecoder().GetChars(bytes, chars, flush: isWholeFile));
        if (!isWholeFile && text.LastIndexOf('\n') is var lastBreak and > 0)
        {
            // The cut may split a line; judge complete lines only.
            text = text[..lastBreak];
        }

        var content = text.TrimStart();
        if (content.IsEmpty)
        {
            return new InputDetection(InputFormat.Empty, Problem: EmptyFile);
        }

        if (ErrorlogLine.LooksBinary(content))
        {
            return new InputDetection(InputFormat.Unrecognised, Problem: NotRecognised);
        }

        if (content[0] == '<')
        {
            return new InputDetection(InputFormat.XeXml, encoding);
        }

        var firstLine = content.IndexOfAny('\r', '\n') is var end and >= 0 ? content[..end] : content;
        if (ErrorlogLine.StartsWithTimestamp(firstLine) || firstLine.StartsWith("LogDate", StringComparison.OrdinalIgnoreCase))
        {
            return new InputDetection(InputFormat.Errorlog, encoding);
        }

        return new InputDetection(InputFormat.Unrecognised, Problem: NotRecognised);
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

        // An ERRORLOG copied without its BOM is still UTF-16LE: ASCII text then shows a zero in every odd byte.
        if (head.Length >= 2 && head[0] != 0 && head[1] == 0)
        {
            return (Encoding.Unicode, 0);
        }

        return (new UTF8Encoding(encoderShouldEmitUTF8Identifier: false), 0);
    }
}
