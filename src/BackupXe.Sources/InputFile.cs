namespace BackupXe.Sources;

/// <summary>How every file source opens its input.</summary>
internal static class InputFile
{
    // Sequential reads through a large buffer: inputs run to millions of events and are read once, front to back.
    private const int BufferSize = 64 * 1024;

    // The server keeps its current ERRORLOG and event_file open for writing: share them, or live files cannot be read.
    public static FileStream OpenRead(string path) =>
        new(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, BufferSize, FileOptions.SequentialScan);
}
