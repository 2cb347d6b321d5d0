using System.Text;
using BackupXe.Core.Events;

namespace BackupXe.Sources.Formats;

/// <summary>
/// Opens a file source's input once: a byte order mark decides the encoding, else the one the format was recognised
/// in; UTF-8 text appended to UTF-16 text is read as UTF-8 (<see cref="AppendedUtf8Stream"/>). An input that cannot be opened is reported on its status as unusable, never thrown.
/// </summary>
internal static class TextInput
{
    public static StreamReader? Open(Func<Stream> open, Encoding encodingWithoutBom, SourceStatus status)
        => Opened(status, () => new StreamReader(AppendedUtf8Stream.Over(open(), encodingWithoutBom, status), encodingWithoutBom, detectEncodingFromByteOrderMarks: true));

    /// <summary>
    /// What <paramref name="open"/> makes of the input, or null, reported on <paramref name="status"/>, when the input
    /// cannot be opened: the one place every file source says so.
    /// </summary>
    public static T? Opened<T>(SourceStatus status, Func<T> open)
        where T : class
    {
        try
        {
            return open();
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            status.Unusable = true;
            status.Report("file", $"cannot be opened: {e.Message}");
            return null;
        }
    }
}
