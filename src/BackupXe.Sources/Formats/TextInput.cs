using System.Text;
using BackupXe.Core.Events;

namespace BackupXe.Sources.Formats;

/// <summary>
/// Opens a line-based input once: a byte order mark decides the encoding, else the one the format was recognised in.
/// An input that cannot be opened is reported on its status as unusable, never thrown.
/// </summary>
internal static class TextInput
{
    public static StreamReader? Open(Func<Stream> open, Encoding encodingWithoutBom, SourceStatus status)
    {
        try
        {
            return new StreamReader(open(), encodingWithoutBom, detectEncodingFromByteOrderMarks: true);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            status.Unusable = true;
            status.Report("file", $"cannot be opened: {e.Message}");
            return null;
        }
    }
}
