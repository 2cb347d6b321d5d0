namespace BackupXe.SqlServer.Live.EventFile;

/// <summary>
/// One row of <c>sys.fn_xe_file_target_read_file</c>: the event as XML, the file it is in and the offset of
/// the buffer that holds it. Many events share one offset (a buffer is written whole).
/// </summary>
internal sealed record EventFileRow(string EventData, string FileName, long FileOffset)
{
    public EventFilePosition Position => new(FileName, FileOffset);
}

/// <summary>
/// A (file_name, file_offset) pair as passed to <c>initial_file_name</c> / <c>initial_offset</c>, which
/// Microsoft documents as paired ("if you specify a value for either argument you must specify a value for the
/// other") and as skipping every event up to that offset inclusive: "Used to specify last offset read
/// previously and skips all events up to the offset (inclusive)"
/// (https://learn.microsoft.com/en-us/previous-versions/sql/sql-server-2012/cc280743(v=sql.110)).
/// </summary>
public sealed record EventFilePosition(string FileName, long FileOffset)
{
    public override string ToString() => $"{FileName} offset {FileOffset}";
}

/// <summary>
/// Where a tail resumes. <see cref="After"/> is the last offset whose every row was handed on (null: from the
/// first file still there); <see cref="Partial"/>, when set, is the offset after it of which the first
/// <see cref="PartialRows"/> rows were handed on, so a resume skips exactly those and repeats nothing.
/// </summary>
/// <param name="LastEventUtc">Timestamp of the last event handed on, to say when a gap began.</param>
public sealed record EventFileCheckpoint(
    EventFilePosition? After,
    EventFilePosition? Partial,
    int PartialRows,
    DateTime? LastEventUtc)
{
    public static readonly EventFileCheckpoint Start = new(null, null, 0, null);

    public override string ToString() => (After, Partial) switch
    {
        (null, null) => "the start of the oldest file",
        (_, null) => $"after {After}",
        _ => $"{PartialRows} row(s) into {Partial}" + (After is null ? string.Empty : $" (after {After})"),
    };
}
