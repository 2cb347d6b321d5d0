namespace BackupXe.SqlServer.Live.EventFile;

/// <summary>
/// Reads the capture session's event_file target: <c>SELECT TOP (@batch) event_data, file_name, file_offset
/// FROM sys.fn_xe_file_target_read_file(@path, NULL, @initial_file_name, @initial_offset)</c>. The SqlClient
/// adapter runs that query; tests script the rows.
/// </summary>
internal interface IEventFileReader
{
    /// <summary>
    /// Up to <paramref name="maxRows"/> rows in file order, starting after <paramref name="after"/> (every file
    /// when null). Throws <see cref="EventFileMissingException"/> when <paramref name="after"/>'s file is gone,
    /// anything else on a failed connection or query.
    /// </summary>
    IAsyncEnumerable<EventFileRow> ReadAsync(EventFilePosition? after, int maxRows, CancellationToken cancellationToken);

    /// <summary>
    /// Up to <paramref name="maxRows"/> rows of the one file <paramref name="file"/> from its start: where reading
    /// goes on after a damaged file, since no documented position lies before a file's first buffer.
    /// </summary>
    IAsyncEnumerable<EventFileRow> ReadFileAsync(string file, int maxRows, CancellationToken cancellationToken);
}

/// <summary>The file a tail would resume in is no longer on the server (the target rolled over and deleted it).</summary>
internal sealed class EventFileMissingException(string fileName, Exception? inner = null)
    : Exception($"The event file {fileName} is no longer on the server.", inner)
{
    public string FileName { get; } = fileName;
}

/// <summary>
/// The server found a damaged buffer in an event file (error 25736) and reads no further events from that file.
/// </summary>
/// <param name="fileName">The file being read when it failed (null: the oldest, nothing read yet).</param>
internal sealed class EventFileDamagedException(string? fileName, Exception inner)
    : Exception($"A damaged buffer was found in the event file {fileName ?? "(the oldest file)"}.", inner)
{
    public string? FileName { get; } = fileName;
}
