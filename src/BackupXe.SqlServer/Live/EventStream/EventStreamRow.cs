namespace BackupXe.SqlServer.Live.EventStream;

/// <summary>
/// One row of <c>sys.fn_MSxe_read_event_stream</c>: <paramref name="Type"/> (int) and <paramref name="Data"/>, one log
/// buffer in the .xel buffer format (null when the server sent none, or when it was <paramref name="Oversized"/>:
/// longer than any log buffer may be, and not read into memory).
/// </summary>
internal readonly record struct EventStreamRow(int Type, byte[]? Data, bool Oversized = false);

/// <summary>
/// The values of the <c>type</c> column as far as they are known. Microsoft documents the column only as "the event
/// type" (int). DBA Dash's reading of XELite's internals names 2 the header (LBHT_HEADER), and the buffer header
/// types seen in .xel files are 0 (events) and 1 (metadata); that the column repeats the buffer's own type is
/// assumed (docs/live.md). BackupXe therefore decodes every row by its buffer's own header and uses the column only
/// to report a disagreement.
/// </summary>
internal static class EventStreamRowTypes
{
    public const int Events = 0;
    public const int Metadata = 1;
    public const int Header = 2;
}
