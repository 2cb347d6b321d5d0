using System.Text;

namespace BackupXe.Sources.Detection;

/// <summary>What a file turned out to be, judged by its content.</summary>
public enum InputFormat
{
    /// <summary>An Extended Events event_file.</summary>
    Xel,

    /// <summary>XE XML: ring_buffer target or event_data rows.</summary>
    XeXml,

    /// <summary>A raw ERRORLOG or a sp_readerrorlog / SSMS export.</summary>
    Errorlog,

    /// <summary>No such file.</summary>
    Missing,

    /// <summary>Exists but cannot be opened (a folder, no permission, locked).</summary>
    Unreadable,

    /// <summary>Nothing in it, or only a BOM and white space.</summary>
    Empty,

    /// <summary>Content of no format BackupXe reads.</summary>
    Unrecognised,
}

/// <summary>The verdict on one input.</summary>
/// <param name="TextEncoding">For text formats without a BOM, the encoding the content was found in.</param>
/// <param name="Problem">Why the input cannot be read, for the formats that cannot.</param>
public sealed record InputDetection(InputFormat Format, Encoding? TextEncoding = null, string? Problem = null)
{
    public bool IsReadable => Problem is null;
}
